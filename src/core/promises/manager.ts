import { asErrorCode, McpLiteError, toMcpLiteError } from '../errors.js';
import type { LazyAbort } from '../lazy-abort.js';
import type { CallerSource } from '../operation-caller.js';
import type { Outcome, PromiseOutcome } from '../outcomes.js';
import { linkToWork } from '../telemetry/work-tracing.js';
import { asToolError } from '../tool-errors.js';
import type { PromisedJob } from '../work-queue.js';
import { LeasedWork, type LeasedWorkOptions } from './leases.js';
import type { PromiseRecord, Settlement } from './store.js';
import { isWellFormedToken, newPromiseToken } from './token.js';

/** Tuning of promise handling (and of the work this replica runs under a lease: `LeasedWorkOptions`). */
export interface PromiseManagerOptions extends LeasedWorkOptions {
  /** How long a promise can be redeemed after it was made. */
  ttlMs: number;
  /** Most unexpired promises one caller (`callerKey`) may hold. */
  maxPerOwner: number;
  /** The key a caller's promises are kept under (`ToolServer.callerKey`): the owner `visibleTo` compares. */
  callerKey: (caller: CallerSource) => string;
  /**
   * Whether the caller may still use the tool behind a promise (`toolAccess`, core/promise-access.ts): throws
   * `promise_not_found` for a tool it may not see, `forbidden` for a scope it lacks. A token outlives the call that
   * made it, so this is asked again on every redeem, cancel and task read. Default: every tool.
   */
  mayUseTool?: (tool: string, caller: CallerSource) => void;
}

/** The job of leased work, as `register` keeps it with the promise: the token and expiry are added per promise. */
export type LeasedJob = Omit<PromisedJob, 'token' | 'expiresAt'>;

/**
 * The whole job of `record`'s promise: `job` with the promise's token and expiry. Copied key by key: on Node 20,
 * `{ ...job }` of objects of several shapes costs over a microsecond (Node 22: a few dozen ns).
 */
export function jobOf(job: LeasedJob, record: PromiseRecord): PromisedJob {
  // The usual keys in one literal, the optional ones added only where set: a copy with two keys added after it
  // kept them in a separate property array, which every queued job held for as long as it ran.
  const whole: PromisedJob = {
    token: record.token,
    tool: job.tool,
    arguments: job.arguments,
    config: job.config,
    requestId: job.requestId,
    expiresAt: record.expiresAt,
  };
  if (job.principal) whole.principal = job.principal;
  if (job.elicitation) whole.elicitation = job.elicitation;
  if (job.streaming) whole.streaming = job.streaming;
  if (job.trace) whole.trace = job.trace;
  return whole;
}

/** Longest time `redeem` may wait for the work before answering with a fresh promise. */
export const MAX_REDEEM_WAIT_MS = 30_000;

/**
 * Runs promised work and answers `redeem` and `cancel`. The store holds the only state; this replica only
 * remembers which work it runs itself, so that a cancel (from any replica, via the store) can abort it, and so that
 * it can renew the leases that tell other replicas the work is still alive.
 */
export class PromiseManager {
  /** The work this replica runs under a lease. */
  private readonly leased: LeasedWork;
  private readonly unsubscribe: () => void;

  constructor(private readonly options: PromiseManagerOptions) {
    this.leased = new LeasedWork(options);
    this.unsubscribe = options.store.onCancel((token) => {
      this.leased.abort(token, new McpLiteError('cancelled', 'The promise was cancelled'));
    });
  }

  /** How long a promise can be redeemed after it was made, in ms (the tasks extension reports it as `ttlMs`). */
  get ttlMs(): number {
    return this.options.ttlMs;
  }

  /** How many promised calls this replica is running now (in process, outside a work queue). */
  get runningCount(): number {
    return this.leased.size;
  }

