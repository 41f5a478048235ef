// HTTP throughput: mcplite's demo server (as a user starts it, through the CLI) against a bare node:http JSON-RPC
// echo and, for scale, the official MCP SDK's stateless server, all loaded with autocannon from this process with
// the same settings in the same run. Results are ratios to the baseline, so they do not depend on how fast this
// machine happens to be.
import {
  allClean,
  describeLoad,
  loadSettings,
  meanRps,
  measureContenders,
  pairedRatio,
  printRatio,
  printTable,
} from '../load.js';
import {
  ECHO_CALL,
  echoContender,
  fmt,
  startHttpBaseline,
  startMcpliteServe,
  startSdkServer,
} from '../support.js';

/** The load: the same for every contender (see bench/load.js for the settings and how rounds are paired). */
const LOAD = loadSettings();

/** The issue's target: at least this fraction of the baseline's throughput (median of the paired rounds). */
const TARGET_RATIO = 0.8;
/** BENCH_SDK=0 leaves out the official SDK (it only gives scale; it has no target here). */
const WITH_SDK = process.env.BENCH_SDK !== '0';

export default async function run() {
  console.log('\n## HTTP: tools/call of echo {"message":"hello","repeat":2} (MCP-lite HTTP, JSON-RPC)');
  console.log(describeLoad(LOAD));
  const contenders = await measureContenders(
    [
      startMcplite,
      () => startHttpBaseline(ECHO_CALL),
      ...(WITH_SDK ? [() => startSdkServer('official MCP SDK', ECHO_CALL)] : []),
    ],
    LOAD,
  );
  const [mcplite, baseline, sdk] = contenders;
  printTable(contenders, baseline);
  const ratio = pairedRatio(mcplite, baseline);
  printRatio('mcplite/baseline', ratio);
  const vsSdk = sdk ? pairedRatio(mcplite, sdk).median : undefined;
  const clean = allClean(contenders);
  const met = clean && ratio.median >= TARGET_RATIO;
  console.log(
    `mcplite/baseline ${ratio.median.toFixed(2)}x: ${met ? 'meets' : 'MISSES'} the ${TARGET_RATIO}x target` +
      `${clean ? '' : ' (errors during load)'}${vsSdk ? `; mcplite/official SDK: ${vsSdk.toFixed(1)}x` : ''}`,
  );
  return {
    ok: met,
    summary: [
      `http mcplite: ${fmt(meanRps(mcplite))} req/s, ${ratio.median.toFixed(2)}x the node:http baseline ` +
        `(${fmt(meanRps(baseline))} req/s; median of ${ratio.perRound.length} paired rounds, ` +
        `${ratio.ratioOfMeans.toFixed(2)}x by mean throughput)`,
      ...(sdk
        ? [`http official MCP SDK: ${fmt(meanRps(sdk))} req/s; mcplite is ${vsSdk.toFixed(1)}x it`]
        : []),
    ],
  };
}

/** The demo server, started the way a user starts it (CLI, demo tools, warnings-only logging, no gRPC). */
async function startMcplite() {
  const { child, base } = await startMcpliteServe();
  return echoContender('mcplite', child, `${base}rpc`);
}
