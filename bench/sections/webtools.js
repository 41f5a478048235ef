// Webtools throughput: POST execute of echo through mcplite's Webtools binding (the CLI serving the demo's echo
// tool, so the whole catalog is the one webtool "mcplite") against the bare node:http baseline given the same
// body, loaded with autocannon from this process with the same settings in the same run. The result is a ratio
// to the baseline, so it does not depend on how fast this machine happens to be.
import { join } from 'node:path';
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
import { ECHO_ARGUMENTS, fmt, JSON_HEADERS, ROOT, startChild, startHttpBaseline } from '../support.js';

/** The load: the same for every contender (see bench/load.js for the settings and how rounds are paired). */
const LOAD = loadSettings();

/** The target: at least this fraction of the baseline's throughput (median of the paired rounds). */
const TARGET_RATIO = 0.8;

const EXECUTE = JSON.stringify({ action: 'echo', request: ECHO_ARGUMENTS });

export default async function run() {
  console.log('\n## Webtools: POST execute of echo {"message":"hello","repeat":2}');
  console.log(describeLoad(LOAD));
  // The baseline gets the same body; it is not JSON-RPC, so the baseline's answer carries no id to check.
  const baselineStart = async () => ({ ...(await startHttpBaseline(EXECUTE)), jsonRpc: false });
  const contenders = await measureContenders([startMcplite, baselineStart], LOAD);
  const [mcplite, baseline] = contenders;
  printTable(contenders, baseline);
  const ratio = pairedRatio(mcplite, baseline);
  printRatio('mcplite webtools/baseline', ratio);
  const clean = allClean(contenders);
  const met = clean && ratio.median >= TARGET_RATIO;
  console.log(
    `mcplite webtools/baseline ${ratio.median.toFixed(2)}x: ${met ? 'meets' : 'MISSES'} the ${TARGET_RATIO}x target` +
      `${clean ? '' : ' (errors during load)'}`,
  );
  return {
    ok: met,
    summary: [
      `webtools mcplite: ${fmt(meanRps(mcplite))} req/s, ${ratio.median.toFixed(2)}x the node:http baseline ` +
        `(${fmt(meanRps(baseline))} req/s; median of ${ratio.perRound.length} paired rounds, ` +
        `${ratio.ratioOfMeans.toFixed(2)}x by mean throughput)`,
    ],
  };
}

/** The CLI serving the demo's echo tool (a module without a webtools declaration), warnings-only logging. */
async function startMcplite() {
  const cli = join(ROOT, 'dist/src/cli/main.js');
  const echo = join(ROOT, 'dist/examples/demo/echo.js');
  const args = [cli, 'serve', echo, '--webtools', '--port', '0', '--grpc-port', 'off', '--log-level', 'warn'];
  const { child, match } = await startChild(args, /mcplite Webtools mcplite on (http:\/\/\S+)/);
  return {
    name: 'mcplite webtools',
    child,
    url: match,
    headers: JSON_HEADERS,
    body: EXECUTE,
    // A real answer in the envelope, not an error that happens to be quick.
    check: (reply) => reply?.status === 'ok' && reply.data?.message === 'hello',
    jsonRpc: false,
    runs: [],
  };
}
