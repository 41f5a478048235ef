// The promise measurements of the scale section (bench/sections/scale.js), every comparison a ratio of rounds run
// back to back (bench/load.js: paired rounds in alternating order, median of the per-round ratios):
// - create + redeem pairs over MCP-lite HTTP: CONCURRENCY loops, each on its own keep-alive connection
//   (bench/pair-client.js), call a long-running tool that settles at once (-> a promise token) and then `redeem`
//   it with `wait_ms` (-> the answer), against bench/scale-server.js: the memory store (one process: its state is
//   that process's), the Redis store with its BullMQ queue local-first (`mcplite serve --redis`: a call runs where
//   it arrives when a slot is free), the same with every call through BullMQ (`--no-local-first`), and two
//   local-first replicas on one Redis (the machine's two cores, as `serve --cluster 2 --redis` uses them), each
//   loop's connection on one replica, and again with every promise redeemed on the other replica than the one
//   that made it (state that is really shared);
// - the Redis promise store alone: create + settle + get through its API in this process, no HTTP, no queue.
import { Agent } from 'node:http';
import { join } from 'node:path';
import {
  allClean,
  meanOfDefined,
  meanP99,
  meanRps,
  pairedRatio,
  printRatio,
  printTable,
  runInterleaved,
} from './load.js';
import { PairConnection } from './pair-client.js';
import {
  callTool,
  cpuTimeMs,
  envNumber,
  fmt,
  percentile,
  perMicros,
  promiseToken,
  ROOT,
  startChild,
  stopChild,
  toolCallBody,
} from './support.js';

const REDIS_URL = process.env.REDIS_URL || 'redis://127.0.0.1:6379';
/** Pairs in flight at once (one keep-alive connection each). */
export const CONCURRENCY = 50;
/** The pairs measurement: a 1 s warm-up, then paired rounds of `duration` s per contender (bench/load.js). */
const PAIR_LOAD = {
  warmup: 1,
  rounds: envNumber('BENCH_SCALE_ROUNDS', 8),
  duration: envNumber('BENCH_SCALE_DURATION', 2),
};
/** The target for the Redis store. */
const TARGET_PAIRS = 10_000;
/**
 * Local slots (and queue jobs) of a Redis contender: one per pair in flight, as the memory contender runs every
 * promise at once too (its `maxConcurrentWork` is lifted); the default 16 would send the rest through BullMQ.
 */
const REDIS_WORK = { SCALE_STORE: 'redis', SCALE_WORK_CONCURRENCY: String(CONCURRENCY + 14) };

export async function measurePairs(runPrefix, redisPid) {
  console.log(
    `\n### Promise create + redeem pairs (MCP-lite HTTP): tools/call of a long-running tool that settles at once ` +
      `-> promise token, then redeem with wait_ms -> answer`,
  );
  console.log(
    `client: ${CONCURRENCY} pairs in flight, each loop on its own keep-alive connection (bench/pair-client.js), ` +
      `1 warm-up round, then ${PAIR_LOAD.rounds} paired rounds of ${PAIR_LOAD.duration} s per contender in ` +
      `alternating order; client, servers and Redis share the machine's cores`,
  );
  const contenders = [];
  try {
    contenders.push(await pairContender('memory store', [`${runPrefix}:m:`], { SCALE_STORE: 'memory' }));
    contenders.push(await pairContender('Redis, local-first', [`${runPrefix}:r:`], REDIS_WORK));
    contenders.push(
      await pairContender('Redis, all via BullMQ', [`${runPrefix}:q:`], {
        ...REDIS_WORK,
        SCALE_LOCAL_FIRST: '0',
      }),
    );
    const two = [`${runPrefix}:2:`, `${runPrefix}:2:`];
    contenders.push(await pairContender('Redis, 2 replicas', two, REDIS_WORK));
    const cross = [`${runPrefix}:x:`, `${runPrefix}:x:`];
    contenders.push(await pairContender('Redis, 2 replicas, cross', cross, REDIS_WORK, true));
    for (const c of contenders) Object.assign(c, { op: pair, redisPid });
    await runInterleaved(contenders, PAIR_LOAD, timedRound);
  } finally {
    for (const c of contenders) for (const conn of [...c.create, ...c.redeem]) conn?.close();
    await Promise.all(contenders.flatMap((c) => c.children.map((child) => stopChild(child))));
  }
  const [memory, local, queued, replicas, cross] = contenders;
  printPairsTable(contenders, memory, 'servers CPU µs');
  for (const c of [local, queued, replicas, cross]) printRatio(`${c.name}/memory`, pairedRatio(c, memory));
  printRatio('local-first/all via BullMQ', pairedRatio(local, queued));
  for (const c of contenders.slice(1)) {
    const micros = meanOfDefined(c.runs, 'redisCpuMicros');
    if (micros === undefined) continue;
    // Redis runs commands on one thread: its CPU time per pair bounds the pairs/s of one Redis.
    console.log(
      `${c.name}: Redis spends ${micros.toFixed(0)} µs of its one thread per pair, a ceiling of about ` +
        `${fmt(1e6 / micros)} pairs/s for one Redis`,
    );
  }
  const clean = allClean(contenders);
  const best = [local, replicas].reduce((a, b) => (meanRps(b) > meanRps(a) ? b : a));
  const met = meanRps(best) >= TARGET_PAIRS;
  const p99 = (c) => meanP99(c).toFixed(1);
  const line = (c) => `${c.name} ${fmt(meanRps(c))} pairs/s (p99 ${p99(c)} ms)`;
  console.log(
    `target: Redis at least ${fmt(TARGET_PAIRS)} pairs/s on this machine: ${met ? 'met' : 'NOT met'} by ` +
      `${line(best)}`,
  );
  return {
    ok: clean,
    summary: [
      `scale pairs (HTTP, ${CONCURRENCY} in flight): ${contenders.map(line).join('; ')}; local-first ` +
        `${pairedRatio(local, queued).median.toFixed(2)}x all via BullMQ`,
      `scale target: Redis at least ${fmt(TARGET_PAIRS)} create+redeem pairs/s: ${met ? 'met' : 'target NOT met'} ` +
        `(${line(best)})${clean ? '' : '; ERRORS during load'}`,
    ],
  };
}

