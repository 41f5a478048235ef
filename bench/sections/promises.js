// Memory of outstanding promises: 10,000 calls of a long-running tool that never finishes by itself, each
// answered at once with a promise token, then all cancelled. The server runs as its own process with --expose-gc
// (bench/promises-server.js), so that its RSS and heap are measured alone and after a full collection. With
// REDIS_URL set, the same again with the promises in Redis: the server's heap, and what the promises' keys take
// in Redis (MEMORY USAGE of each key under the run's own prefix, so that others' keys on a shared Redis do not
// count). Targets: at most 2 KB of heap per outstanding promise with the memory store, 1 KB in Redis with Redis.
import { once } from 'node:events';
import { Agent } from 'node:http';
import { join } from 'node:path';
import {
  callTool,
  envNumber,
  fmt,
  mib,
  pool,
  promiseToken,
  ROOT,
  startChild,
  stopChild,
} from '../support.js';

const PROMISES = envNumber('BENCH_PROMISES', 10_000);
/** Per outstanding promise, at most: heap with the memory store, bytes in Redis with the Redis store. */
const TARGET_MEMORY_STORE = 2048;
const TARGET_REDIS = 1024;
/** Calls in flight at once: enough to be quick, few enough not to measure the client's queue. */
const CONCURRENCY = 50;
/** Calls made (and cancelled) before the first measurement, so that JIT code, pools and caches exist already. */
const WARMUP = 200;

export default async function run() {
  const memory = await runWith('memory store', {}, TARGET_MEMORY_STORE);
  const url = process.env.REDIS_URL;
  if (!url) {
    console.log('(REDIS_URL is not set: the Redis store is not measured)');
    return memory;
  }
  const prefix = `mcplite-bench-${process.pid}-${Date.now()}:`;
  const redis = new (await import('ioredis')).Redis(url, { maxRetriesPerRequest: 1 });
  try {
    const inRedis = await runWith(
      'Redis store',
      { BENCH_PROMISES_REDIS_URL: url, BENCH_PROMISES_REDIS_PREFIX: prefix },
      TARGET_REDIS,
      () => keyBytes(redis, prefix),
    );
    return { ok: memory.ok && inRedis.ok, summary: [...memory.summary, ...inRedis.summary] };
  } finally {
    await deleteKeys(redis, prefix).catch(() => {});
    redis.disconnect();
  }
}

/** Bytes Redis uses for the keys under `prefix` (MEMORY USAGE of each). */
async function keyBytes(redis, prefix) {
  let bytes = 0;
  for await (const keys of redis.scanStream({ match: `${prefix}*`, count: 1000 })) {
    if (keys.length === 0) continue;
    const pipeline = redis.pipeline();
    for (const key of keys) pipeline.memory('USAGE', key);
    for (const [, used] of await pipeline.exec()) bytes += Number(used ?? 0);
  }
  return bytes;
}

async function deleteKeys(redis, prefix) {
  for await (const keys of redis.scanStream({ match: `${prefix}*`, count: 1000 })) {
    if (keys.length > 0) await redis.unlink(...keys);
  }
}

/**
 * One round with the server's promise store chosen by `env`; `storeBytes`, when given, measures what the store
 * itself holds outside the server (Redis), which `target` then bounds (else the server's heap).
 */
