import { McpLiteError } from '../errors.js';

/**
 * The `jti` values of DPoP proofs seen lately (RFC 9449 section 11.1), kept per caller so that a proof is taken
 * once. A proof is acceptable for a fixed while after it is first seen (its `iat` window), so each entry expires a
 * fixed time after it was recorded: entries expire in the order they were recorded, and one queue drops them in
 * that order without scanning. Both bounds are the recording caller's error when full (`resource_exhausted` for
 * its own, `unavailable` for the whole cache): no live entry of anyone is ever evicted for a newcomer, since an
 * evicted `jti` is a replay let through.
 */

/** Bounds of the replay cache. */
export interface DpopReplayLimits {
  /** Most `jti` values kept at once, every caller together. */
  maxEntries: number;
  /** Most kept for one caller. */
  maxEntriesPerCaller: number;
  /** How long a recorded `jti` is kept, in ms: at least as long as a proof stays acceptable. */
  ttlMs: number;
}

interface Recorded {
  caller: string;
  jti: string;
  until: number;
}

/** Remembers proofs' `jti` per caller, bounded. */
export class DpopReplayCache {
  private readonly byCaller = new Map<string, Set<string>>();
  /** Every entry in the order recorded, which is also the order they expire in. */
  private queue: Recorded[] = [];
  private head = 0;

  constructor(
    private readonly limits: DpopReplayLimits,
    private readonly now: () => number = Date.now,
  ) {}

  /** How many `jti` values are kept now. */
  get size(): number {
    return this.queue.length - this.head;
  }

  /**
   * Records `jti` for `caller`: false when the caller already presented it (a replay). Throws when a bound is
   * full of entries that are still live.
   */
  record(caller: string, jti: string): boolean {
    const now = this.now();
    this.expire(now);
    const seen = this.byCaller.get(caller);
    if (seen?.has(jti)) return false;
    const perCaller = this.limits.maxEntriesPerCaller;
    if (seen && seen.size >= perCaller) {
      throw new McpLiteError(
        'resource_exhausted',
        `Too many DPoP proofs from this caller lately (at most ${perCaller}): slow down`,
        { limit: perCaller },
      );
    }
    if (this.size >= this.limits.maxEntries) {
      throw new McpLiteError('unavailable', 'Too many DPoP proofs held for replay checks: retry shortly');
    }
    if (seen) seen.add(jti);
    else this.byCaller.set(caller, new Set([jti]));
    this.queue.push({ caller, jti, until: now + this.limits.ttlMs });
    return true;
  }

  /** Drops the entries whose time has passed, oldest first; compacts the queue once half of it is spent. */
  private expire(now: number): void {
    while (this.head < this.queue.length && this.queue[this.head]!.until <= now) {
      const { caller, jti } = this.queue[this.head]!;
      this.head++;
      const seen = this.byCaller.get(caller);
      seen?.delete(jti);
      if (seen?.size === 0) this.byCaller.delete(caller);
    }
    if (this.head > 1024 && this.head * 2 > this.queue.length) {
      this.queue = this.queue.slice(this.head);
      this.head = 0;
    }
  }
}
