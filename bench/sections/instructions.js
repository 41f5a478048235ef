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
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
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
  ROOT,
  stopChild,
  validateContender,
} from '../support.js';

/** Requests before counting (the JIT's tiers are reached by call counts, so a count, not a time). */
const WARM = envNumber('BENCH_INSTR_WARM', 16000);
/** Requests per counted batch, and how many batches. */
const BATCH = envNumber('BENCH_INSTR_BATCH', 2500);
const BATCHES = envNumber('BENCH_INSTR_BATCHES', 4);
const CONNECTIONS = 10;
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

const MCPLITE = [join(ROOT, 'dist/src/cli/main.js'), 'serve', '--demo', '--port', '0', '--grpc-port', 'off'];
const MCPLITE_ARGS = [...MCPLITE, '--log-level', 'warn'];
const BASELINE = [join(ROOT, 'bench/baseline-http.js')];
const MIDDLEWARE_SERVER = [join(ROOT, 'bench/middleware-server.js')];

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
  const mcpliteRpc = { path: 'mcp-lite/v1/rpc', headers: JSON_HEADERS, body: ECHO_CALL };
  const mcpRequest = { headers: MCP_HEADERS, body: MCP_STATELESS_CALL };
  const contenders = [
    { name: 'mcplite /mcp', args: MCPLITE_ARGS, ...mcpRequest, path: 'mcp' },
    { name: 'baseline, MCP request', args: BASELINE, ...mcpRequest, path: '' },
    { name: 'mcplite MCP-lite HTTP', args: MCPLITE_ARGS, ...mcpliteRpc },
    { name: 'baseline, MCP-lite request', args: BASELINE, ...mcpliteRpc, path: '' },
    { name: 'one no-op middleware', args: [...MIDDLEWARE_SERVER, '--middleware'], ...mcpliteRpc },
    { name: 'no middleware', args: MIDDLEWARE_SERVER, ...mcpliteRpc },
  ].map((c, i) => ({ ...c, out: join(dir, `cg${i}.out`), batches: [] }));
  try {
    await Promise.all(contenders.map((c) => count(c)));
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
  const [mcp, mcpBase, lite, liteBase, withMiddleware, without] = contenders;
  const checks = [
    { label: '/mcp', ratio: mcpBase.perRequest / mcp.perRequest, target: TARGET_BASELINE },
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
  return { ok: checks.every((c) => c.ratio >= c.target), summary: lines };
}

/** Starts a contender under callgrind, warms it up and counts its batches. */
async function count(c) {
  const { child, url } = await startUnderCallgrind(c);
  c.child = child;
  const target = { ...c, url: `${url}${c.path}`, check: () => true, jsonRpc: true };
  await validateContender(target, 1);
  await load(target, WARM);
  for (let i = 0; i < BATCHES; i++) {
    callgrindControl('-z', child.pid);
    await load(target, BATCH);
    callgrindControl('-d', child.pid);
    c.batches.push(lastDumpTotal(c.out) / BATCH);
  }
}

/** Spawns `node --single-threaded args…` under callgrind and waits for its "listening [on] <url>" line. */
async function startUnderCallgrind(c) {
  const child = spawn(
    'valgrind',
    ['--tool=callgrind', `--callgrind-out-file=${c.out}`, process.execPath, ...NODE_FLAGS, ...c.args],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  child.stderr.resume();
  let output = '';
  const url = await new Promise((resolve, reject) => {
    // valgrind makes start-up some 50 times slower.
    const timer = setTimeout(
      () => reject(new Error(`${c.name} did not start under valgrind: ${output}`)),
      240_000,
    );
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk) => {
      output += chunk;
      const m = /listening (?:on )?(http:\/\/\S+)/.exec(output);
      if (m) {
        clearTimeout(timer);
        resolve(m[1].replace(/mcp-lite\/v1\/$/, ''));
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${c.name} exited (${code}) under valgrind: ${output}`));
    });
  });
  child.stdout.resume();
  return { child, url: url.endsWith('/') ? url : `${url}/` };
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
  });
  if (r.errors || r.non2xx || r.requests.total !== amount) {
    throw new Error(`${c.name}: ${r.errors} errors, ${r.non2xx} non-2xx of ${r.requests.total} requests`);
  }
}

function callgrindControl(command, pid) {
  execFileSync('callgrind_control', [command, String(pid)], { stdio: 'ignore' });
}

/** The instruction total of the newest dump of `out` (callgrind numbers them out.1, out.2, …). */
function lastDumpTotal(out) {
  const base = out.slice(out.lastIndexOf('/') + 1);
  const dir = out.slice(0, out.lastIndexOf('/'));
  const dumps = readdirSync(dir)
    .filter((f) => f.startsWith(`${base}.`))
    .sort((a, b) => Number(a.slice(base.length + 1)) - Number(b.slice(base.length + 1)));
  const text = readFileSync(join(dir, dumps[dumps.length - 1]), 'utf8');
  const m = /^summary: (\d+)/m.exec(text);
  if (!m) throw new Error(`no summary line in ${dumps[dumps.length - 1]}`);
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
