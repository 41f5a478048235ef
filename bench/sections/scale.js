// Scale-out on Redis (issue 10), three measurements in one run, every comparison a ratio of rounds run back to
// back (bench/load.js: paired rounds in alternating order, median of the per-round ratios):
// 1. promise create + redeem pairs, and the Redis promise store alone (bench/scale-pairs.js);
// 2. tools/call of echo (MCP-lite HTTP, stateless) through HAProxy round-robin over 1, 2 and 3 `mcplite serve
//    --redis` replicas, against one replica addressed directly (autocannon, bench/load.js);
// 3. Redis memory per settled promise and per MCP session: MEMORY USAGE summed over this run's keys.
// Needs Redis at REDIS_URL (default redis://127.0.0.1:6379) and HAProxy (/usr/sbin/haproxy, or HAPROXY_BIN). Every
// key is under a prefix of this run, deleted at the end (SCAN + UNLINK, never FLUSHALL). Without Redis the section
// is skipped (and says so); a missed 10,000 pairs/s target is printed as "target NOT met" but fails nothing.
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import {
  connectAdmin,
  deletePrefix,
  freePort,
  HAPROXY,
  spawnProcess,
  waitForPort,
} from '../../scripts/scale-cluster.mjs';
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
  CONCURRENCY,
  makePromise,
  measurePairs,
  measureStoreAlone,
  redeemAnswer,
  startScaleServer,
} from '../scale-pairs.js';
import {
  cpuTimeMs,
  ECHO_CALL,
  echoContender,
  envNumber,
  fmt,
  JSON_HEADERS,
  pool,
  post,
  startMcpliteServe,
  stopChild,
} from '../support.js';

const REDIS_URL = process.env.REDIS_URL || 'redis://127.0.0.1:6379';
/** Promises and sessions whose Redis memory is measured. */
const N_MEMORY = envNumber('BENCH_SCALE_MEMORY_N', 2000);
/** The balancer load: shorter than the http section's, four contenders. */
const LB_LOAD = loadSettings({ duration: 2, warmup: 1, rounds: 8 });
const CORES = cpus().length;

export default async function run() {
  console.log(
    `\n## Scale-out on Redis (${REDIS_URL}; this machine: ${CORES} cores, load average ` +
      `${loadavg()[0].toFixed(1)} at the start: other work on it slows every contender alike, not the ratios)`,
  );
  const redis = await connectAdmin(REDIS_URL).catch(() => undefined);
  if (!redis) {
    // Not a failure of mcplite: a machine without Redis cannot run this section (CI has one, REDIS_URL).
    console.log(`Redis does not answer at ${REDIS_URL}: section SKIPPED`);
    return { ok: true, summary: [`SKIPPED: Redis does not answer at ${REDIS_URL} (set REDIS_URL)`] };
  }
  const runPrefix = `mcplite-bench-scale-${process.pid}-${Date.now().toString(36)}`;
  const redisPid = await localRedisPid(redis);
  const steps = [
    () => measurePairs(runPrefix, redisPid),
    () => measureStoreAlone(runPrefix, redisPid),
    () => (existsSync(HAPROXY) ? measureBalancer(runPrefix) : skipBalancer()),
    () => measureRedisMemory(runPrefix, redis),
  ];
  const summary = [];
  let ok = true;
  try {
    for (const step of steps) {
      const result = await step();
      summary.push(...result.summary);
      ok &&= result.ok;
    }
  } finally {
    await deletePrefix(REDIS_URL, runPrefix);
    const [, left] = await redis.scan('0', 'MATCH', `${runPrefix}*`, 'COUNT', 10_000);
    if (left.length > 0) console.log(`note: ${left.length} keys of this run were still there after deleting`);
    redis.disconnect();
  }
  return { ok, summary };
}

// ---------------------------------------------------------------------------------------------------------------
// 2. tools/call through HAProxy over 1, 2 and 3 replicas
// ---------------------------------------------------------------------------------------------------------------

