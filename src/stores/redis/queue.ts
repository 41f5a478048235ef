import { type Job, Queue, QueueEvents, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import { McpLiteError } from '../../core/errors.js';
import { type Logger, silentLogger } from '../../core/logger.js';
import { WORKER_LOST } from '../../core/promises/manager.js';
import type { PromiseStore, Settlement } from '../../core/promises/store.js';
import type { JobRunner, PromisedJob, WorkQueue, WorkQueueStats } from '../../core/work-queue.js';
import { connectRedis, redactUrl, storeUnavailable } from './connection.js';
import { JobChannels } from './queue-channels.js';

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
  /** Most jobs this process runs at once (when `work`). Default 16. */
  concurrency?: number;
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
  /** The last connection error, for the message of `unavailable`. */
  private lastError = '';
  private worker: Worker<PromisedJob> | undefined;
  private events: QueueEvents | undefined;
  private runner: JobRunner | undefined;
  private store: PromiseStore | undefined;
  private unsubscribeCancel: (() => void) | undefined;
  private readonly running = new Map<string, AbortController>();
  private readonly handedBack = new Set<string>();
  private readonly connecting = new Map<Redis, Promise<void>>();
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
    this.commands.on('error', (err: Error) => {
      this.lastError = err.message;
    });
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
      await this.redis(() =>
        this.queue.add('run', job, {
          jobId: job.token,
          attempts: ATTEMPTS,
          removeOnComplete: true,
          removeOnFail: true,
        }),
      );
    } catch (err) {
      this.channels.stop(job.token);
      throw err;
    }
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
    return { waiting, running: this.running.size };
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
    if (worker && this.running.size > 0) await within(worker, graceMs);
    for (const [token, controller] of this.running) {
      this.handedBack.add(token);
      controller.abort(new McpLiteError('unavailable', 'The worker is shutting down'));
    }
    // With Redis down, BullMQ waits for a connection forever: past a bound, its connections are dropped.
    if (worker && !(await within(worker, 5000))) drop(this.worker);
    if (this.events && !(await within(this.events.close(), 1000))) drop(this.events);
    await within(this.queue.close(), 1000);
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
    const controller = new AbortController();
    this.running.set(job.token, controller);
    let settlement: Settlement;
    try {
      settlement = await runner(job, controller.signal, (data) =>
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

  /**
   * Runs a Redis operation once `client` is ready; any failure becomes `unavailable`. Before its first
   * connection the client is waited for a little (`connectWaitMs`); a connection that is down fails at once.
   */
  private async redis<T>(op: () => Promise<T>, client: Redis = this.commands): Promise<T> {
    if (client.status === 'connecting' || client.status === 'connect') {
      // One wait per client, however many calls arrive while it connects.
      let wait = this.connecting.get(client);
      if (!wait) {
        wait = new Promise<void>((resolve) => {
          const done = () => {
            clearTimeout(timer);
            client.off('ready', done).off('error', done);
            this.connecting.delete(client);
            resolve();
          };
          const timer = setTimeout(done, this.options.connectWaitMs ?? 1000);
          client.once('ready', done).once('error', done);
        });
        this.connecting.set(client, wait);
      }
      await wait;
    }
    if (client.status !== 'ready') {
      const why = this.lastError ? `: ${this.lastError}` : ` (${client.status})`;
      throw unavailable(new Error(`cannot reach ${redactUrl(this.options.url)}${why}`));
    }
    try {
      return await op();
    } catch (err) {
      throw unavailable(err);
    }
  }
}

/** What a front answers when the queue's Redis fails: `unavailable`, the cause kept for the log. */
function unavailable(err: unknown): McpLiteError {
  return storeUnavailable(err, 'The work queue (Redis)');
}

/** Whether `p` settles within `ms`. */
async function within(p: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const done = new Promise<boolean>((r) => (timer = setTimeout(r, ms, false)));
  const settled = await Promise.race([
    p.then(
      () => true,
      () => true,
    ),
    done,
  ]);
  clearTimeout(timer);
  return settled;
}

/** Ends a BullMQ object's connections (its internals, best effort), so that none keeps reconnecting. */
function drop(owner: unknown): void {
  const backend = (owner as { backend?: Record<string, { _client?: { disconnect(): void } } | undefined> })
    .backend;
  for (const c of [backend?.connection, backend?.blockingConnection]) c?._client?.disconnect();
}
