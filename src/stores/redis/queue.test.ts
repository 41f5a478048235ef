import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { runCommand } from '../../../test/support/cli-process.js';
import { McpLiteError } from '../../core/errors.js';
import { WORKER_LOST } from '../../core/promises/leases.js';
import type { PromiseRecord, PromiseStore, Settlement } from '../../core/promises/store.js';
import { newPromiseToken } from '../../core/promises/token.js';
import type { JobRunner, PromisedJob } from '../../core/work-queue.js';
import { RedisPromiseStore } from './promise-store.js';
import { BullMqWorkQueue, type BullMqWorkQueueOptions } from './queue.js';

const REDIS_URL = process.env.REDIS_URL;
if (!REDIS_URL) {
  console.warn(
    'src/stores/redis/queue.test.ts: REDIS_URL is not set, so the BullMQ queue tests are skipped (CI sets it)',
  );
}

// One namespace per run, so that parallel runs (and other engineers' tests) never see each other's jobs.
const RUN = `mcplite-test-q-${process.pid}-${randomUUID().slice(0, 8)}`;
const STORE_PREFIX = `${RUN}:store:`;
const quota = { maxPerOwner: 1000 };

const open: Array<{ close(): Promise<void> }> = [];

function store(): RedisPromiseStore {
  const s = new RedisPromiseStore({ url: REDIS_URL!, prefix: STORE_PREFIX });
  open.push(s);
  return s;
}

function queue(options: Partial<BullMqWorkQueueOptions> & { queueName: string }): BullMqWorkQueue {
  const q = new BullMqWorkQueue({ url: REDIS_URL!, prefix: RUN, ...options });
  open.push(q);
  return q;
}

/** A runner for a pure front: it must never be asked to run anything. */
const neverRuns: JobRunner = () => {
  throw new Error('a front with work: false ran a job');
};

function answer(result: unknown): Settlement {
  return { outcome: { type: 'answer', result }, processingTimeMs: 1 };
}

/** A pending promise in the store and its job, as the ToolServer makes them for a long-running call. */
async function pendingJob(s: PromiseStore, ttlMs = 60_000): Promise<PromisedJob> {
  const now = Date.now();
  const record: PromiseRecord = {
    token: newPromiseToken(),
    tool: 'slow',
    status: 'pending',
    owner: 'anonymous',
    createdAt: now,
    expiresAt: now + ttlMs,
    estimatedCompletion: now + 1000,
  };
  expect(await s.create(record, quota)).toBe(true);
  return { token: record.token, tool: 'slow', arguments: { n: 1 }, expiresAt: record.expiresAt };
}

async function settled(s: PromiseStore, token: string, timeoutMs = 15_000): Promise<PromiseRecord> {
  const record = await s.waitSettled(token, timeoutMs);
  expect(record?.status).not.toBe('pending');
  return record!;
}

function until(check: () => boolean, timeoutMs = 10_000): Promise<void> {
  return expect.poll(check, { timeout: timeoutMs, interval: 25 }).toBe(true);
}

/** A worker process (test/support/queue-worker.ts) with a slow handler, to be killed with SIGKILL mid-job. */
function startDoomedWorker(queueName: string) {
  return runCommand(process.execPath, ['--import', 'tsx', 'test/support/queue-worker.ts'], {
    REDIS_URL: REDIS_URL!,
    QUEUE_NAME: queueName,
    QUEUE_PREFIX: RUN,
    STORE_PREFIX,
  });
}

afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close().catch(() => {})));
});