async function measureBalancer(runPrefix) {
  console.log(
    `\n### tools/call of echo (MCP-lite HTTP, stateless) through HAProxy round-robin over 1, 2 and 3 ` +
      `\`mcplite serve --redis\` replicas, against 1 replica direct`,
  );
  console.log(
    `${describeLoad(LB_LOAD)}; HAProxy ${HAPROXY} (nbthread 1, keep-alive to the replicas). This machine has ` +
      `${CORES} cores, shared by autocannon, HAProxy, the replicas and Redis: more replicas than cores cannot add ` +
      `throughput here.`,
  );
  const prefix = `${runPrefix}:lb:`;
  const replicas = [];
  const balancers = [];
  let contenders;
  try {
    for (let i = 1; i <= 3; i++) replicas.push(await startReplica(`replica${i}`, prefix));
    for (let n = 1; n <= 3; n++) balancers.push(await startBalancer(replicas.slice(0, n)));
    await checkRoundRobin(balancers[2], replicas);
    contenders = await measureContenders(
      [
        async () => echoContender('1 replica direct', replicas[0].child, `${replicas[0].base}rpc`),
        ...balancers.map(
          (b) => async () =>
            echoContender(`HAProxy -> ${b.servers} replica${b.servers > 1 ? 's' : ''}`, b.child, b.rpc),
        ),
      ],
      LB_LOAD,
    );
  } finally {
    await Promise.all([...balancers, ...replicas].map((p) => stopChild(p.child)));
    for (const b of balancers) rmSync(b.dir, { recursive: true, force: true });
  }
  const [direct, ...viaLb] = contenders;
  printTable(contenders, direct);
  console.log('(CPU µs/req: the replica itself for the direct row, HAProxy alone for the balanced rows)');
  const ratios = viaLb.map((c) => pairedRatio(c, direct));
  for (const [i, c] of viaLb.entries()) printRatio(`${c.name} / direct`, ratios[i]);
  const clean = allClean(contenders);
  return {
    ok: clean,
    summary: [
      `scale tools/call echo (${CORES} cores): 1 replica direct ${fmt(meanRps(direct))} req/s; via HAProxy ` +
        viaLb
          .map(
            (c, i) =>
              `${c.name.replace('HAProxy -> ', '')} ${fmt(meanRps(c))} req/s (${ratios[i].median.toFixed(2)}x)`,
          )
          .join(', ') +
        `${clean ? '' : '; ERRORS during load'}`,
    ],
  };
}

/** `mcplite serve --demo --redis …` as a user starts it (no gRPC, warnings only). */
async function startReplica(name, prefix) {
  const { child, base } = await startMcpliteServe(['--redis', REDIS_URL, '--redis-prefix', prefix], {
    env: { MCPLITE_SECRET: 'bench-scale-secret', MCPLITE_TOKENS: '' },
  });
  return { name, child, base, port: Number(new URL(base).port) };
}

function skipBalancer() {
  console.log(`\n${HAPROXY} is missing: the load-balancer measurement is SKIPPED (set HAPROXY_BIN)`);
  return { ok: true, summary: [`load balancer SKIPPED: no ${HAPROXY}`] };
}

/**
 * HAProxy round-robin over `replicas`, each request balanced on its own, connections to the replicas reused
 * (scripts/scale-cluster.mjs's balancer closes them after every response and checks health: the test's needs, not
 * a throughput measurement's).
 */