/**
 * A pairs contender: one bench/scale-server.js per prefix (two prefixes that are the same make two replicas on
 * one state), and CONCURRENCY loops, loop i on replica i (mod the replicas), as a balancer keeping each keep-alive
 * connection on one replica does; `cross`: loop i redeems on the next replica, so every redeem reads a promise
 * another replica made and settles.
 */
async function pairContender(name, prefixes, env, cross = false) {
  const servers = await Promise.all(prefixes.map((prefix) => startScaleServer(name, prefix, env)));
  for (const s of servers) s.agent.destroy();
  const at = (i) => servers[i % servers.length].rpc;
  return {
    name,
    children: servers.map((s) => s.child),
    cpuPids: servers.map((s) => s.child.pid),
    create: Array.from({ length: CONCURRENCY }, (_, i) => new PairConnection(at(i))),
    redeem: Array.from({ length: CONCURRENCY }, (_, i) =>
      cross ? new PairConnection(at(i + 1)) : undefined,
    ),
    runs: [],
    next: 0,
  };
}

/**
 * Starts bench/scale-server.js with the store `env` says (SCALE_STORE, ...) under `prefix`; the memory
 * measurement calls it through its own keep-alive agent.
 */
export async function startScaleServer(name, prefix, env) {
  const { child, match } = await startChild([join(ROOT, 'bench/scale-server.js')], /listening on (\S+)/, {
    env: { ...env, SCALE_PREFIX: prefix, REDIS_URL },
  });
  const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  return { name, child, rpc: new URL('rpc', match).href, agent, runs: [], next: 0 };
}

/**
 * One round for bench/load.js's runInterleaved: CONCURRENCY loops of `c.op(c, loop)` for `seconds`; the result
 * in load.js's shape, with the CPU time per pair of `c.cpuPids` and (when it runs here) of Redis.
 */
