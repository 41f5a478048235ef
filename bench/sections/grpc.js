// gRPC: CallTool throughput and p99 of mcplite's gRPC binding against a bare @grpc/grpc-js server with the same
// proto, each in its own process, loaded by the same generator (its own process too) with the same concurrency in
// the same run, interleaved A/B/A/B; then CallToolStream throughput in partial messages per second.
import { join } from 'node:path';
import { fmt, ROOT, startChild, stopChild } from '../support.js';

const LOAD = {
  concurrency: Number(process.env.BENCH_GRPC_CONCURRENCY ?? 50),
  duration: Number(process.env.BENCH_DURATION ?? 5),
  warmup: Number(process.env.BENCH_WARMUP ?? 2),
  rounds: Number(process.env.BENCH_ROUNDS ?? 2),
  streamCount: Number(process.env.BENCH_GRPC_STREAM_COUNT ?? 100_000),
  streams: Number(process.env.BENCH_GRPC_STREAMS ?? 4),
};

/** The target: at least this fraction of the baseline's throughput. */
const TARGET_RATIO = 0.8;

export default async function run() {
  console.log('\n## gRPC: CallTool of echo {"message":"hello"}');
  console.log(
    `grpc-js load generator (own process): ${LOAD.concurrency} calls in flight, ${LOAD.warmup} s warm-up, ` +
      `${LOAD.rounds} x ${LOAD.duration} s per contender (interleaved)`,
  );
  const contenders = [];
  let streaming;
  try {
    contenders.push({
      name: 'mcplite',
      ...(await startChild([join(ROOT, 'bench/grpc-server.js')], /mcplite grpc listening on (\S+)/)),
      runs: [],
    });
    contenders.push({
      name: 'grpc-js baseline',
      isBaseline: true,
      ...(await startChild([join(ROOT, 'bench/baseline-grpc.js')], /baseline grpc listening on (\S+)/)),
      runs: [],
    });
    for (const c of contenders) c.cpu = cpuReader(c.child);
    for (let round = 0; round < LOAD.rounds; round++) {
      for (const c of contenders) {
        // The first round warms each contender up (in the generator's process, before measuring).
        const warmup = round === 0 ? LOAD.warmup : 0.5;
        const before = await c.cpu();
        const result = await load(['unary', c.match, warmup, LOAD.duration, LOAD.concurrency]);
        result.cpuUsPerCall = ((await c.cpu()) - before) / (result.requests + result.otherRequests);
        c.runs.push(result);
      }
    }
    streaming = [];
    for (const c of contenders) {
      streaming.push({ name: c.name, ...(await load(['stream', c.match, LOAD.streamCount, LOAD.streams])) });
    }
  } finally {
    await Promise.all(contenders.map((c) => stopChild(c.child)));
  }

  const baseline = contenders.find((c) => c.isBaseline);
  const rows = contenders.map((c) => summarise(c, baseline));
  printTable(rows);
  const mcplite = rows.find((r) => r.name === 'mcplite');
  const clean = rows.every((r) => r.errors === 0);
  const met = clean && mcplite.ratio >= TARGET_RATIO;
  console.log(
    `mcplite/baseline: ${mcplite.ratio.toFixed(2)}x, ${met ? 'meets' : 'MISSES'} the ${TARGET_RATIO}x target` +
      `${clean ? '' : ' (errors during load)'}`,
  );
  console.log(
    `\n## gRPC: CallToolStream, ${LOAD.streams} streams x ${fmt(LOAD.streamCount)} partials ({"i": n}) each`,
  );
  for (const s of streaming)
    console.log(`${s.name.padEnd(18)} ${fmt(s.perSecond)} partial messages/s (${s.seconds.toFixed(2)} s)`);
  const mcpliteStream = streaming.find((s) => s.name === 'mcplite');
  return {
    ok: met,
    summary: [
      ...rows.map(
        (r) =>
          `grpc ${r.name}: ${fmt(r.rps)} req/s, p50 ${r.p50.toFixed(2)} ms, p99 ${r.p99.toFixed(2)} ms, ` +
          `${r.ratio.toFixed(2)}x baseline; server CPU ${r.cpuUsPerCall.toFixed(0)} µs/call (${r.cpuRatio.toFixed(2)}x)`,
      ),
      `grpc stream mcplite: ${fmt(mcpliteStream.perSecond)} partial messages/s`,
    ],
  };
}

/**
 * Reads a server's CPU time (user + system, µs): SIGUSR2 makes it print a `CPU {...}` line. CPU per call does not
 * depend on who else is using the machine (wall-clock throughput does), so it is the steadier comparison.
 */
function cpuReader(child) {
  let waiting;
  let buffer = '';
  child.stdout.on('data', (chunk) => {
    buffer += chunk;
    let nl = buffer.indexOf('\n');
    while (nl >= 0) {
      const line = buffer.slice(0, nl);
      buffer = buffer.slice(nl + 1);
      const m = /^CPU (.+)$/.exec(line);
      if (m && waiting) {
        const { user, system } = JSON.parse(m[1]);
        waiting(user + system);
        waiting = undefined;
      }
      nl = buffer.indexOf('\n');
    }
  });
  return () =>
    new Promise((resolve) => {
      waiting = resolve;
      child.kill('SIGUSR2');
    });
}

/** Runs the load generator once and returns its parsed result. */
async function load(args) {
  const { child, match } = await startChild(
    [join(ROOT, 'bench/grpc-load.js'), ...args.map(String)],
    /RESULT (.+)/,
    {
      timeoutMs: 120_000,
    },
  );
  await stopChild(child);
  return JSON.parse(match);
}

function summarise(c, baseline) {
  const mean = (pick, runs = c.runs) => runs.reduce((sum, r) => sum + pick(r), 0) / runs.length;
  const rps = mean((r) => r.rps);
  return {
    name: c.name,
    rps,
    perRound: c.runs.map((r) => r.rps),
    p50: mean((r) => r.p50),
    p99: mean((r) => r.p99),
    cpuUsPerCall: mean((r) => r.cpuUsPerCall),
    errors: c.runs.reduce((sum, r) => sum + r.errors, 0),
    ratio: rps / mean((r) => r.rps, baseline.runs),
    cpuRatio: mean((r) => r.cpuUsPerCall) / mean((r) => r.cpuUsPerCall, baseline.runs),
  };
}

function printTable(rows) {
  const header = [
    'contender',
    'req/s',
    'rounds',
    'p50 ms',
    'p99 ms',
    'errors',
    'ratio',
    'server CPU/call',
    'CPU ratio',
  ];
  const lines = rows.map((r) => [
    r.name,
    fmt(r.rps),
    r.perRound.map((x) => fmt(x)).join(' / '),
    r.p50.toFixed(2),
    r.p99.toFixed(2),
    String(r.errors),
    `${r.ratio.toFixed(2)}x`,
    `${r.cpuUsPerCall.toFixed(0)} µs`,
    `${r.cpuRatio.toFixed(2)}x`,
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i].length)));
  const row = (cells) =>
    cells.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]) : cell.padStart(widths[i]))).join('  ');
  console.log(row(header));
  for (const l of lines) console.log(row(l));
}
