import type { Principal } from './auth.js';
import type { LazyAbort } from './lazy-abort.js';
import type { PromiseStore, Settlement } from './promises/store.js';
import type { ElicitationAnswers } from './tool.js';

/**
 * One piece of promised work (a call of a long-running tool), as plain JSON so that a queue can carry it to
 * another process: everything a worker needs to run the handler exactly as the front would have.
 */
export interface PromisedJob {
  /** The promise this work settles; also the job's id (a queue never holds two jobs for one promise). */
  token: string;
  /** The tool's name in the catalog. */
  tool: string;
  /** The validated arguments. */
  arguments: Record<string, unknown>;
  /** The caller, when authenticated (`ctx.principal`). */
  principal?: Principal;
  /** The config the handler sees (`ctx.config`). */
  config?: Readonly<Record<string, unknown>>;
  /** The verified elicitation answers, when the call answered an elicitation. */
  elicitation?: ElicitationAnswers;
  /** The binding's request id, for logs. */
  requestId?: string | number;
  /**
   * Whether the submitting call streams (`ctx.streaming`: among others, a generator that returns nothing then
   * answers null rather than the list of what it yielded). Partials are forwarded either way.
   */
  streaming?: boolean;
  /** The promise's expiry (epoch ms): work still waiting then is dropped, nobody can redeem it any more. */
  expiresAt: number;
  /**
   * The W3C trace context (`traceparent`, `tracestate`, `baggage`) of the call that made the promise, when it was
   * traced: the work runs as a span of that trace wherever it runs (`core/telemetry/work-tracing.ts`).
   */
  trace?: Record<string, string>;
}

/**
 * How a process runs a job (`ToolServer.runJob`): the handler, bounded by `maxRunMs`, ended as a settlement;
 * `abort` aborts it (a cancel, shutdown).
 */
export type JobRunner = (
  job: PromisedJob,
  abort: LazyAbort,
  onPartial?: (data: unknown) => void | Promise<void>,
) => Promise<Settlement>;

/** What a queue reports for metrics and health. */
export interface WorkQueueStats {
  /** Jobs accepted and not started yet (everywhere the queue can see). */
  waiting: number;
  /** Jobs running in this process. */
  running: number;
}

/** A place for one job in this process, taken with `WorkQueue.reserveLocal`. */
export interface LocalSlot {
  /** Forwards one partial result of the job to whoever watches it (`watch`, on any replica). */
  publish(token: string, data: unknown): void | Promise<void>;
  /** Frees the slot once the job has ended; `streamed`: it published partials (watchers are told it ended). */
  release(token: string | undefined, streamed: boolean): void;
}

/**
 * Where promised work goes. The default (`LocalWorkQueue`) runs it in this process, at most `concurrency` at once
 * and the rest waiting in order; a shared queue (BullMQ on Redis, `mcplite/redis`) lets any worker process run it.
 * Whoever runs a job settles its promise in the store (exactly once: the store's settle is atomic) and aborts it
 * when the store reports a cancel from any replica.
 */
export interface WorkQueue {
  /**
   * Called once by the ToolServer that submits to this queue: the store its promises live in, and how this
   * process runs a job (a queue that also works jobs here uses it).
   */
  bind(runner: JobRunner, store: PromiseStore): void;
  /**
   * Accepts a job; resolves once it is queued, not when it ends. Rejects with `resource_exhausted` when the queue
   * is full, or `unavailable` when it cannot be reached, so the caller gets a clear error rather than a promise
   * that cannot be kept. `onPartial`, when given, receives the job's partial results wherever it runs.
   */
  submit(job: PromisedJob, onPartial?: (data: unknown) => void | Promise<void>): Promise<void>;
  /**
   * Forwards the partial results of a job to `onPartial` while it runs, wherever it runs, until it ends, the
   * promise expires (`expiresAt`) or the returned function is called: a streaming `redeem` that waits for the work
   * sees its progress. Resolves at once with a no-op for a job that is not (or no longer) queued or running.
   */
  watch(
    token: string,
    expiresAt: number,
    onPartial: (data: unknown) => void | Promise<void>,
  ): Promise<() => void>;
  /** Jobs waiting and running. */
  stats(): Promise<WorkQueueStats>;
  /**
   * A shared queue whose process also works jobs may let a job run right where it was submitted, skipping the
   * queue's round trips: a slot when this process has one free (the job then runs under a lease, its job kept with
   * the promise, see `PromiseManager.register`), else undefined (the job goes through `submit`).
   */
  reserveLocal?(): LocalSlot | undefined;
  /**
   * Queues a job whose replica died mid-run, for any worker to run again; `handingBack`: this process stops and
   * gives back a job it was running (its own worker must not take it again).
   */
  requeue?(job: PromisedJob, handingBack?: boolean): Promise<void>;
  /** Aborts the jobs running here and releases connections. */
  close(): Promise<void>;
}
