// OpenTelemetry's cost: MCP-lite HTTP tools/call of echo on the demo server started through the CLI, with tracing
// on (the real SDK registered before the server starts, bench/otel-noop-sdk.js: every call a sampled SERVER span,
// batched to a no-op exporter, and the duration histogram) and with 1% of traces sampled (parent-based ratio
// sampler), against the same server with no SDK; and, as the yardstick, the bare node:http echo traced by the
// SDK's own @opentelemetry/instrumentation-http against itself untraced. All in the same run, paired rounds in
// alternating order (bench/load.js). Targets: mcplite's traced/untraced at least the yardstick's ratio (tracing
// costs mcplite no more than the SDK's instrumentation costs a server that does nothing else), and 1% sampled at
// least 0.9x untraced.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import {
  allClean,
  describeLoad,
  loadSettings,
  meanOfDefined,
  meanRps,
  measureContenders,
  pairedRatio,
  printRatio,
  printTable,
} from '../load.js';
import { ECHO_CALL, echoContender, fmt, ROOT, startHttpBaseline, startMcpliteServe } from '../support.js';

const LOAD = loadSettings();

/** Sampling 1% of traces keeps at least this fraction of the throughput with tracing off. */
const SAMPLED_TARGET = 0.9;

const PRELOAD = `--import=${pathToFileURL(join(ROOT, 'bench/otel-noop-sdk.js')).href}`;

export default async function run() {
  console.log(
    '\n## OpenTelemetry: MCP-lite HTTP tools/call of echo, tracing on (SDK, no-op exporter), 1% sampled, and off; ' +
      'node:http echo with and without instrumentation-http',
  );
  console.log(describeLoad(LOAD));
  const contenders = await measureContenders(
    [startTraced, startPlain, startSampled, startBaselineTraced, startBaseline],
    LOAD,
  );
  const [traced, plain, sampled, baselineTraced, baseline] = contenders;
  printTable(contenders, plain);
  const ratio = pairedRatio(traced, plain);
  const sampledRatio = pairedRatio(sampled, plain);
  const yardstick = pairedRatio(baselineTraced, baseline);
  printRatio('mcplite tracing on/off', ratio);
  printRatio('mcplite 1% sampled/off', sampledRatio);
  printRatio('node:http instrumentation-http on/off', yardstick);
  const floor = await sdkFloor();
  const cpuOn = meanOfDefined(traced.runs, 'cpuMicrosPerRequest');
  const cpuOff = meanOfDefined(plain.runs, 'cpuMicrosPerRequest');
  let ceiling;
  if (cpuOn !== undefined && cpuOff !== undefined) {
    const sdk = floor.span + floor.histogram;
    ceiling = cpuOff / (cpuOff + sdk);
    console.log(
      `the SDK alone: ${floor.span.toFixed(1)} µs a span, ${floor.histogram.toFixed(1)} µs a histogram record ` +
        `(bench/otel-floor.js); on ${cpuOff.toFixed(1)} µs of CPU a request, no instrumentation on this SDK ` +
        `can keep more than ${ceiling.toFixed(2)}x; mcplite's tracing beyond the SDK: ` +
        `${(cpuOn - cpuOff - sdk).toFixed(1)} µs a request`,
    );
  }
  const clean = allClean(contenders);
  const asCheap = clean && ratio.median >= yardstick.median;
  const sampledMet = clean && sampledRatio.median >= SAMPLED_TARGET;
  console.log(
    `tracing on/off ${ratio.median.toFixed(2)}x vs instrumentation-http's ${yardstick.median.toFixed(2)}x: ` +
      `${asCheap ? 'meets' : 'MISSES'} the target; 1% sampled ${sampledRatio.median.toFixed(2)}x: ` +
      `${sampledMet ? 'meets' : 'MISSES'} the ${SAMPLED_TARGET}x target${clean ? '' : ' (errors during load)'}`,
  );
  return {
    ok: asCheap && sampledMet,
    summary: [
      `otel tracing on: ${fmt(meanRps(traced))} req/s, ${ratio.median.toFixed(2)}x tracing off ` +
        `(${fmt(meanRps(plain))} req/s; median of ${ratio.perRound.length} paired rounds); ` +
        `node:http with instrumentation-http ${yardstick.median.toFixed(2)}x itself untraced; ` +
        `1% sampled ${sampledRatio.median.toFixed(2)}x` +
        (ceiling === undefined ? '' : `; the SDK's own cost caps full tracing at ${ceiling.toFixed(2)}x`),
    ],
  };
}

/** The SDK's own CPU cost of a span and of a histogram record (µs), measured in a child with the same preload. */
async function sdkFloor() {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [PRELOAD, join(ROOT, 'bench/otel-floor.js')],
    { cwd: ROOT },
  );
  return JSON.parse(stdout.trim().split('\n').pop());
}

async function startTraced() {
  const { child, base } = await startMcpliteServe([], { env: { NODE_OPTIONS: PRELOAD } });
  return echoContender('mcplite, tracing on', child, `${base}rpc`);
}

async function startPlain() {
  const { child, base } = await startMcpliteServe();
  return echoContender('mcplite, tracing off', child, `${base}rpc`);
}

async function startSampled() {
  const { child, base } = await startMcpliteServe([], {
    env: { NODE_OPTIONS: PRELOAD, BENCH_OTEL_SAMPLE_RATIO: '0.01' },
  });
  return echoContender('mcplite, 1% sampled', child, `${base}rpc`);
}

function startBaselineTraced() {
  return startHttpBaseline(
    ECHO_CALL,
    undefined,
    { env: { NODE_OPTIONS: PRELOAD, BENCH_OTEL_HTTP_INSTRUMENTATION: '1' } },
    'node:http, instrumentation-http',
  );
}

function startBaseline() {
  return startHttpBaseline(ECHO_CALL);
}
