// Instructions per request: a figure this machine's load cannot move. The throughput sections' ratios drift by
// 10-30% between runs on a shared 2-core machine; the number of instructions a server executes per request does
// not. Each server runs under valgrind's callgrind with `node --single-threaded` (garbage collection and
// compilation then run on the main thread and are counted like the rest), is warmed up, and then counts the
// instructions of BATCH requests, BATCHES times. Scavenges come with every batch alike, but a full collection (now
// and then, when the old generation has grown) lands in whichever batch is running and adds a third or more to
// it, which says when it fell more than what a request costs: the batches are printed and the lowest is the
// figure. Counting does not depend on timing, so the servers run at once. Not counted: kernel time, the same for
// every contender (one read and one writev per request, docs/performance.md), and how fast the instructions run
// (cache misses, which allocation adds to): the throughput sections measure that. Skipped, saying so, where
// valgrind is not installed (`apt-get install valgrind`).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import {
  ECHO_CALL,
  envNumber,
  fmt,
  JSON_HEADERS,
  MCP_HEADERS,
  MCP_STATELESS_CALL,
  pool,
  ROOT,
  SDK_PEER_REQUEST,
  startChild,
  startMcpliteServe,
  stopChild,
  validateContender,
  WITH_PEERS,
} from '../support.js';

/** Requests before counting (the JIT's tiers are reached by call counts, so a count, not a time). */
const WARM = envNumber('BENCH_INSTR_WARM', 16000);
/** Requests per counted batch, and how many batches. */
const BATCH = envNumber('BENCH_INSTR_BATCH', 2500);
const BATCHES = envNumber('BENCH_INSTR_BATCHES', 4);
const CONNECTIONS = 10;
/** Contenders counted at once (BENCH_INSTR_PARALLEL). */
const COUNTED_AT_ONCE = envNumber('BENCH_INSTR_PARALLEL', 3);
/**
 * The throughput sections' targets, held to the counts as well. A count is no throughput, but a server that
 * executes more than 1.25 times its baseline's instructions (under 0.8x) could meet the throughput target only if
 * its own instructions ran faster than node's; and a no-op middleware must stay within 5% of none.
 */
const TARGET_BASELINE = 0.8;
const TARGET_MIDDLEWARE = 0.95;
/**
 * GC and compilation on the main thread, counted with the rest; no memory reducer, which collects when the
 * allocation rate per second falls, and under valgrind every second holds 50 times fewer requests.
 */
const NODE_FLAGS = ['--single-threaded', '--no-memory-reducer'];
/**
 * The peers run 6 to 45 times mcplite's instructions per request, and under valgrind that many requests would take
 * an hour: they get fewer (their JIT tiers are reached sooner too, at that cost per request).
 */
const PEER_COUNTS = { warm: envNumber('BENCH_PEER_WARM', 3000), batch: envNumber('BENCH_PEER_BATCH', 500) };
/** The bound on /mcp against its baseline (the reference-over-measured ratio's floor): within 1.15x. */
const TARGET_MCP_BASELINE = 1 / 1.15;
/** A reply that carries echo's answer: MCP's structuredContent, MCP-lite's (and the baseline's) content. */
const saysHello = (reply) => (reply.result?.structuredContent ?? reply.result?.content)?.message === 'hello';

