// The server of the scale section (bench/sections/scale.js), run as its own process so that its CPU time is its
// own: a long-running tool that settles at once (`quick`), so every call is answered with a promise token and the
// promise is settled by the work queue right after. SCALE_STORE=memory keeps promises in this process (the
// embedded default: MemoryPromiseStore and the local work queue); SCALE_STORE=redis puts them on Redis
// (RedisPromiseStore, the BullMQ queue working its jobs in this same process, and MCP sessions in
// RedisSessionStore), at REDIS_URL under SCALE_PREFIX; SCALE_QUEUE=local with it keeps the work in this process
// (the local work queue, with a lease in Redis) instead of BullMQ, to tell what the queue costs. SIGTERM closes
// the server the way the CLI does.
import { createServer, MemoryPromiseStore, serve } from '../dist/src/index.js';
import { exitOnSigterm, quickTool } from './support.js';

const STORE = process.env.SCALE_STORE ?? 'memory';
const REDIS_URL = process.env.REDIS_URL || 'redis://127.0.0.1:6379';
const PREFIX = process.env.SCALE_PREFIX ?? 'mcplite-bench-scale:';
/**
 * Jobs the BullMQ worker of this process runs at once: BullMqWorkQueue's default (16, as `mcplite serve --redis`
 * runs) unless SCALE_WORK_CONCURRENCY says otherwise. More is not quicker here: with 64, each pair cost more CPU in
 * the server and in Redis, and fewer pairs/s, on the 2-core machine this was tuned on.
 */
const WORK_CONCURRENCY = process.env.SCALE_WORK_CONCURRENCY
  ? Number(process.env.SCALE_WORK_CONCURRENCY)
  : undefined;

// A round makes tens of thousands of promises, all kept until they expire: lift the memory store's bound (100,000).
let stores = { promiseStore: new MemoryPromiseStore({ maxEntries: 10_000_000 }) };
let sessionStore;
if (STORE === 'redis') {
  const redis = await import('../dist/src/stores/redis/index.js');
  stores = {
    promiseStore: new redis.RedisPromiseStore({ url: REDIS_URL, prefix: PREFIX, maxPromises: 10_000_000 }),
    ...(process.env.SCALE_QUEUE === 'local'
      ? {}
      : {
          workQueue: new redis.BullMqWorkQueue({
            url: REDIS_URL,
            prefix: PREFIX.replace(/:$/, ''),
            work: true,
            ...(WORK_CONCURRENCY !== undefined ? { concurrency: WORK_CONCURRENCY } : {}),
          }),
        }),
  };
  // One caller (this machine's address) makes every session: lift the per-caller bound, not the store's.
  sessionStore = new redis.RedisSessionStore({
    url: REDIS_URL,
    prefix: PREFIX,
    maxSessions: 1_000_000,
    maxSessionsPerCaller: 1_000_000,
  });
} else if (STORE !== 'memory') {
  throw new Error(`SCALE_STORE must be memory or redis, not ${STORE}`);
}

// One caller makes every promise here and every one runs at once: lift the per-caller quota and the work
// concurrency so that the section measures the store and the queue, not the bounds.
const server = createServer({
  tools: [quickTool],
  name: 'bench-scale',
  version: '0.0.0',
  maxPromisesPerCaller: 10_000_000,
  maxConcurrentWork: 1_000_000,
  ...stores,
});
const running = await serve(server, { port: 0, ...(sessionStore ? { sessionStore } : {}) });

exitOnSigterm(running, () => sessionStore?.close());
console.log(`scale server (${STORE}) listening on ${running.url}/mcp-lite/v1/`);
