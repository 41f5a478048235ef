import { McpLiteError } from './errors.js';
import { KeyedListeners } from './keyed-listeners.js';
import { LazyAbort } from './lazy-abort.js';
import type { Logger } from './logger.js';
import { silentLogger } from './logger.js';
import type { PromiseStore, Settlement } from './promises/store.js';
import type { JobRunner, PromisedJob, WorkQueue, WorkQueueStats } from './work-queue.js';

/** Options of the in-process work queue. */
export interface LocalWorkQueueOptions {
  /** How many jobs run at once; the others wait in order. Default 64. */
  concurrency?: number;
  /** Most jobs waiting; past it `submit` refuses with `resource_exhausted`. Default 10 000. */
  maxWaiting?: number;
  /** Where a failed settlement is logged. */
  logger?: Logger;
}

interface Waiting {
  job: PromisedJob;
  onPartial: ((data: unknown) => void | Promise<void>) | undefined;
}

/**
 * The embedded default work queue: promised work runs in this process, at most `concurrency` jobs at once, so that
 * a flood of long-running calls queues instead of running (and allocating) all at once. Jobs do not survive the
 * process; a shared queue (BullMQ, `mcplite/redis`) does that.
 */
export class LocalWorkQueue implements WorkQueue {
  private readonly concurrency: number;
  private readonly maxWaiting: number;
  private readonly logger: Logger;
  private readonly waiting: Waiting[] = [];
  private readonly running = new Map<string, LazyAbort>();
  /** Streaming redeems waiting on a job, by token (dropped when the job ends). */
  private readonly watchers = new KeyedListeners<unknown>();
  private runner: JobRunner | undefined;
  private store: PromiseStore | undefined;
  private unsubscribe: (() => void) | undefined;

  constructor(options: LocalWorkQueueOptions = {}) {
    this.concurrency = Math.max(1, options.concurrency ?? 64);
    this.maxWaiting = options.maxWaiting ?? 10_000;
    this.logger = options.logger ?? silentLogger;
  }

  bind(runner: JobRunner, store: PromiseStore): void {
    this.runner = runner;
    this.store = store;
    this.unsubscribe = store.onCancel((token) => {
      this.running.get(token)?.abort(new McpLiteError('cancelled', 'The promise was cancelled'));
      const i = this.waiting.findIndex((w) => w.job.token === token);
      if (i >= 0) this.waiting.splice(i, 1);
    });
  }

  async submit(job: PromisedJob, onPartial?: (data: unknown) => void | Promise<void>): Promise<void> {
    if (!this.runner) throw new McpLiteError('internal', 'The work queue is not bound to a server');
    if (this.waiting.length >= this.maxWaiting) {
      throw new McpLiteError('resource_exhausted', 'Too much promised work is waiting: try again later', {
        limit: this.maxWaiting,
        scope: 'server',
      });
    }
    this.waiting.push({ job, onPartial });
    this.pump();
  }

  async watch(
    token: string,
    _expiresAt: number,
    onPartial: (data: unknown) => void | Promise<void>,
  ): Promise<() => void> {
    const known = this.running.has(token) || this.waiting.some((w) => w.job.token === token);
    if (!known) return () => {};
    // A watcher's failure is its own: the job and the other watchers go on.
    return this.watchers.add(token, (data) => void Promise.resolve(onPartial(data)).catch(() => {}));
  }

  async stats(): Promise<WorkQueueStats> {
    return { waiting: this.waiting.length, running: this.running.size };
  }

  async close(): Promise<void> {
    this.unsubscribe?.();
    this.waiting.length = 0;
    const reason = new McpLiteError('unavailable', 'The server is shutting down');
    for (const c of this.running.values()) c.abort(reason);
  }

  private pump(): void {
    while (this.running.size < this.concurrency && this.waiting.length > 0) {
      const next = this.waiting.shift()!;
      // Work nobody can redeem any more is not started.
      if (next.job.expiresAt > Date.now()) this.start(next);
    }
  }

  private start({ job, onPartial }: Waiting): void {
    const controller = new LazyAbort();
    this.running.set(job.token, controller);
    // Partials go to the submitting call and to every streaming redeem that waits for this job.
    const fanout = (data: unknown): void | Promise<void> => {
      this.watchers.emit(job.token, data);
      return onPartial?.(data);
    };
    // The settling is an async function started only once the work has ended: while the work runs, its promise
    // holds just these two callbacks (a suspended async function, or a then/catch/finally chain, held more).
    this.runner!(job, controller, fanout).then(
      (settlement) => this.settle(job.token, settlement),
      (err) => this.failed(job.token, err),
    );
  }

  /** Stores a finished job's settlement, then ends the job. */
  private async settle(token: string, settlement: Settlement): Promise<void> {
    try {
      await this.store!.settle(token, settlement);
    } catch (err) {
      this.failed(token, err);
      return;
    }
    this.ended(token);
  }

  /** The job's settlement could not be stored: logged, and the job ends. */
  private failed(token: string, err: unknown): void {
    this.logger.error({ err, token }, 'promise settlement failed');
    this.ended(token);
  }

  /** A job is over: the next may start. */
  private ended(token: string): void {
    this.running.delete(token);
    this.watchers.delete(token);
    this.pump();
  }
}
