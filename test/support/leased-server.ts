/**
 * A replica for the lease test, as its own process (so that the test can kill it with -9): promises in Redis,
 * a short answer budget and a short lease, and a tool that runs until it is aborted. Prints its base URL.
 * Env: REDIS_URL, PREFIX, LEASE_MS.
 */
import { createServer } from '../../src/index.js';
import { serve } from '../../src/node.js';
import { RedisPromiseStore } from '../../src/stores/redis/index.js';

const server = createServer({
  tools: [
    {
      name: 'forever',
      description: 'Runs until aborted',
      handler: (_args: unknown, ctx: { signal: AbortSignal }) =>
        new Promise((_resolve, reject) =>
          ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason)),
        ),
    },
  ],
  promiseStore: new RedisPromiseStore({ url: process.env.REDIS_URL!, prefix: process.env.PREFIX! }),
  answerBudgetMs: 100,
  leaseMs: Number(process.env.LEASE_MS ?? 600),
});
const running = await serve(server, { port: 0 });
console.log(`leased server on ${running.url}/mcp-lite/v1/`);