afterAll(async () => {
  if (!REDIS_URL) return;
  const redis = new Redis(REDIS_URL);
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${RUN}*`, 'COUNT', 1000);
    cursor = next;
    if (keys.length > 0) await redis.del(...keys);
  } while (cursor !== '0');
  redis.disconnect();
});

describe.skipIf(!REDIS_URL)('BullMqWorkQueue (real Redis at REDIS_URL)', () => {
  it('runs a job submitted on a pure front on a worker, and settles its promise there', async () => {
    const name = `q-${randomUUID()}`;
    const front = queue({ queueName: name, work: false });
    const frontStore = store();
    front.bind(neverRuns, frontStore);
    const ran: string[] = [];
    const worker = queue({ queueName: name });
    worker.bind(async (job) => {
      ran.push(job.token);
      return answer({ doubled: (job.arguments.n as number) * 2 });
    }, store());
    await worker.ready();
    const job = await pendingJob(frontStore);
    await front.submit(job);
    const record = await settled(frontStore, job.token);
    expect(record.status).toBe('settled');
    expect(record.settlement).toEqual(answer({ doubled: 2 }));
    expect(ran).toEqual([job.token]);
    expect((await front.stats()).running).toBe(0);
  });

  it("forwards the worker's partial results to the front's onPartial, in order, and stops at the end", async () => {
    const name = `q-${randomUUID()}`;
    const front = queue({ queueName: name, work: false });
    const frontStore = store();
    front.bind(neverRuns, frontStore);
    const worker = queue({ queueName: name });
    worker.bind(async (_job, _abort, onPartial) => {
      for (let i = 1; i <= 3; i++) {
        await onPartial?.({ step: i });
        await new Promise((r) => setTimeout(r, 20));
      }
      return answer('done');
    }, store());
    await worker.ready();
    const partials: unknown[] = [];
    const job = await pendingJob(frontStore);
    await front.submit(job, (data) => {
      partials.push(data);
    });
    await settled(frontStore, job.token);
    await until(() => partials.length === 3);
    expect(partials).toEqual([{ step: 1 }, { step: 2 }, { step: 3 }]);
    // The end message unsubscribes the front: nothing stays forwarded for a settled job.
    await until(() => (front as unknown as { channels: { size: number } }).channels.size === 0);
  });

  it('aborts the handler on the worker when the promise is cancelled through another replica', async () => {
    const name = `q-${randomUUID()}`;
    const front = queue({ queueName: name, work: false });
    const frontStore = store();
    front.bind(neverRuns, frontStore);
    let started = false;
    let abortReason: unknown;
    const worker = queue({ queueName: name });
    worker.bind(async (_job, abort) => {
      started = true;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 15_000);
        abort.onAbort((reason) => {
          abortReason = reason;
          clearTimeout(timer);
          resolve();
        });
      });
      return { error: { code: 'cancelled', message: 'The call was cancelled' }, processingTimeMs: 1 };
    }, store());
    await worker.ready();
    const job = await pendingJob(frontStore);
    await front.submit(job);
    await until(() => started);
    expect(await frontStore.cancel(job.token)).toBe(true);
    await until(() => abortReason !== undefined, 5000);
    expect((abortReason as McpLiteError).code).toBe('cancelled');
    expect((await frontStore.get(job.token))?.status).toBe('cancelled');
    await expect.poll(async () => (await worker.stats()).running, { timeout: 5000 }).toBe(0);
  });

  it('drops a waiting job whose promise was cancelled, and skips one whose promise is no longer pending', async () => {
    const name = `q-${randomUUID()}`;
    const front = queue({ queueName: name, work: false });
    const frontStore = store();
    front.bind(neverRuns, frontStore);
    const job = await pendingJob(frontStore);
    await front.submit(job);
    expect((await front.stats()).waiting).toBe(1);
    await frontStore.cancel(job.token);
    await expect.poll(async () => (await front.stats()).waiting, { timeout: 5000 }).toBe(0);
    // Settled behind the queue's back (no cancel event): the job stays queued, and the worker must skip it.
    const done = await pendingJob(frontStore);
    await front.submit(done);
    expect(await frontStore.settle(done.token, answer('already'))).toBe(true);
    const ran: string[] = [];
    const worker = queue({ queueName: name });
    worker.bind(async (j) => {
      ran.push(j.token);
      return answer('should not run');
    }, store());
    await worker.ready();
    await expect.poll(async () => (await front.stats()).waiting, { timeout: 5000 }).toBe(0);
    await new Promise((r) => setTimeout(r, 200));
    expect(ran).toEqual([]);
    expect((await frontStore.get(done.token))?.settlement).toEqual(answer('already'));
  });

  it('refuses past maxWaiting with resource_exhausted', async () => {
    const front = queue({ queueName: `q-${randomUUID()}`, work: false, maxWaiting: 1 });
    const frontStore = store();
    front.bind(neverRuns, frontStore);
    await front.submit(await pendingJob(frontStore));
    const err = await front.submit(await pendingJob(frontStore)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(McpLiteError);
    expect((err as McpLiteError).code).toBe('resource_exhausted');
  });

  it('finishes a job on another worker when its worker is killed with -9, and settles it once', async () => {
    const name = `q-${randomUUID()}`;
    const front = queue({ queueName: name, work: false });
    const frontStore = store();
    front.bind(neverRuns, frontStore);
    const doomed = startDoomedWorker(name);
    try {
      await until(() => doomed.stdout().includes('ready\n'), 15_000);
      const job = await pendingJob(frontStore);
      await front.submit(job);
      await until(() => doomed.stdout().includes(`started ${job.token}`));
      doomed.child.kill('SIGKILL');
      expect(await doomed.exited).toBe('SIGKILL');
      // The survivor starts after the kill, so the job can only reach it through stalled-job detection.
      const runs: string[] = [];
      let settles = 0;
      const survivorStore = store();
      const settle = survivorStore.settle.bind(survivorStore);
      survivorStore.settle = async (token, s) => {
        const changed = await settle(token, s);
        if (changed) settles++;
        return changed;
      };
      const survivor = queue({ queueName: name, stalledIntervalMs: 1000, lockDurationMs: 1000 });
      survivor.bind(async (j) => {
        runs.push(j.token);
        return answer({ by: 'survivor' });
      }, survivorStore);
      const record = await settled(frontStore, job.token, 15_000);
      expect(record.settlement).toEqual(answer({ by: 'survivor' }));
      expect(runs).toEqual([job.token]);
      expect(settles).toBe(1);
      // Nothing else comes: the job was removed on completion, not run again.
      await new Promise((r) => setTimeout(r, 1500));
      expect(runs).toEqual([job.token]);
      expect((await survivor.stats()).waiting).toBe(0);
    } finally {
      doomed.child.kill('SIGKILL');
    }
  }, 120_000);

  it('settles the promise as worker_lost when its job stalled more often than maxStalledCount', async () => {
    const name = `q-${randomUUID()}`;
    const front = queue({ queueName: name, work: false });
    const frontStore = store();
    front.bind(neverRuns, frontStore);
    const doomed = startDoomedWorker(name);
    try {
      await until(() => doomed.stdout().includes('ready\n'), 15_000);
      const job = await pendingJob(frontStore);
      await front.submit(job);
      await until(() => doomed.stdout().includes(`started ${job.token}`));
      doomed.child.kill('SIGKILL');
      await doomed.exited;
      const runs: string[] = [];
      const survivor = queue({
        queueName: name,
        stalledIntervalMs: 1000,
        lockDurationMs: 1000,
        maxStalledCount: 0,
      });
      survivor.bind(async (j) => {
        runs.push(j.token);
        return answer('must not run');
      }, store());
      const record = await settled(frontStore, job.token, 15_000);
      expect(record.settlement).toEqual(WORKER_LOST);
      expect(runs).toEqual([]);
    } finally {
      doomed.child.kill('SIGKILL');
    }
  }, 120_000);

  it('hands a running job back to the queue when its worker closes, and another worker finishes it', async () => {
    const name = `q-${randomUUID()}`;
    const front = queue({ queueName: name, work: false });
    const frontStore = store();
    front.bind(neverRuns, frontStore);
    let started = false;
    const leaving = queue({ queueName: name });
    leaving.bind(async (_job, abort) => {
      started = true;
      await new Promise<void>((resolve) => abort.onAbort(() => resolve()));
      return { error: { code: 'unavailable', message: 'shutting down' }, processingTimeMs: 1 };
    }, store());
    await leaving.ready();
    const partials: unknown[] = [];
    const job = await pendingJob(frontStore);
    await front.submit(job, (data) => {
      partials.push(data);
    });
    await until(() => started);
    const staying = queue({ queueName: name });
    staying.bind(async (_job, _abort, onPartial) => {
      await onPartial?.('from the second worker');
      return answer({ by: 'second' });
    }, store());
    await staying.ready();
    await leaving.close(100);
    const record = await settled(frontStore, job.token);
    expect(record.settlement).toEqual(answer({ by: 'second' }));
    // The front kept listening across the hand-back.
    await until(() => partials.length === 1);
    expect(partials).toEqual(['from the second worker']);
  });

  it('lets a running job finish within the grace given to close', async () => {
    const name = `q-${randomUUID()}`;
    const worker = queue({ queueName: name });
    const workerStore = store();
    let started = false;
    worker.bind(async (_job, abort) => {
      started = true;
      await new Promise((r) => setTimeout(r, 300));
      return answer({ aborted: abort.aborted });
    }, workerStore);
    await worker.ready();
    const job = await pendingJob(workerStore);
    await worker.submit(job);
    await until(() => started);
    await worker.close(5000);
    expect((await workerStore.get(job.token))?.settlement).toEqual(answer({ aborted: false }));
  });

  it('rejects submit with unavailable at once when Redis cannot be reached', async () => {
    const front = new BullMqWorkQueue({ url: 'redis://127.0.0.1:1', queueName: 'nowhere', work: false });
    open.push(front);
    front.bind(neverRuns, store());
    const job: PromisedJob = {
      token: newPromiseToken(),
      tool: 'slow',
      arguments: {},
      expiresAt: Date.now() + 1000,
    };
    for (let i = 0; i < 2; i++) {
      const began = Date.now();
      const err = await front.submit(job, () => {}).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(McpLiteError);
      expect((err as McpLiteError).code).toBe('unavailable');
      expect((err as McpLiteError).message).toMatch(/^The work queue \(Redis\) is unavailable: /);
      expect(Date.now() - began).toBeLessThan(1500);
    }
    await expect(front.stats()).rejects.toMatchObject({ code: 'unavailable' });
  });
});
