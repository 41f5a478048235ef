// HTTP throughput: mcplite's demo server (as a user starts it, through the CLI) against a bare node:http JSON-RPC
// echo and, for scale, the official MCP SDK's stateless server, all loaded with autocannon from this process with
// the same settings in the same run. Results are ratios to the baseline, so they do not depend on how fast this
// machine happens to be.
import { join } from 'node:path';
import autocannon from 'autocannon';
import {
  cpuTimeMs,
  fmt,
  ROOT,
  startChild,
  startHttpBaseline,
  startSdkServer,
  stopChild,
  validateContender,
} from '../support.js';

/** The load: the same for every contender. Overridable for quick runs (BENCH_DURATION=3 npm run bench). */
const LOAD = {
  connections: Number(process.env.BENCH_CONNECTIONS ?? 50),
  pipelining: 1,
  duration: Number(process.env.BENCH_DURATION ?? 10),
  warmup: Number(process.env.BENCH_WARMUP ?? 2),
  // Measured rounds per contender, interleaved (A/B/A/B…) so that drift and bursts of other load on the machine
  // hit every contender alike; the result is the mean.
  rounds: Number(process.env.BENCH_ROUNDS ?? 3),
};

/** The issue's target: at least this fraction of the baseline's throughput. */
const TARGET_RATIO = 0.8;
/** BENCH_SDK=0 leaves out the official SDK (it only gives scale; it has no target here). */
const WITH_SDK = process.env.BENCH_SDK !== '0';

const ARGUMENTS = { message: 'hello', repeat: 2 };
const CALL = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'tools/call',
  params: { name: 'echo', arguments: ARGUMENTS },
});
const JSON_HEADERS = { 'content-type': 'application/json' };

export default async function run() {
  console.log('\n## HTTP: tools/call of echo {"message":"hello","repeat":2} (MCP-lite HTTP, JSON-RPC)');
  console.log(
    `autocannon: ${LOAD.connections} connections, pipelining ${LOAD.pipelining}, ${LOAD.warmup} s warm-up, ` +
      `${LOAD.rounds} x ${LOAD.duration} s per contender, interleaved`,
  );
  const contenders = [];
  try {
    contenders.push(await startMcplite(), await startHttpBaseline(CALL));
    if (WITH_SDK) contenders.push(await startSdkServer('official MCP SDK', CALL));
    for (const c of contenders) await validateContender(c);
    for (const c of contenders) await load(c, LOAD.warmup);
    for (let round = 0; round < LOAD.rounds; round++) {
      for (const c of contenders) c.runs.push(await load(c, LOAD.duration));
    }
  } finally {
    await Promise.all(contenders.map((c) => stopChild(c.child)));
  }
  const [mcplite, baseline] = contenders;
  const rows = contenders.map((c) => summarise(c, baseline));
  printTable(rows);
  const [m, , sdk] = rows;
  const roundRatios = mcplite.runs.map((r, i) => r.requests.average / baseline.runs[i].requests.average);
  console.log(`mcplite/baseline per round: ${roundRatios.map((x) => `${x.toFixed(2)}x`).join(', ')}`);
  const clean = rows.every((r) => r.errors === 0 && r.non2xx === 0);
  const met = clean && m.ratio >= TARGET_RATIO;
  console.log(
    `mcplite/baseline: ${m.ratio.toFixed(2)}x, ${met ? 'meets' : 'MISSES'} the ${TARGET_RATIO}x target` +
      `${clean ? '' : ' (errors during load)'}${sdk ? `; mcplite/official SDK: ${(m.rps / sdk.rps).toFixed(1)}x` : ''}`,
  );
  return {
    ok: met,
    summary: rows.map(
      (r) =>
        `http ${r.name}: ${fmt(r.rps)} req/s, p50 ${r.p50} ms, p99 ${r.p99} ms, ${r.ratio.toFixed(2)}x baseline` +
        (r.cpu === undefined ? '' : `, ${r.cpu.toFixed(0)} µs CPU/req`),
    ),
  };
}

/** The demo server, started the way a user starts it (CLI, demo tools, warnings-only logging, no gRPC). */
async function startMcplite() {
  const cli = join(ROOT, 'dist/src/cli/main.js');
  const args = [cli, 'serve', '--demo', '--port', '0', '--grpc-port', 'off', '--log-level', 'warn'];
  const { child, match } = await startChild(args, /mcplite listening on (http:\/\/\S+)/);
  // The CLI prints the base URL of the endpoints (…/mcp-lite/v1/); JSON-RPC goes to `rpc` below it.
  const url = new URL('rpc', match.endsWith('/') ? match : `${match}/`).href;
  return {
    name: 'mcplite',
    child,
    url,
    headers: JSON_HEADERS,
    body: CALL,
    // A real answer with its metadata, not an error that happens to be quick.
    check: (reply) =>
      reply.result?._meta?.response_type === 'answer' && reply.result.content?.message === 'hello',
    runs: [],
  };
}

/**
 * One autocannon run against a contender; resolves with its result, plus the server's CPU time per request (from
 * /proc, so Linux only): a second view that does not depend on whether the load generator kept up.
 */
async function load(c, duration) {
  const cpuBefore = cpuTimeMs(c.child.pid);
  const result = await autocannon({
    url: c.url,
    method: 'POST',
    headers: c.headers,
    body: c.body,
    connections: LOAD.connections,
    pipelining: LOAD.pipelining,
    duration,
  });
  const cpuAfter = cpuTimeMs(c.child.pid);
  if (cpuBefore !== undefined && cpuAfter !== undefined && result.requests.total > 0) {
    result.cpuMicrosPerRequest = ((cpuAfter - cpuBefore) * 1000) / result.requests.total;
  }
  return result;
}

function summarise(c, baseline) {
  const mean = (runs, pick) => runs.reduce((sum, r) => sum + pick(r), 0) / runs.length;
  const total = (pick) => c.runs.reduce((sum, r) => sum + pick(r), 0);
  const rps = mean(c.runs, (r) => r.requests.average);
  const withCpu = c.runs.filter((r) => r.cpuMicrosPerRequest !== undefined);
  return {
    name: c.name,
    rps,
    perRound: c.runs.map((r) => r.requests.average),
    p50: mean(c.runs, (r) => r.latency.p50).toFixed(1),
    p99: mean(c.runs, (r) => r.latency.p99).toFixed(1),
    errors: total((r) => r.errors),
    non2xx: total((r) => r.non2xx),
    cpu: withCpu.length ? mean(withCpu, (r) => r.cpuMicrosPerRequest) : undefined,
    ratio: rps / mean(baseline.runs, (r) => r.requests.average),
  };
}

function printTable(rows) {
  const header = [
    'contender',
    'req/s',
    'per round',
    'p50 ms',
    'p99 ms',
    'errors',
    'non-2xx',
    'CPU µs/req',
    'ratio',
  ];
  const lines = rows.map((r) => [
    r.name,
    fmt(r.rps),
    r.perRound.map((x) => fmt(x)).join(' / '),
    r.p50,
    r.p99,
    String(r.errors),
    String(r.non2xx),
    r.cpu === undefined ? '-' : r.cpu.toFixed(0),
    `${r.ratio.toFixed(2)}x`,
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i].length)));
  const row = (cells) =>
    cells.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]) : cell.padStart(widths[i]))).join('  ');
  console.log(row(header));
  for (const l of lines) console.log(row(l));
}