  /**
   * Work run in this process as a promise of `owner` (`callerKey`): stores a pending record under a lease, then
   * starts `run` and settles the promise with what it ends in. `controller` aborts the work on cancel; when the
   * record cannot be stored, it is aborted too and the error thrown. `job`, when given, is kept with the promise
   * (`PromiseStore.create`), so that if this replica dies, another one can queue the work again (`requeue`).
   */
  async register(
    tool: string,
    estimateMs: number,
    controller: LazyAbort,
    run: (record: PromiseRecord) => Promise<Settlement>,
    owner = 'anonymous',
    job?: LeasedJob,
  ): Promise<PromiseOutcome> {
    let record: PromiseRecord;
    try {
      record = await this.create(tool, estimateMs, owner, true, job);
    } catch (err) {
      controller.abort(err);
      throw err;
    }
    this.leased.run(record.token, controller, () => run(record), job !== undefined);
    return toPromiseOutcome(record);
  }

  /**
   * A pending promise for work that a work queue will run (here or on a worker); the queue settles it. No lease:
   * the queue itself notices a worker that died (BullMQ's stalled jobs) and runs the work again.
   */
  pending(tool: string, estimateMs: number, owner: string): Promise<PromiseRecord> {
    return this.create(tool, estimateMs, owner, false);
  }

  /**
   * A promise that is settled from the start, for an outcome a long-running tool reaches without running work
   * (core asking again for the open inputs of an elicitation). Settled before it is returned, so the first
   * `redeem` (or tasks/get) already sees the outcome.
   */
  async settled(tool: string, settlement: Settlement, owner = 'anonymous'): Promise<PromiseOutcome> {
    const record = await this.create(tool, 0, owner, false);
    await this.options.store.settle(record.token, settlement);
    return toPromiseOutcome(record);
  }

  /**
   * The final outcome of a promise, or a fresh promise when it is still running (after waiting up to waitMs).
   * `caller` must be allowed to reach it (see `find`). `signal` gives the signal that ends the wait early; it is
   * asked for only when the redeem has to wait.
   */
  async redeem(
    token: unknown,
    caller: CallerSource,
    waitMs: number,
    signal?: () => AbortSignal | undefined,
  ): Promise<{ outcome: Outcome; processingTimeMs: number }> {
    let record = await this.find(token, caller);
    if (record.status === 'pending' && waitMs > 0) {
      const waited = Math.min(waitMs, MAX_REDEEM_WAIT_MS);
      record = (await this.options.store.waitSettled(record.token, waited, signal?.())) ?? record;
      record = await this.leased.check(record);
    }
    if (record.status === 'cancelled') {
      return {
        outcome: {
          type: 'failure',
          code: 'cancelled',
          message: 'The promised work was cancelled before it finished',
        },
        processingTimeMs: 0,
      };
    }
    if (record.status === 'pending' || !record.settlement) {
      const now = Date.now();
      // A late estimate is pushed forward instead of lying that the work is done.
      const estimate = Math.max(record.estimatedCompletion, now + 1000);
      return {
        outcome: {
          type: 'promise',
          token: record.token,
          estimatedCompletion: new Date(estimate).toISOString(),
        },
        processingTimeMs: now - record.createdAt,
      };
    }
    const { settlement } = record;
    linkToWork(settlement.trace);
    if ('error' in settlement) {
      const e = settlement.error;
      // The work's own failure, as its call would have answered it (MCP: an isError result).
      throw asToolError(new McpLiteError(asErrorCode(e.code), e.message, e.data));
    }
    return { outcome: settlement.outcome, processingTimeMs: settlement.processingTimeMs };
  }

  /** Cancels pending work (aborting it wherever it runs); says what state the promise was in. */
  async cancel(token: unknown, caller: CallerSource): Promise<{ cancelled: boolean; status: string }> {
    const record = await this.find(token, caller);
    if (record.status !== 'pending') return { cancelled: false, status: record.status };
    const cancelled = await this.options.store.cancel(record.token);
    return { cancelled, status: cancelled ? 'cancelled' : 'settled' };
  }

