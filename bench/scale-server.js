// The server of the scale section (bench/sections/scale.js), run as its own process so that its CPU time is its
// own: a long-running tool that settles at once (`quick`), so every call is answered with a promise token and the
// promise is settled by the work queue right after. SCALE_STORE=memory keeps promises in this process (the
// embedded default: MemoryPromiseStore and the local work queue); SCALE_STORE=redis puts them on Redis
// (RedisPromiseStore, the BullMQ queue working its jobs in this same process, local-first as `mcplite serve --redis`
// runs it, and MCP sessions in RedisSessionStore), at REDIS_URL under SCALE_PREFIX; SCALE_LOCAL_FIRST=0 with it
// sends every call through BullMQ (`--no-local-first`), to tell what the queue costs. SIGTERM closes the server the
// way the CLI does.
import { createServer, MemoryPromiseStore } from '../dist/src/index.js';
import { serve } from '../dist/src/node.js';
import { exitOnSigterm, quickTool } from './support.js';

const STORE = process.env.SCALE_STORE ?? 'memory';
const REDIS_URL = process.env.REDIS_URL || 'redis://127.0.0.1:6379';
const PREFIX = process.env.SCALE_PREFIX ?? 'mcplite-bench-scale:';
/**
 * Jobs this process runs at once, from the queue and again in local slots: BullMqWorkQueue's default (16, as
 * `mcplite serve --redis` runs) unless SCALE_WORK_CONCURRENCY says otherwise.
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
    workQueue: new redis.BullMqWorkQueue({
      url: REDIS_URL,
      prefix: PREFIX.replace(/:$/, ''),
      work: true,
      localFirst: process.env.SCALE_LOCAL_FIRST !== '0',
      ...(WORK_CONCURRENCY !== undefined ? { concurrency: WORK_CONCURRENCY } : {}),
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
