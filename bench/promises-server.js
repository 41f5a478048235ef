// The server of the promises section, run as its own process with --expose-gc so that its memory can be
// measured alone: a long-running tool that waits for its signal (it ends only when cancelled). The parent asks
// for measurements over IPC; SIGTERM closes the server the way the CLI does. With BENCH_PROMISES_REDIS_URL (and
// BENCH_PROMISES_REDIS_PREFIX) the promises are kept in Redis instead of in memory.
import { createServer } from '../dist/src/index.js';
import { serve } from '../dist/src/node.js';
import { exitOnSigterm, quickTool } from './support.js';

const wait = {
  name: 'wait',
  description: 'Waits until cancelled',
  inputSchema: { type: 'object', properties: {} },
  longRunning: { estimatedMs: 60_000 },
  handler: (_args, ctx) =>
    new Promise((_resolve, reject) => {
      const { signal } = ctx;
      if (signal.aborted) reject(signal.reason);
      else signal.addEventListener('abort', () => reject(signal.reason), { once: true });
    }),
};

// One caller makes every promise here, and every one runs at once: lift the per-caller quota and the work
// concurrency so that the section measures promises, not the bounds.
const redisUrl = process.env.BENCH_PROMISES_REDIS_URL;
const promiseStore = redisUrl
  ? new (await import('../dist/src/stores/redis/index.js')).RedisPromiseStore({
      url: redisUrl,
      prefix: process.env.BENCH_PROMISES_REDIS_PREFIX,
    })
  : undefined;
const server = createServer({
  tools: [wait, quickTool],
  ...(promiseStore ? { promiseStore } : {}),
  name: 'bench-promises',
  version: '0.0.0',
  maxPromisesPerCaller: 1_000_000,
  maxConcurrentWork: 1_000_000,
});
const running = await serve(server, { port: 0 });

process.on('message', (message) => {
  if (message?.type !== 'measure') return;
  // Twice: the first full collection can leave finalised objects for the second.
  globalThis.gc?.();
  globalThis.gc?.();
  const { rss, heapUsed, external, arrayBuffers } = process.memoryUsage();
  process.send({
    type: 'memory',
    gc: typeof globalThis.gc === 'function',
    rss,
    heapUsed,
    external,
    arrayBuffers,
    inFlight: server.inFlight,
  });
});

exitOnSigterm(running, async () => promiseStore?.close());
console.log(`promises server listening on ${running.url}/mcp-lite/v1/`);