export default async function run() {
  console.log(`\n## Instructions per request (callgrind, node ${NODE_FLAGS.join(' ')})`);
  const missing = ['valgrind', 'callgrind_control'].find((tool) => !onPath(tool));
  if (missing) {
    const why = `skipped: ${missing} is not installed (apt-get install valgrind)`;
    console.log(why);
    return { summary: [why] };
  }
  console.log(
    `${WARM} requests of warm-up, then ${BATCHES} counted batches of ${BATCH}, ${CONNECTIONS} connections`,
  );
  const dir = mkdtempSync(join(tmpdir(), 'mcplite-callgrind-'));
  const mcpRequest = { headers: MCP_HEADERS, body: MCP_STATELESS_CALL };
  const mcpliteRequest = { headers: JSON_HEADERS, body: ECHO_CALL };
  const contenders = [
    { name: 'mcplite /mcp', start: (o) => mcplite('/mcp', o), ...mcpRequest },
    { name: 'baseline, MCP request', start: (o) => script(['bench/baseline-http.js'], o), ...mcpRequest },
    { name: 'mcplite MCP-lite HTTP', start: (o) => mcplite('rpc', o), ...mcpliteRequest },
    {
      name: 'baseline, MCP-lite request',
      start: (o) => script(['bench/baseline-http.js'], o),
      ...mcpliteRequest,
    },
    {
      name: 'one no-op middleware',
      start: (o) => script(['bench/middleware-server.js', '--middleware'], o, '/mcp-lite/v1/rpc'),
      ...mcpliteRequest,
    },
    {
      name: 'no middleware',
      start: (o) => script(['bench/middleware-server.js'], o, '/mcp-lite/v1/rpc'),
      ...mcpliteRequest,
    },
    ...(WITH_PEERS
      ? [
          {
            name: 'tmcp 1.x (srvx)',
            start: (o) => script(['bench/peers/tmcp-server.js'], o, '/mcp'),
            ...mcpRequest,
            ...PEER_COUNTS,
          },
          {
            name: 'official SDK v2',
            start: (o) => script(['bench/peers/sdk-v2-server.js'], o, '/mcp'),
            ...SDK_PEER_REQUEST,
            ...PEER_COUNTS,
          },
          {
            name: 'official SDK v1',
            start: (o) => script(['bench/sdk-mcp-server.js'], o, '/mcp'),
            ...SDK_PEER_REQUEST,
            ...PEER_COUNTS,
          },
        ]
      : []),
  ].map((c, i) => ({ ...c, out: join(dir, `cg${i}.out`), batches: [] }));
  try {
    // A few at a time: under valgrind each start-up is some 50 times slower, and nine at once on two loaded
    // cores can outlast any start-up timeout. Counting does not depend on timing, so the grouping moves no count.
    await pool(contenders.length, (i) => count(contenders[i]), COUNTED_AT_ONCE);
  } finally {
    await Promise.all(contenders.map((c) => c.child && stopChild(c.child)));
    rmSync(dir, { recursive: true, force: true });
  }
  for (const c of contenders) {
    c.perRequest = Math.min(...c.batches);
    console.log(
      `${c.name.padEnd(28)} ${fmt(c.perRequest).padStart(9)} instructions/request ` +
        `(batches: ${c.batches.map((b) => fmt(b)).join(', ')})`,
    );
  }
  const [mcp, mcpBase, lite, liteBase, withMiddleware, without, ...peers] = contenders;
  const peerLines = peers.map(
    (peer) => `${peer.name}: ${fmt(peer.perRequest / mcp.perRequest, 1)}x the instructions of mcplite /mcp`,
  );
  for (const line of peerLines) console.log(line);
  const checks = [
    { label: '/mcp', ratio: mcpBase.perRequest / mcp.perRequest, target: TARGET_MCP_BASELINE },
    { label: 'MCP-lite HTTP', ratio: liteBase.perRequest / lite.perRequest, target: TARGET_BASELINE },
    {
      label: 'one no-op middleware against none',
      ratio: without.perRequest / withMiddleware.perRequest,
      target: TARGET_MIDDLEWARE,
    },
  ];
  const lines = checks.map(
    (c) =>
      `instructions, ${c.label}: ${c.ratio.toFixed(2)}x (reference/measured; target ${c.target}x): ` +
      `${c.ratio >= c.target ? 'meets' : 'MISSES'} it`,
  );
  for (const line of lines) console.log(line);
  return { ok: checks.every((c) => c.ratio >= c.target), summary: [...lines, ...peerLines] };
}

/** Starts a contender under callgrind, warms it up and counts its batches. */
async function count(c) {
  const started = await c.start({
    env: { BASELINE_KEEP_ALIVE_MS: '600000' },
    wrapper: ['valgrind', '-q', '--tool=callgrind', `--callgrind-out-file=${c.out}`],
    nodeOptions: NODE_FLAGS,
    // valgrind makes start-up some 50 times slower.
    timeoutMs: 600_000,
  });
  c.child = started.child;
  const target = { ...c, url: started.url, check: saysHello };
  await validateContender(target, 1);
  const batch = c.batch ?? BATCH;
  await load(target, c.warm ?? WARM);
  for (let dump = 1; dump <= BATCHES; dump++) {
    callgrindControl('-z', c.child.pid);
    await load(target, batch);
    callgrindControl('-d', c.child.pid);
    c.batches.push(dumpTotal(`${c.out}.${dump}`) / batch);
  }
}

/** `mcplite serve --demo` (as the throughput sections start it), loaded at `path` relative to …/mcp-lite/v1/. */
async function mcplite(path, childOptions) {
  const { child, base } = await startMcpliteServe([], childOptions);
  return { child, url: new URL(path, base).href };
}

/** A bench server script that prints "… listening [on] <url>", loaded at `path` on that origin. */
async function script(args, childOptions, path = '/') {
  const [file, ...rest] = args;
  const { child, match } = await startChild(
    [join(ROOT, file), ...rest],
    /listening (?:on )?(http:\/\/\S+)/,
    childOptions,
  );
  return { child, url: new URL(path, match).href };
}

/** Sends exactly `amount` requests; throws on any error or non-2xx answer (an error must not count as work). */
async function load(c, amount) {
  const r = await autocannon({
    url: c.url,
    method: 'POST',
    headers: c.headers,
    body: c.body,
    connections: CONNECTIONS,
    amount,
    // Under valgrind on a loaded machine one answer can take seconds: a timeout is not a count, so none here.
    timeout: 600,
  });
  if (r.errors || r.non2xx || r.requests.total !== amount) {
    throw new Error(`${c.name}: ${r.errors} errors, ${r.non2xx} non-2xx of ${r.requests.total} requests`);
  }
}

function callgrindControl(command, pid) {
  execFileSync('callgrind_control', [command, String(pid)], { stdio: 'ignore' });
}

/** The instruction total of one dump (callgrind numbers a process's dumps out.1, out.2, …). */
function dumpTotal(file) {
  const m = /^summary: (\d+)/m.exec(readFileSync(file, 'utf8'));
  if (!m) throw new Error(`no summary line in ${file}`);
  return Number(m[1]);
}

function onPath(tool) {
  try {
    execFileSync('sh', ['-c', `command -v ${tool}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}
