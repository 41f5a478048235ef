import { type Job, Queue, QueueEvents, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import { McpLiteError } from '../../core/errors.js';
import { LazyAbort } from '../../core/lazy-abort.js';
import { type Logger, silentLogger } from '../../core/logger.js';
import { WORKER_LOST } from '../../core/promises/leases.js';
import type { PromiseStore, Settlement } from '../../core/promises/store.js';
import { settlesWithin } from '../../core/timers.js';
import type { JobRunner, LocalSlot, PromisedJob, WorkQueue, WorkQueueStats } from '../../core/work-queue.js';
import { connectRedis, withReadyRedis } from './connection.js';
import { JobChannels } from './queue-channels.js';
import { drop } from './queue-shutdown.js';

/** Options of `BullMqWorkQueue`. */
export interface BullMqWorkQueueOptions {
  /** The Redis URL; every replica and worker uses the same one. */
  url: string;
  /** Prefix of the queue's keys (BullMQ `prefix`), so deployments can share one Redis. Default "mcplite". */
  prefix?: string;
  /** The BullMQ queue name; fronts and workers must agree on it. Default "mcplite-work". */
  queueName?: string;
  /** Whether this process works jobs too; false makes a pure front. Default true. */
  work?: boolean;
  /**
   * Most jobs this process runs at once (when `work`): this many from the queue, and as many again started here
   * at once (`localFirst`). Default 16.
   */
  concurrency?: number;
  /**
   * When this process works jobs and has a slot free, a job submitted here runs here at once instead of going
   * through BullMQ (whose round trips cost Redis about as much as the rest of a promise): under a lease, with the
   * job kept in the promise store, so that if this process dies another replica takes it over and queues it for
   * any worker. False sends every job through BullMQ. Default true.
   */
  localFirst?: boolean;
  /** How often workers look for jobs whose worker died (BullMQ `stalledInterval`). Default 30 s. */
  stalledIntervalMs?: number;
  /** How long a job's lock lasts unrenewed (BullMQ `lockDuration`). Default 30 s. */
  lockDurationMs?: number;
  /** How often a job whose worker died is requeued before it fails as `worker_lost` (BullMQ). Default 2. */
  maxStalledCount?: number;
  /** Past this many waiting jobs, `submit` refuses with `resource_exhausted`. Default: no bound. */
  maxWaiting?: number;
  /** Longest wait for the first connection, so a call made at start-up does not fail. Default 1000 ms. */
  connectWaitMs?: number;
  /** Logs queue errors (lost connections, failed jobs). Default: silent. */
  logger?: Logger;
}

/** The queue name fronts and workers use unless told otherwise. */
export const DEFAULT_QUEUE_NAME = 'mcplite-work';

/** How long a job handed back by a stopping process waits before any worker may take it. */
const HAND_BACK_DELAY_MS = 1000;

/** A job that ends in an error (its worker stopped mid-job) is tried this many times in all. */
const ATTEMPTS = 3;

/**
 * A `WorkQueue` on BullMQ (Redis): fronts submit jobs, any worker process runs them, so work spreads over
 * machines and outlives a front. Why each piece is there:
 * - job id = promise token: one promise never has two jobs;
 * - a worker killed mid-job loses its lock; BullMQ's stalled-job check requeues the job for another worker, and
 *   the store's atomic `settle` keeps the promise settled exactly once;
 * - a cancel (store `onCancel`, any replica) aborts the handler wherever it runs and drops a waiting job; a
 *   worker skips a job whose promise is no longer pending or has expired;
 * - partials go over pub/sub (a channel per token) to the submitting front until the job ends, is cancelled or
 *   expires;
 * - Redis unreachable: `submit` rejects with `unavailable` at once, never a promise that cannot be kept.
 */
export class BullMqWorkQueue implements WorkQueue {
  /** The BullMQ queue name in use. */
  readonly name: string;
  /** How many jobs this process runs at once (0 for a pure front). */
  readonly concurrency: number;
  private readonly options: BullMqWorkQueueOptions;
  private readonly prefix: string;
  private readonly logger: Logger;
  private readonly commands: Redis;
  private readonly queue: Queue<PromisedJob>;
  /** Partial results between workers and fronts (pub/sub). */
  private readonly channels: JobChannels;
  private worker: Worker<PromisedJob> | undefined;
  private events: QueueEvents | undefined;
  private runner: JobRunner | undefined;
  private store: PromiseStore | undefined;
  private unsubscribeCancel: (() => void) | undefined;
  private readonly running = new Map<string, LazyAbort>();
  private readonly handedBack = new Set<string>();
  /** Jobs running here in a local slot (`reserveLocal`), outside BullMQ. */
  private here = 0;
  private closed = false;

  constructor(options: BullMqWorkQueueOptions) {
    this.options = options;
    this.name = options.queueName ?? DEFAULT_QUEUE_NAME;
    this.prefix = options.prefix ?? 'mcplite';
    this.concurrency = options.work === false ? 0 : (options.concurrency ?? 16);
    this.logger = (options.logger ?? silentLogger).child({ queue: this.name });
    this.commands = connectRedis(options.url, { logger: this.logger });
    this.queue = new Queue<PromisedJob>(this.name, { connection: this.commands, prefix: this.prefix });
    this.queue.on('error', (err) => this.logger.debug({ err }, 'work queue error'));
    const base = `${this.prefix}:${this.name}:partials:`;
    this.channels = new JobChannels(base, this.commands, this.logger, (op, c) => this.redis(op, c));
  }

  /** Remembers the store and runner; starts working jobs when `work` is on. */
  bind(runner: JobRunner, store: PromiseStore): void {
    if (this.runner) throw new Error('BullMqWorkQueue.bind: already bound to a server');
    this.runner = runner;
    this.store = store;
    this.unsubscribeCancel = store.onCancel((token) => this.onCancel(token));
    if (this.concurrency > 0) this.startWorker();
  }

  /**
   * Queues the job under its token. With `onPartial`, subscribes to the job's channel first (so that no early
   * partial is missed) and forwards until the job ends, is cancelled or its promise expires.
   */
  async submit(job: PromisedJob, onPartial?: (data: unknown) => void | Promise<void>): Promise<void> {
    if (this.closed) throw new McpLiteError('unavailable', 'The work queue is closed');
    const { maxWaiting } = this.options;
    if (maxWaiting !== undefined) {
      const waiting = await this.redis(() => this.queue.getWaitingCount());
      if (waiting >= maxWaiting)
        throw new McpLiteError('resource_exhausted', 'Too much work is waiting; try again later', {
          maxWaiting,
        });
    }
    if (onPartial) await this.channels.listen(job.token, job.expiresAt, onPartial);
    try {
      await this.add(job);
    } catch (err) {
      this.channels.stop(job.token);
      throw err;
    }
  }

  private async add(job: PromisedJob, delay = 0): Promise<void> {
    await this.redis(() =>
      this.queue.add('run', job, {
        jobId: job.token,
        ...(delay > 0 ? { delay } : {}),
        attempts: ATTEMPTS,
        removeOnComplete: true,
        removeOnFail: true,
      }),
    );
  }

  /**
   * A slot to run a job here at once (`localFirst`), when this process works jobs and fewer than `concurrency`
   * run in local slots; undefined otherwise. With Redis unreachable, storing the promise fails first.
   */
  reserveLocal(): LocalSlot | undefined {
    if (this.closed || this.concurrency === 0 || this.options.localFirst === false) return undefined;
    if (this.here >= this.concurrency) return undefined;
    this.here += 1;
    let released = false;
    return {
      publish: (token, data) => this.channels.publish(token, { t: 'p', d: data }),
      release: (token, streamed) => {
        if (released) return;
        released = true;
        this.here -= 1;
        // Watchers elsewhere stop at the end message; a job that streamed nothing had nobody to tell.
        if (token && streamed) void this.channels.publish(token, { t: 'e' });
      },
    };
  }

  /**
   * Queues a job again (its replica died, or this one hands it back), for any worker; its id is its token. Handing
   * back means this process stops: its own worker first stops taking jobs, so that another one gets it.
   */
  async requeue(job: PromisedJob, handingBack = false): Promise<void> {
    if (!handingBack) return this.add(job);
    // A fetch already under way can still take it: the job also waits out the moments this worker needs to close.
    await this.worker?.pause(true);
    await this.add(job, HAND_BACK_DELAY_MS);
  }

  /** A streaming `redeem` on this front: the job's partials, from whichever worker runs it, until it ends. */
  async watch(
    token: string,
    expiresAt: number,
    onPartial: (data: unknown) => void | Promise<void>,
  ): Promise<() => void> {
    return this.channels.listen(token, expiresAt, onPartial);
  }

  /** Resolves once Redis answers (and the worker listens): for a ready line or a readiness probe. */
  async ready(): Promise<void> {
    await this.redis(() => this.commands.ping());
    await this.worker?.waitUntilReady();
  }

  /** Jobs waiting (everywhere: BullMQ's count) and running (in this process). */
  async stats(): Promise<WorkQueueStats> {
    const waiting = await this.redis(() =>
      this.queue.getJobCountByTypes('waiting', 'prioritized', 'delayed'),
    );
    return { waiting, running: this.running.size + this.here };
  }

  /**
   * Stops taking jobs, lets running ones finish for at most `graceMs` (default 0), aborts the rest and hands
   * them back to the queue (another worker runs them), then closes every connection.
   */
  async close(graceMs = 0): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.unsubscribeCancel?.();
    // With Redis down, BullMQ would wait for it forever: force (no job can finish anyway).
    const worker = this.worker?.close(this.commands.status !== 'ready');
    if (worker && this.running.size > 0) await settlesWithin(worker, graceMs);
    for (const [token, controller] of this.running) {
      this.handedBack.add(token);
      controller.abort(new McpLiteError('unavailable', 'The worker is shutting down'));
    }
    // With Redis down, BullMQ waits for a connection forever: past a bound, its connections are dropped.
    if (worker && !(await settlesWithin(worker, 5000))) drop(this.worker);
    if (this.events && !(await settlesWithin(this.events.close(), 1000))) drop(this.events);
    await settlesWithin(this.queue.close(), 1000);
    this.channels.close();
    // Not a lost connection: no warning in the log.
    this.commands.removeAllListeners('close').disconnect();
  }

  private startWorker(): void {
    const connection = { url: this.options.url, maxRetriesPerRequest: null };
    this.worker = new Worker<PromisedJob>(this.name, (job) => this.process(job), {
      connection,
      prefix: this.prefix,
      concurrency: this.concurrency,
      maxStalledCount: this.options.maxStalledCount ?? 2,
      ...(this.options.stalledIntervalMs !== undefined
        ? { stalledInterval: this.options.stalledIntervalMs }
        : {}),
      ...(this.options.lockDurationMs !== undefined ? { lockDuration: this.options.lockDurationMs } : {}),
    });
    this.worker.on('error', (err) => this.logger.debug({ err }, 'work queue worker error'));
    // A job failed for good (its workers kept dying) settles as `worker_lost`, not pending until it expires. The
    // stalled-job check fails a job inside Redis without a worker event: hear it on the queue's event stream.
    this.events = new QueueEvents(this.name, { connection, prefix: this.prefix });
    this.events.on('error', (err) => this.logger.debug({ err }, 'work queue events error'));
    this.events.on('failed', ({ jobId, failedReason }) => {
      this.logger.warn({ token: jobId, reason: failedReason }, 'queued work failed: settling as worker_lost');
      void this.store
        ?.settle(jobId, WORKER_LOST)
        .then((settled) => (settled ? this.channels.publish(jobId, { t: 'e' }) : undefined))
        .catch((err) => this.logger.warn({ err, token: jobId }, 'could not settle lost work'));
    });
  }

  /** Runs one job here: skipped when its promise is no longer pending or expired, else run and settled once. */
  private async process(bullJob: Job<PromisedJob>): Promise<void> {
    const job = bullJob.data;
    const { runner, store } = this;
    if (!runner || !store) throw new Error('BullMqWorkQueue: not bound');
    const record = await store.get(job.token);
    if (record?.status !== 'pending' || job.expiresAt <= Date.now()) {
      await this.channels.publish(job.token, { t: 'e' });
      return;
    }
    const controller = new LazyAbort();
    this.running.set(job.token, controller);
    let settlement: Settlement;
    try {
      settlement = await runner(job, controller, (data) =>
        this.channels.publish(job.token, { t: 'p', d: data }),
      );
    } finally {
      this.running.delete(job.token);
    }
    if (
      this.handedBack.delete(job.token) &&
      !('outcome' in settlement && settlement.outcome.type === 'answer')
    ) {
      // Aborted because this process stops, not by a cancel: an error makes BullMQ requeue the job (attempts)
      // for another worker; the submitter keeps listening.
      throw new Error('worker shutting down: job handed back to the queue');
    }
    await store.settle(job.token, settlement);
    await this.channels.publish(job.token, { t: 'e' });
  }

  /** A cancel from any replica: abort the handler if it runs here, else drop the job if it still waits. */
  private onCancel(token: string): void {
    this.channels.stop(token);
    const controller = this.running.get(token);
    if (controller) {
      controller.abort(new McpLiteError('cancelled', 'The promise was cancelled'));
      return;
    }
    this.queue.remove(token).catch(() => {});
  }

  /** A Redis operation of the queue: `unavailable` at once when Redis cannot be reached (`withReadyRedis`). */
  private redis<T>(op: () => Promise<T>, client: Redis = this.commands): Promise<T> {
    return withReadyRedis(client, op, 'The work queue (Redis)', this.options.connectWaitMs ?? 1000);
  }
}