async function runWith(storeName, env, target, storeBytes) {
  console.log(`\n## Promises (${storeName}): ${fmt(PROMISES)} outstanding promises of a long-running tool`);
  const { child, match } = await startChild([join(ROOT, 'bench/promises-server.js')], /listening on (\S+)/, {
    nodeOptions: ['--expose-gc'],
    ipc: true,
    env,
  });
  const rpc = new URL('rpc', match).href;
  const call = (name, args) => callTool(rpc, agent, name, args);
  const promises = async (n) => pool(n, async () => promiseToken(await call('wait', {})), CONCURRENCY);
  const cancelAll = async (tokens) => {
    const results = await pool(tokens.length, (i) => call('cancel', { promise: tokens[i] }), CONCURRENCY);
    const cancelled = results.filter((r) => r.content?.cancelled === true).length;
    if (cancelled !== tokens.length) throw new Error(`cancelled ${cancelled} of ${tokens.length} promises`);
  };

  let result;
  try {
    await cancelAll(await promises(WARMUP));
    const before = await measure(child);
    const storeBefore = storeBytes ? await storeBytes() : 0;
    if (!before.gc) console.log('note: gc() is not exposed; numbers include garbage');
    const started = performance.now();
    const tokens = await promises(PROMISES);
    const seconds = (performance.now() - started) / 1000;
    const held = await measure(child);
    const storeHeld = storeBytes ? await storeBytes() : 0;
    await cancelAll(tokens);
    // Cancelling aborts the handlers; their settlements are stored on the next turns.
    await new Promise((resolve) => setTimeout(resolve, 200));
    const after = await measure(child);

    const perPromise = (a, b, key) => (b[key] - a[key]) / PROMISES;
    console.log(
      `made in ${seconds.toFixed(1)} s (${fmt(PROMISES / seconds)} promises/s), ${held.inFlight} running`,
    );
    console.log('                 RSS       heap used');
    console.log(`before      ${mib(before.rss).padStart(10)}  ${mib(before.heapUsed).padStart(10)}`);
    console.log(`outstanding ${mib(held.rss).padStart(10)}  ${mib(held.heapUsed).padStart(10)}`);
    console.log(
      `cancelled   ${mib(after.rss).padStart(10)}  ${mib(after.heapUsed).padStart(10)}  (${after.inFlight} running)`,
    );
    const rssEach = perPromise(before, held, 'rss');
    const heapEach = perPromise(before, held, 'heapUsed');
    console.log(`per outstanding promise: ${fmt(rssEach)} bytes of RSS, ${fmt(heapEach)} bytes of heap`);
    const storeEach = (storeHeld - storeBefore) / PROMISES;
    if (storeBytes) console.log(`per outstanding promise in the store: ${fmt(storeEach)} bytes`);
    // Settled promises: made by a tool that answers at once, kept in the store until redeemed or expired.
    const settledBefore = await measure(child);
    await pool(PROMISES, (n) => call('quick', { n }), CONCURRENCY);
    await new Promise((resolve) => setTimeout(resolve, 200));
    const settledAfter = await measure(child);
    const settledHeapEach = perPromise(settledBefore, settledAfter, 'heapUsed');
    console.log(`per settled promise: ${fmt(settledHeapEach)} bytes of heap (result {"n":<int>} included)`);
    result = {
      ok:
        held.inFlight >= PROMISES &&
        after.inFlight === 0 &&
        settledHeapEach < 1536 &&
        (storeBytes ? storeEach : heapEach) <= target,
      summary: [
        `${storeName}: ${fmt(PROMISES)} outstanding promises: RSS ${mib(before.rss)} -> ${mib(held.rss)} ` +
          `(${fmt(rssEach)} B each, heap ${fmt(heapEach)} B each` +
          `${storeBytes ? `, in Redis ${fmt(storeEach)} B each` : ''}; target <= ${fmt(target)} B ` +
          `${storeBytes ? 'in Redis' : 'of heap'}); ` +
          `${after.inFlight} left running after cancel`,
        `${storeName}: ${fmt(PROMISES)} settled promises: ${fmt(settledHeapEach)} B of heap each (target about 1 KB)`,
      ],
    };
  } finally {
    agent.destroy();
    await stopChild(child, 5000);
  }
  // SIGTERM with 10,000 cancelled promises in the store must still end the process cleanly.
  if (child.exitCode !== 0) {
    console.log(`the server did not exit cleanly: ${child.exitCode ?? child.signalCode}`);
    result.ok = false;
  }
  return result;
}

// node:http with keep-alive rather than fetch: several times quicker per call, so that the section is short.
const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });

/** Asks the server for its memory after a full collection. */
async function measure(child) {
  child.send({ type: 'measure' });
  for (;;) {
    const [message] = await once(child, 'message');
    if (message?.type === 'memory') return message;
  }
}
