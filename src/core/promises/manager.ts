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
  logger: Logger;
}

/** Longest time `redeem` may wait for the work before answering with a fresh promise. */
export const MAX_REDEEM_WAIT_MS = 30_000;

/**
 * Runs promised work and answers `redeem` and `cancel`. The store holds the only state; this replica only
 * remembers which work it runs itself, so that a cancel (from any replica, via the store) can abort it.
 */
export class PromiseManager {
  private readonly running = new Map<string, AbortController>();
  private readonly unsubscribe: () => void;

  constructor(private readonly options: PromiseManagerOptions) {
    this.unsubscribe = options.store.onCancel((token) => {
      this.running.get(token)?.abort(new McpLiteError('cancelled', 'The promise was cancelled'));
    });
  }

  /** How long a promise can be redeemed after it was made, in ms (the tasks extension reports it as `ttlMs`). */
  get ttlMs(): number {
    return this.options.ttlMs;
  }

  /** How many promised calls this replica is running now. */
  get runningCount(): number {
    return this.running.size;
  }

  /**
   * Turns running work into a promise: stores a pending record, then settles it when `work` ends.
   * `controller` aborts the work on cancel.
   */
  async register(
    tool: string,
    estimateMs: number,
    controller: AbortController,
    work: Promise<Settlement>,
  ): Promise<PromiseOutcome> {
    const record = await this.create(tool, estimateMs);
    const { token } = record;
    this.running.set(token, controller);
    work
      .then((settlement) => this.options.store.settle(token, settlement))
      .catch((err) => this.options.logger.error({ err, token }, 'promise settlement failed'))
      .finally(() => this.running.delete(token));
    return {
      type: 'promise',
      token,
      estimatedCompletion: new Date(record.estimatedCompletion).toISOString(),
    };
  }

  /**
   * A promise that is settled from the start, for an outcome a long-running tool reaches without running work
   * (core asking again for the open inputs of an elicitation). Settled before it is returned, so the first
   * `redeem` (or tasks/get) already sees the outcome.
   */
  async settled(tool: string, settlement: Settlement): Promise<PromiseOutcome> {
    const record = await this.create(tool, 0);
    await this.options.store.settle(record.token, settlement);
    return {
      type: 'promise',
      token: record.token,
      estimatedCompletion: new Date(record.estimatedCompletion).toISOString(),
    };
  }

  /** The final outcome of a promise, or a fresh promise when it is still running (after waiting up to waitMs). */
  async redeem(
    token: unknown,
    waitMs: number,
    signal?: AbortSignal,
  ): Promise<{ outcome: Outcome; processingTimeMs: number }> {
    let record = await this.find(token);
    if (record.status === 'pending' && waitMs > 0) {
      record =
        (await this.options.store.waitSettled(record.token, Math.min(waitMs, MAX_REDEEM_WAIT_MS), signal)) ??
        record;
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
  async cancel(token: unknown): Promise<{ cancelled: boolean; status: string }> {
    const record = await this.find(token);
    if (record.status !== 'pending') return { cancelled: false, status: record.status };
    const cancelled = await this.options.store.cancel(record.token);
    return { cancelled, status: cancelled ? 'cancelled' : 'settled' };
  }

  /** The stored record of a live promise (for bindings that show promise state, e.g. MCP tasks); rejects like redeem. */
  record(token: unknown): Promise<PromiseRecord> {
    return this.find(token);
  }

  /** Aborts all local work (shutdown). */
  abortAll(reason: unknown): void {
    for (const c of this.running.values()) c.abort(reason);
  }

  /** Stops listening for cancellations. */
  close(): void {
    this.unsubscribe();
  }

  /** Stores a new pending promise under a fresh token (drawing again on the rare collision) and returns it. */
  private async create(tool: string, estimateMs: number): Promise<PromiseRecord> {
    const now = Date.now();
    const record: PromiseRecord = {
      token: '',
      tool,
      status: 'pending',
      createdAt: now,
      expiresAt: now + this.options.ttlMs,
      estimatedCompletion: now + estimateMs,
    };
    for (let attempt = 0; ; attempt++) {
      record.token = newPromiseToken();
      if (await this.options.store.create(record)) return record;
      if (attempt >= 3) throw new McpLiteError('internal', 'Could not allocate a promise token');
    }
  }

  private async find(token: unknown): Promise<PromiseRecord> {
    if (!isWellFormedToken(token)) {
      throw new McpLiteError('invalid_params', 'Malformed promise token', { reason: 'malformed' });
    }
    const record = await this.options.store.get(token);
    if (!record) throw new McpLiteError('promise_not_found', 'Unknown promise token', { reason: 'unknown' });
    if (record.expiresAt <= Date.now()) {
      throw new McpLiteError('promise_expired', 'The promise has expired', { reason: 'expired' });
    }
    return record;
  }
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