  /** The stored record of a live promise (for bindings that show promise state, e.g. MCP tasks); rejects like redeem. */
  record(token: unknown, caller: CallerSource): Promise<PromiseRecord> {
    return this.find(token, caller);
  }

  /**
   * Shutdown: running work whose job the store keeps is handed back to the queue (another worker runs it); the
   * rest is aborted and settles with `reason`.
   */
  abortAll(reason: unknown): Promise<void> {
    return this.leased.abortAll(reason);
  }

  /** Stops listening for cancellations, renewing leases and sweeping. */
  close(): void {
    this.unsubscribe();
    this.leased.close();
  }

  /** Stores a new pending promise under a fresh token (drawing again on the rare collision) and returns it. */
  private async create(
    tool: string,
    estimateMs: number,
    owner: string,
    leased: boolean,
    job?: LeasedJob,
  ): Promise<PromiseRecord> {
    const now = Date.now();
    const record: PromiseRecord = {
      token: '',
      tool,
      status: 'pending',
      owner,
      createdAt: now,
      expiresAt: now + this.options.ttlMs,
      estimatedCompletion: now + estimateMs,
    };
    if (leased) record.leaseUntil = now + this.options.leaseMs;
    const quota = { maxPerOwner: this.options.maxPerOwner };
    for (let attempt = 0; ; attempt++) {
      record.token = newPromiseToken();
      const kept = job && JSON.stringify(jobOf(job, record));
      if (await this.options.store.create(record, quota, kept)) return record;
      if (attempt >= 3) throw new McpLiteError('internal', 'Could not allocate a promise token');
    }
  }

  /**
   * The one rule by which every way in (`redeem`, `cancel`, a streaming redeem, MCP tasks, on every binding) reaches
   * a promise: it is another principal's (`visibleTo`) or of a tool the caller may no longer use (`mayUseTool`),
   * and it is unknown or refused exactly as if the caller had called that tool.
   */
  private async find(token: unknown, caller: CallerSource): Promise<PromiseRecord> {
    if (!isWellFormedToken(token)) {
      throw new McpLiteError('invalid_params', 'Malformed promise token', { reason: 'malformed' });
    }
    const record = await this.options.store.get(token);
    // Another principal's promise is answered exactly like a token that never existed.
    if (!record || !visibleTo(record.owner, this.options.callerKey(caller))) throw unknownPromise();
    this.options.mayUseTool?.(record.tool, caller);
    if (record.expiresAt <= Date.now()) {
      throw new McpLiteError('promise_expired', 'The promise has expired', { reason: 'expired' });
    }
    return this.leased.check(record);
  }
}

/** A promise token this caller cannot reach: the same error whether it never existed or is someone else's. */
export function unknownPromise(): McpLiteError {
  return new McpLiteError('promise_not_found', 'Unknown promise token', { reason: 'unknown' });
}

/**
 * Whether `caller` may see a promise of `owner` (both `callerKey`s): a promise made by an authenticated principal
 * belongs to it alone; one made without authentication is bound to no one (the unguessable token is the
 * capability, and an address may change under NAT or a proxy).
 */
export function visibleTo(owner: string, caller: string): boolean {
  return !owner.startsWith('principal:') || owner === caller;
}

function toPromiseOutcome(record: PromiseRecord): PromiseOutcome {
  return {
    type: 'promise',
    token: record.token,
    estimatedCompletion: new Date(record.estimatedCompletion).toISOString(),
  };
}

/** Turns how work ended (an outcome, or a throwable) into what the store keeps. */
export function toSettlement(
  ended: { outcome: Outcome } | { error: unknown },
  processingTimeMs: number,
): Settlement {
  if ('outcome' in ended) {
    const outcome = ended.outcome as Exclude<Outcome, { type: 'promise' }>;
    return { outcome, processingTimeMs };
  }
  const e = toMcpLiteError(ended.error);
  return {
    error: { code: e.code, message: e.message, ...(e.data ? { data: e.data } : {}) },
    processingTimeMs,
  };
}
