// OpenTelemetry's cost (issue 27): MCP-lite HTTP tools/call of echo on the demo server started through the CLI,
// with tracing on (the real SDK registered before the server starts, bench/otel-noop-sdk.js: every call a
// sampled SERVER span, batched to a no-op exporter, and the duration histogram) against the same server with no
// SDK, in the same run, paired rounds in alternating order (bench/load.js). Target: at least 0.85x.
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
import { echoContender, fmt, ROOT, startMcpliteServe } from '../support.js';

const LOAD = loadSettings();

/** The target: tracing on keeps at least this fraction of the throughput with tracing off. */
const TARGET_RATIO = 0.85;

const PRELOAD = `--import=${pathToFileURL(join(ROOT, 'bench/otel-noop-sdk.js')).href}`;

export default async function run() {
  console.log(
    '\n## OpenTelemetry: MCP-lite HTTP tools/call of echo, tracing on (SDK, no-op exporter) vs off',
  );
  console.log(describeLoad(LOAD));
  const contenders = await measureContenders([startTraced, startPlain], LOAD);
  const [traced, plain] = contenders;
  printTable(contenders, plain);
  const ratio = pairedRatio(traced, plain);
  printRatio('tracing on/off', ratio);
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
  const met = clean && ratio.median >= TARGET_RATIO;
  console.log(
    `tracing on/off ${ratio.median.toFixed(2)}x: ${met ? 'meets' : 'MISSES'} the ${TARGET_RATIO}x target` +
      `${clean ? '' : ' (errors during load)'}`,
  );
  return {
    ok: met,
    summary: [
      `otel tracing on: ${fmt(meanRps(traced))} req/s, ${ratio.median.toFixed(2)}x tracing off ` +
        `(${fmt(meanRps(plain))} req/s; median of ${ratio.perRound.length} paired rounds)` +
        (ceiling === undefined ? '' : `; the SDK's own cost caps it at ${ceiling.toFixed(2)}x`),
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