async function startBalancer(replicas) {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'mcplite-bench-haproxy-'));
  const cfg = join(dir, 'haproxy.cfg');
  writeFileSync(
    cfg,
    [
      'global',
      '  maxconn 4096',
      '  nbthread 1',
      'defaults',
      '  mode http',
      '  timeout connect 2s',
      '  timeout client 30s',
      '  timeout server 30s',
      '  http-reuse always',
      'frontend bench',
      `  bind 127.0.0.1:${port}`,
      '  default_backend replicas',
      'backend replicas',
      '  balance roundrobin',
      ...replicas.map((r) => `  server ${r.name} 127.0.0.1:${r.port}`),
      '',
    ].join('\n'),
  );
  const proc = spawnProcess('haproxy', HAPROXY, ['-db', '-f', cfg]);
  try {
    await waitForPort(port, 10_000, proc);
  } catch (err) {
    await stopChild(proc.child);
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  return {
    child: proc.child,
    dir,
    servers: replicas.length,
    rpc: `http://127.0.0.1:${port}/mcp-lite/v1/rpc`,
  };
}

/** A short burst through the 3-replica balancer: each replica's share of the CPU shows that requests spread. */
async function checkRoundRobin(balancer, replicas) {
  const before = replicas.map((r) => cpuTimeMs(r.child.pid));
  await autocannon({
    url: balancer.rpc,
    method: 'POST',
    headers: JSON_HEADERS,
    body: ECHO_CALL,
    connections: 10,
    duration: 1,
  });
  const used = replicas.map((r, i) => (cpuTimeMs(r.child.pid) ?? 0) - (before[i] ?? 0));
  const total = used.reduce((s, x) => s + x, 0);
  if (total > 0) {
    console.log(
      `round-robin check (1 s through HAProxy -> 3): CPU share per replica ${used
        .map((x) => `${((100 * x) / total).toFixed(0)}%`)
        .join(' / ')}`,
    );
  }
}

// ---------------------------------------------------------------------------------------------------------------
// 3. Redis memory per promise and per session
// ---------------------------------------------------------------------------------------------------------------

async function measureRedisMemory(runPrefix, redis) {
  console.log(
    `\n### Redis memory: MEMORY USAGE summed over the keys of ${fmt(N_MEMORY)} settled promises (result {"n":<int>}) ` +
      `and ${fmt(N_MEMORY)} MCP sessions (initialize on /mcp, revision 2025-06-18, then notifications/initialized)`,
  );
  const prefix = `${runPrefix}:mem:`;
  const server = await startScaleServer('Redis', prefix, { SCALE_STORE: 'redis' });
  const mcpUrl = new URL('/mcp', server.rpc).href;
  let promises;
  let sessions;
  try {
    // Connections, BullMQ's queue keys and the like exist before the first promise: measured apart.
    await pool(20, async (n) => redeemAnswer(server, await makePromise(server, n), n), CONCURRENCY);
    const start = await keyUsage(redis, prefix);
    const tokens = await pool(N_MEMORY, (n) => makePromise(server, n), CONCURRENCY);
    // Settled: redeeming with wait_ms returns once the answer is stored (redeeming keeps the record until expiry).
    await pool(N_MEMORY, (n) => redeemAnswer(server, tokens[n], n), CONCURRENCY);
    const afterPromises = await keyUsage(redis, prefix);
    promises = diffUsage(start, afterPromises);
    await pool(N_MEMORY, () => initializeSession(server, mcpUrl), CONCURRENCY);
    const afterSessions = await keyUsage(redis, prefix);
    sessions = diffUsage(afterPromises, afterSessions);
  } finally {
    server.agent.destroy();
    await stopChild(server.child);
  }
  printUsage('promises', promises, N_MEMORY);
  printUsage('sessions', sessions, N_MEMORY);
  const perPromise = promises.total / N_MEMORY;
  const perPromiseOwn = promises.own / N_MEMORY;
  const perSession = sessions.total / N_MEMORY;
  console.log(
    `per settled promise: ${fmt(perPromise)} bytes in all (${fmt(perPromiseOwn)} B record + indexes, ` +
      `${fmt((promises.total - promises.own) / N_MEMORY)} B BullMQ's event stream, capped by BullMQ at ~10,000 events)`,
  );
  console.log(`per MCP session: ${fmt(perSession)} bytes`);
  return {
    ok: promises.count >= N_MEMORY && sessions.count >= N_MEMORY,
    summary: [
      `scale Redis memory: ${fmt(perPromiseOwn)} B per settled promise (record + indexes; ${fmt(perPromise)} B ` +
        `with BullMQ's capped event stream), ${fmt(perSession)} B per MCP session (N=${fmt(N_MEMORY)} each)`,
    ],
  };
}

