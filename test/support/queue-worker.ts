/**
 * A BullMQ worker process for `src/stores/redis/queue.test.ts`, to be killed with SIGKILL mid-job: it works the
 * queue named by QUEUE_NAME/QUEUE_PREFIX on REDIS_URL with promises in the Redis store under STORE_PREFIX, and a
 * slow handler that prints `started <token>` and then waits (60 s, or until aborted). Short lock and stalled
 * intervals (1 s) so that the job it held is soon picked up by another worker. Prints `ready` once it works.
 */
import { RedisPromiseStore } from '../../src/stores/redis/promise-store.js';
import { BullMqWorkQueue } from '../../src/stores/redis/queue.js';

const env = (name: string): string => {
  const value = process.env[name];
  if (!value) throw new Error(`queue-worker: ${name} is not set`);
  return value;
};

const url = env('REDIS_URL');
const store = new RedisPromiseStore({ url, prefix: env('STORE_PREFIX') });
const queue = new BullMqWorkQueue({
  url,
  prefix: env('QUEUE_PREFIX'),
  queueName: env('QUEUE_NAME'),
  stalledIntervalMs: 1000,
  lockDurationMs: 1000,
});
queue.bind(async (job, abort) => {
  process.stdout.write(`started ${job.token}\n`);
  await new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, 60_000);
    abort.onAbort(() => {
      clearTimeout(timer);
      resolve();
    });
  });
  return { outcome: { type: 'answer', result: { by: 'killed-worker' } }, processingTimeMs: 1 };
}, store);
await queue.ready();
process.stdout.write('ready\n');
