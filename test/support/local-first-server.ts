/**
 * A replica for `test/scale-out/local-first.test.ts`, as its own process (so that the test can kill it with -9): promises in
 * Redis, a BullMQ queue that it also works, so that a long-running call reaching it runs here at once (local-first)
 * under a short lease, and a long-running tool `slow` that runs until it is aborted (or 60 s). Prints its base URL.
 * Env: REDIS_URL, PREFIX (store), QUEUE_PREFIX, QUEUE_NAME, LEASE_MS.
 */
import { createServer } from '../../src/index.js';
import { serve } from '../../src/node.js';
import { BullMqWorkQueue, RedisPromiseStore } from '../../src/stores/redis/index.js';

const url = process.env.REDIS_URL!;
const server = createServer({
  tools: [
    {
      name: 'slow',
      description: 'Runs until aborted',
      longRunning: { estimatedMs: 60_000 },
      handler: (_args: unknown, ctx: { signal: AbortSignal }) =>
        new Promise((resolve, reject) => {
          const timer = setTimeout(() => resolve({ by: 'killed-replica' }), 60_000);
          ctx.signal.addEventListener('abort', () => {
            clearTimeout(timer);
            reject(ctx.signal.reason);
          });
        }),
    },
  ],
  promiseStore: new RedisPromiseStore({ url, prefix: process.env.PREFIX! }),
  workQueue: new BullMqWorkQueue({
    url,
    prefix: process.env.QUEUE_PREFIX!,
    queueName: process.env.QUEUE_NAME!,
  }),
  leaseMs: Number(process.env.LEASE_MS ?? 600),
});
const running = await serve(server, { port: 0 });
console.log(`local-first server on ${running.url}/mcp-lite/v1/`);