/** One MCP handshake: initialize (a new session) and notifications/initialized. */
async function initializeSession(server, mcpUrl) {
  const headers = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
  };
  const init = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: {
      protocolVersion: '2025-06-18',
      capabilities: {},
      clientInfo: { name: 'mcplite-bench', version: '0.0.0' },
    },
  });
  const res = await post(mcpUrl, init, { agent: server.agent, headers });
  const session = res.headers['mcp-session-id'];
  if (res.status !== 200 || !session)
    throw new Error(`initialize: HTTP ${res.status}: ${res.text.slice(0, 300)}`);
  const done = await post(mcpUrl, JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }), {
    agent: server.agent,
    headers: { ...headers, 'mcp-session-id': session, 'mcp-protocol-version': '2025-06-18' },
  });
  if (done.status !== 202) throw new Error(`notifications/initialized: HTTP ${done.status}: ${done.text}`);
}

/** MEMORY USAGE (SAMPLES 0: exact for aggregates) of every key under `prefix`, by kind of key. */
async function keyUsage(redis, prefix) {
  const kinds = new Map();
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
    cursor = next;
    const pipeline = redis.pipeline();
    for (const key of keys) pipeline.memory('USAGE', key, 'SAMPLES', '0');
    const sizes = keys.length > 0 ? await pipeline.exec() : [];
    keys.forEach((key, i) => {
      const kind = kindOf(key.slice(prefix.length));
      const k = kinds.get(kind) ?? { keys: 0, bytes: 0 };
      k.keys += 1;
      k.bytes += Number(sizes[i][1] ?? 0);
      kinds.set(kind, k);
    });
  } while (cursor !== '0');
  return kinds;
}

/** A key's kind: its name with a long last part (a token, a session id) as `*`. */
function kindOf(rest) {
  const kind = rest.replace(/:[^:]{12,}$/, ':*');
  return rest.startsWith('mcplite-work:') ? `BullMQ ${kind}` : kind;
}

/** What grew between two usages, by kind; `own` leaves out BullMQ's keys. */
function diffUsage(before, after) {
  const rows = [];
  let total = 0;
  let own = 0;
  for (const [kind, a] of after) {
    const b = before.get(kind) ?? { keys: 0, bytes: 0 };
    const bytes = a.bytes - b.bytes;
    const keys = a.keys - b.keys;
    if (bytes === 0 && keys === 0) continue;
    rows.push({ kind, keys, bytes });
    total += bytes;
    if (!kind.startsWith('BullMQ')) own += bytes;
  }
  const count = Math.max(0, ...rows.filter((r) => r.kind.endsWith(':*')).map((r) => r.keys));
  return { rows, total, own, count };
}

function printUsage(label, usage, n) {
  console.log(`${label}: keys that grew (kind, new keys, bytes, bytes per ${label.replace(/s$/, '')})`);
  for (const r of usage.rows) {
    console.log(
      `  ${r.kind.padEnd(40)} ${String(r.keys).padStart(6)} ${fmt(r.bytes).padStart(12)} ${fmt(r.bytes / n).padStart(8)}`,
    );
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Shared helpers
// ---------------------------------------------------------------------------------------------------------------

/** The redis-server's pid when it runs on this machine (its CPU time is then readable), else undefined. */
async function localRedisPid(redis) {
  try {
    const info = await redis.info('server');
    const pid = Number(/process_id:(\d+)/.exec(info)?.[1]);
    return pid && cpuTimeMs(pid) !== undefined ? pid : undefined;
  } catch {
    return undefined;
  }
}