async function timedRound(c, _load, seconds) {
  const latencies = [];
  let errors = 0;
  let firstError;
  const cpuOf = () => c.cpuPids.reduce((sum, pid) => sum + (cpuTimeMs(pid) ?? 0), 0);
  const cpuBefore = cpuOf();
  const redisBefore = c.redisPid ? cpuTimeMs(c.redisPid) : undefined;
  const started = performance.now();
  const until = started + seconds * 1000;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async (_, loop) => {
      while (performance.now() < until && errors < 100) {
        const t0 = performance.now();
        try {
          await c.op(c, loop);
          latencies.push(performance.now() - t0);
        } catch (err) {
          errors += 1;
          firstError ??= err;
        }
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  if (firstError) console.log(`${c.name}: ${errors} failed pairs, the first: ${firstError.message}`);
  const n = latencies.length;
  const cpuMicrosPerRequest = perMicros(cpuBefore, cpuOf(), n);
  const redisCpuMicros = perMicros(redisBefore, c.redisPid ? cpuTimeMs(c.redisPid) : undefined, n);
  latencies.sort((a, b) => a - b);
  return {
    requests: { average: n / elapsed, total: n },
    latency: {
      p50: percentile(latencies, 0.5) ?? Number.NaN,
      p99: percentile(latencies, 0.99) ?? Number.NaN,
    },
    errors,
    non2xx: 0,
    cpuMicrosPerRequest,
    redisCpuMicros,
  };
}

/** One create + redeem pair on loop `i`'s connections, each reply checked in full. */
async function pair(c, i) {
  const n = c.next++;
  const token = promiseToken(await rawCall(c.create[i], 'quick', { n }));
  const got = await rawCall(c.redeem[i] ?? c.create[i], 'redeem', { promise: token, wait_ms: 10_000 });
  checkAnswer(got, n);
}

async function rawCall(conn, name, args) {
  const { status, text } = await conn.post(toolCallBody(name, args));
  const reply = JSON.parse(text);
  if (status !== 200 || reply.error)
    throw new Error(`${name} failed (HTTP ${status}): ${text.slice(0, 300)}`);
  return reply.result;
}

function checkAnswer(got, n) {
  if (got._meta?.response_type !== 'answer' || got.content?.n !== n) {
    throw new Error(`expected the answer {"n":${n}}, got ${JSON.stringify(got)}`);
  }
}

/** A call of `quick` {n} through the server's agent (node:http); resolves with its promise token. */
export async function makePromise(server, n) {
  return promiseToken(await callTool(server.rpc, server.agent, 'quick', { n }));
}

/** Redeems `token` with wait_ms through the server's agent, so that it resolves once the answer {n} is stored. */
export async function redeemAnswer(server, token, n) {
  checkAnswer(await callTool(server.rpc, server.agent, 'redeem', { promise: token, wait_ms: 10_000 }), n);
}

// The Redis promise store alone

export async function measureStoreAlone(runPrefix, redisPid) {
  const { RedisPromiseStore } = await import('../dist/src/stores/redis/index.js');
  const load = { warmup: 0.5, rounds: Math.max(2, PAIR_LOAD.rounds >> 1), duration: PAIR_LOAD.duration };
  console.log(
    `\n### RedisPromiseStore alone: create + settle + get through the store API in this process (no HTTP, no ` +
      `queue), ${CONCURRENCY} pairs in flight on its one connection, ${load.rounds} rounds of ${load.duration} s`,
  );
  const store = new RedisPromiseStore({
    url: REDIS_URL,
    prefix: `${runPrefix}:d:`,
    maxPromises: 100_000_000,
  });
  const c = {
    name: 'RedisPromiseStore alone',
    store,
    runs: [],
    next: 0,
    op: (c) => storePair(c),
    cpuPids: [process.pid],
    redisPid,
  };
  try {
    await store.ping();
    await runInterleaved([c], load, timedRound);
  } finally {
    await store.close();
  }
  printPairsTable([c], c, 'process CPU µs');
  const clean = allClean([c]);
  const rate = meanRps(c);
  console.log(
    `RedisPromiseStore alone: ${fmt(rate)} create+settle+get/s, p99 ${meanP99(c).toFixed(1)} ms: ` +
      `${rate >= TARGET_PAIRS ? 'at or above' : 'below'} ${fmt(TARGET_PAIRS)}/s`,
  );
  return {
    ok: clean,
    summary: [
      `scale RedisPromiseStore alone (store API in one process, no HTTP, no queue): ${fmt(rate)} ` +
        `create+settle+get/s (p99 ${meanP99(c).toFixed(1)} ms)${clean ? '' : '; ERRORS'}`,
    ],
  };
}

/** A promise as the manager makes it, settled with a small answer and read back as redeem reads it. */
async function storePair(c) {
  const n = c.next++;
  const now = Date.now();
  const token = `bench${process.pid}x${n}`;
  const record = {
    token,
    tool: 'quick',
    status: 'pending',
    owner: 'addr:127.0.0.1',
    createdAt: now,
    expiresAt: now + 3_600_000,
    estimatedCompletion: now + 1,
  };
  if (!(await c.store.create(record, { maxPerOwner: 100_000_000 })))
    throw new Error(`create refused ${token}`);
  const settled = await c.store.settle(token, {
    outcome: { type: 'answer', result: { n } },
    processingTimeMs: 0,
  });
  if (!settled) throw new Error(`settle refused ${token}`);
  const got = await c.store.get(token);
  if (got?.status !== 'settled' || got.settlement?.outcome?.result?.n !== n) {
    throw new Error(`get ${token}: ${JSON.stringify(got)}`);
  }
}

/** bench/load.js's table in pairs/s, with the Redis CPU per pair; `cpuHeader` says whose CPU the CPU column is. */
function printPairsTable(contenders, baseline, cpuHeader) {
  printTable(contenders, baseline, {
    unit: 'pairs/s',
    cpuHeader,
    ratioHeader: `vs ${baseline.name.split(' ')[0]}`,
    extra: [
      { header: 'Redis CPU µs', cell: (c) => meanOfDefined(c.runs, 'redisCpuMicros')?.toFixed(0) ?? '-' },
    ],
  });
  console.log("(p99: mean over rounds of each round's p99; CPU per pair from /proc)");
}
