// HTTP throughput: mcplite's demo server (as a user starts it, through the CLI) against a bare node:http JSON-RPC
// echo, both loaded with autocannon from this process with the same settings in the same run. The result is the
// ratio mcplite/baseline, so it does not depend on how fast this machine happens to be.
import { join } from 'node:path';
import autocannon from 'autocannon';
import { fmt, ROOT, startChild, stopChild } from '../support.js';

/** The load: the same for every contender. Overridable for quick runs (BENCH_DURATION=3 npm run bench). */
const LOAD = {
  connections: Number(process.env.BENCH_CONNECTIONS ?? 50),
  pipelining: 1,
  duration: Number(process.env.BENCH_DURATION ?? 10),
  warmup: Number(process.env.BENCH_WARMUP ?? 2),
  // Measured rounds per contender, interleaved A/B/A/B so that drift (thermal, other load) hits both alike.
  rounds: Number(process.env.BENCH_ROUNDS ?? 2),
};

/** The target: at least this fraction of the baseline's throughput. */
const TARGET_RATIO = 0.8;

const ARGUMENTS = { message: 'hello', repeat: 2 };
const CALL = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo', arguments: ARGUMENTS } });
const LISTENING = /mcplite listening on (http:\/\/\S+)/;

export default async function run() {
  console.log('\n## HTTP: tools/call of echo {"message":"hello","repeat":2}');
  console.log(
    `autocannon: ${LOAD.connections} connections, pipelining ${LOAD.pipelining}, ${LOAD.warmup} s warm-up, ` +
      `${LOAD.rounds} x ${LOAD.duration} s per contender (interleaved)`,
  );
  const contenders = [];
  try {
    contenders.push(await startMcplite());
    contenders.push(await startBaseline());
    for (const c of contenders) await validate(c);
    for (const c of contenders) await load(c, LOAD.warmup);
    for (let round = 0; round < LOAD.rounds; round++) {
      for (const c of contenders) c.runs.push(await load(c, LOAD.duration));
    }
  } finally {
    await Promise.all(contenders.map((c) => stopChild(c.child)));
  }
  const baseline = contenders.find((c) => c.isBaseline);
  const rows = contenders.map((c) => summarise(c, baseline));
  printTable(rows);
  const mcplite = rows.find((r) => r.name === 'mcplite');
  const clean = rows.every((r) => r.errors === 0 && r.non2xx === 0);
  const met = clean && mcplite.ratio >= TARGET_RATIO;
  const verdict = `${met ? 'meets' : 'MISSES'} the ${TARGET_RATIO}x target${clean ? '' : ' (errors during load)'}`;
  console.log(`mcplite/baseline: ${mcplite.ratio.toFixed(2)}x, ${verdict}`);
  return {
    ok: met,
    summary: rows.map(
      (r) => `http ${r.name}: ${fmt(r.rps)} req/s, p50 ${r.p50} ms, p99 ${r.p99} ms, ${r.ratio.toFixed(2)}x baseline`,
    ),
  };
}

/** The demo server, started the way a user starts it (CLI, demo tools, warnings-only logging). */
async function startMcplite() {
  const cli = join(ROOT, 'dist/src/cli/main.js');
  const args = [cli, 'serve', '--demo', '--port', '0', '--log-level', 'warn'];
  const { child, match } = await startChild(args, LISTENING);
  // The CLI prints the base URL of the endpoints (…/mcp-lite/v1/); JSON-RPC goes to `rpc` below it.
  const url = new URL('rpc', match.endsWith('/') ? match : `${match}/`).href;
  return {
    name: 'mcplite',
    child,
    url,
    headers: { 'content-type': 'application/json' },
    body: CALL,
    // A real answer with its metadata, not an error that happens to be quick.
    check: (reply) =>
      reply.result?._meta?.response_type === 'answer' && reply.result.content?.message === 'hello',
    runs: [],
  };
}

async function startBaseline() {
  const { child, match } = await startChild([join(ROOT, 'bench/baseline-http.js')], /baseline listening on (\S+)/);
  return {
    name: 'node:http baseline',
    isBaseline: true,
    child,
    url: match,
    headers: { 'content-type': 'application/json' },
    body: CALL,
    check: (reply) => reply.result?.content?.message === 'hello',
    runs: [],
  };
}

/** A few requests whose replies are checked in full, so that no contender can win by answering errors. */
async function validate(c) {
  for (let i = 0; i < 5; i++) {
    const res = await fetch(c.url, { method: 'POST', headers: c.headers, body: c.body });
    const text = await res.text();
    let reply;
    try {
      reply = JSON.parse(text);
    } catch {
      reply = undefined;
    }
    const ok =
      res.status === 200 &&
      reply?.jsonrpc === '2.0' &&
      reply.id === 1 &&
      reply.error === undefined &&
      c.check(reply);
    if (!ok) throw new Error(`${c.name} answered the benchmark call wrongly (HTTP ${res.status}): ${text}`);
  }
}

/** One autocannon run against a contender; resolves with its result. */
function load(c, duration) {
  return autocannon({
    url: c.url,
    method: 'POST',
    headers: c.headers,
    body: c.body,
    connections: LOAD.connections,
    pipelining: LOAD.pipelining,
    duration,
  });
}

function summarise(c, baseline) {
  const mean = (pick) => c.runs.reduce((sum, r) => sum + pick(r), 0) / c.runs.length;
  const total = (pick) => c.runs.reduce((sum, r) => sum + pick(r), 0);
  const rps = mean((r) => r.requests.average);
  const baseRps = baseline.runs.reduce((sum, r) => sum + r.requests.average, 0) / baseline.runs.length;
  return {
    name: c.name,
    rps,
    perRound: c.runs.map((r) => r.requests.average),
    p50: mean((r) => r.latency.p50).toFixed(1),
    p99: mean((r) => r.latency.p99).toFixed(1),
    errors: total((r) => r.errors),
    non2xx: total((r) => r.non2xx),
    ratio: rps / baseRps,
  };
}

function printTable(rows) {
  const header = ['contender', 'req/s', 'rounds', 'p50 ms', 'p99 ms', 'errors', 'non-2xx', 'ratio'];
  const lines = rows.map((r) => [
    r.name,
    fmt(r.rps),
    r.perRound.map((x) => fmt(x)).join(' / '),
    r.p50,
    r.p99,
    String(r.errors),
    String(r.non2xx),
    `${r.ratio.toFixed(2)}x`,
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i].length)));
  const row = (cells) => cells.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]) : cell.padStart(widths[i]))).join('  ');
  console.log(row(header));
  for (const l of lines) console.log(row(l));
}
