import { asErrorCode, McpLiteError, toMcpLiteError } from '../errors.js';
import type { Logger } from '../logger.js';
import type { Outcome, PromiseOutcome } from '../outcomes.js';
import type { PromiseRecord, PromiseStore, Settlement } from './store.js';
import { isWellFormedToken, newPromiseToken } from './token.js';

/** Tuning of promise handling. */
export interface PromiseManagerOptions {
  store: PromiseStore;
  /** How long a promise can be redeemed after it was made. */
  ttlMs: number;
  /** Most unexpired promises one caller (`callerKey`) may hold. */
  maxPerOwner: number;
  /** How long a lease on in-process work lasts; renewed every third of it while the work runs. */
  leaseMs: number;
  logger: Logger;
}

/** Longest time `redeem` may wait for the work before answering with a fresh promise. */
export const MAX_REDEEM_WAIT_MS = 30_000;

/** The failure a promise settles in when the replica running its work died (its lease ran out). */
export const WORKER_LOST: Settlement = {
  outcome: {
    type: 'failure',
    code: 'worker_lost',
    message: 'The server running this work stopped before it finished; call the tool again',
  },
  processingTimeMs: 0,
};

/**
 * Runs promised work and answers `redeem` and `cancel`. The store holds the only state; this replica only
 * remembers which work it runs itself, so that a cancel (from any replica, via the store) can abort it, and so that
 * it can renew the leases that tell other replicas the work is still alive.
 */
export class PromiseManager {
  private readonly running = new Map<string, AbortController>();
  private readonly unsubscribe: () => void;
  private leaseTimer: NodeJS.Timeout | undefined;

  constructor(private readonly options: PromiseManagerOptions) {
    this.unsubscribe = options.store.onCancel((token) => {
      this.running.get(token)?.abort(new McpLiteError('cancelled', 'The promise was cancelled'));
    });
  }

  /** How long a promise can be redeemed after it was made, in ms (the tasks extension reports it as `ttlMs`). */
  get ttlMs(): number {
    return this.options.ttlMs;
  }

  /** How many promised calls this replica is running now (in process, outside a work queue). */
  get runningCount(): number {
    return this.running.size;
  }

  /**
   * Turns work running in this process into a promise of `owner` (`callerKey`): stores a pending record under a
   * lease, then settles it when `work` ends. `controller` aborts the work on cancel.
   */
  async register(
    tool: string,
    estimateMs: number,
    controller: AbortController,
    work: Promise<Settlement>,
    owner = 'anonymous',
  ): Promise<PromiseOutcome> {
    const record = await this.create(tool, estimateMs, owner, true);
    const { token } = record;
    this.running.set(token, controller);
    this.startLeases();
    work
      .then((settlement) => this.options.store.settle(token, settlement))
      .catch((err) => this.options.logger.error({ err, token }, 'promise settlement failed'))
      .finally(() => this.running.delete(token));
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
   * `caller` (`callerKey`) must be allowed to see it (see `visibleTo`).
   */
  async redeem(
    token: unknown,
    waitMs: number,
    signal?: AbortSignal,
    caller?: string,
  ): Promise<{ outcome: Outcome; processingTimeMs: number }> {
    let record = await this.find(token, caller);
    if (record.status === 'pending' && waitMs > 0) {
      const waited = Math.min(waitMs, MAX_REDEEM_WAIT_MS);
      record = (await this.options.store.waitSettled(record.token, waited, signal)) ?? record;
      record = await this.checkLease(record);
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
    if ('error' in settlement) {
      const e = settlement.error;
      throw new McpLiteError(asErrorCode(e.code), e.message, e.data);
    }
    return { outcome: settlement.outcome, processingTimeMs: settlement.processingTimeMs };
  }

  /** Cancels pending work (aborting it wherever it runs); says what state the promise was in. */
  async cancel(token: unknown, caller?: string): Promise<{ cancelled: boolean; status: string }> {
    const record = await this.find(token, caller);
    if (record.status !== 'pending') return { cancelled: false, status: record.status };
    const cancelled = await this.options.store.cancel(record.token);
    return { cancelled, status: cancelled ? 'cancelled' : 'settled' };
  }

  /** The stored record of a live promise (for bindings that show promise state, e.g. MCP tasks); rejects like redeem. */
  record(token: unknown, caller?: string): Promise<PromiseRecord> {
    return this.find(token, caller);
  }

  /** Aborts all local work (shutdown). */
  abortAll(reason: unknown): void {
    for (const c of this.running.values()) c.abort(reason);
  }

  /** Stops listening for cancellations and renewing leases. */
  close(): void {
    this.unsubscribe();
    if (this.leaseTimer) clearInterval(this.leaseTimer);
    this.leaseTimer = undefined;
  }

  /** Stores a new pending promise under a fresh token (drawing again on the rare collision) and returns it. */
  private async create(
    tool: string,
    estimateMs: number,
    owner: string,
    leased: boolean,
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
      if (await this.options.store.create(record, quota)) return record;
      if (attempt >= 3) throw new McpLiteError('internal', 'Could not allocate a promise token');
    }
  }

  private async find(token: unknown, caller: string | undefined): Promise<PromiseRecord> {
    if (!isWellFormedToken(token)) {
      throw new McpLiteError('invalid_params', 'Malformed promise token', { reason: 'malformed' });
    }
    const record = await this.options.store.get(token);
    // Another principal's promise is answered exactly like a token that never existed.
    if (!record || (caller !== undefined && !visibleTo(record.owner, caller))) {
      throw new McpLiteError('promise_not_found', 'Unknown promise token', { reason: 'unknown' });
    }
    if (record.expiresAt <= Date.now()) {
      throw new McpLiteError('promise_expired', 'The promise has expired', { reason: 'expired' });
    }
    return this.checkLease(record);
  }

  /** A pending promise whose lease ran out lost the replica running it: settle it as `worker_lost` (once). */
  private async checkLease(record: PromiseRecord): Promise<PromiseRecord> {
    if (record.status !== 'pending' || record.leaseUntil === undefined || record.leaseUntil > Date.now()) {
      return record;
    }
    if (this.running.has(record.token)) return record;
    await this.options.store.settle(record.token, WORKER_LOST);
    return (await this.options.store.get(record.token)) ?? record;
  }

  /** Renews the leases of the work this replica runs, while it runs any. */
  private startLeases(): void {
    if (this.leaseTimer) return;
    this.leaseTimer = setInterval(
      () => {
        if (this.running.size === 0) {
          clearInterval(this.leaseTimer);
          this.leaseTimer = undefined;
          return;
        }
        this.options.store
          .renewLeases([...this.running.keys()], Date.now() + this.options.leaseMs)
          .catch((err) => this.options.logger.warn({ err }, 'could not renew promise leases'));
      },
      Math.max(10, Math.floor(this.options.leaseMs / 3)),
    );
    this.leaseTimer.unref();
  }
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
