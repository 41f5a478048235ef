import type { RateLimitStore } from '../core/rate-limit.js';

/** Options of the in-memory rate-limit store. */
export interface MemoryRateLimitStoreOptions {
  /**
   * Most callers tracked at once. A bucket that has refilled is the same as no bucket and is dropped to make room;
   * when every tracked caller is still limited, a new caller waits until one refills rather than evicting a live
   * bucket (which would hand its owner a fresh burst). Default 100 000.
   */
  maxCallers?: number;
}

interface Bucket {
  tokens: number;
  at: number;
}

/**
 * Token buckets in one process: each caller's bucket holds up to `burst` tokens and refills at `ratePerSecond`.
 * Synchronous, so that a rate-limited server adds no promise turn to a call. Buckets are not shared between
 * replicas; a shared store (Redis) does that.
 */
export class MemoryRateLimitStore implements RateLimitStore {
  private readonly buckets = new Map<string, Bucket>();
  private readonly maxCallers: number;
  // When a full map had no refilled bucket, the scan is not repeated before this time (a flood of new addresses
  // would otherwise cost a scan of every bucket each).
  private noRoomUntil = 0;

  constructor(options: MemoryRateLimitStoreOptions = {}) {
    this.maxCallers = options.maxCallers ?? 100_000;
  }

  /** How many callers have a bucket. */
  get size(): number {
    return this.buckets.size;
  }

  take(key: string, ratePerSecond: number, burst: number, nowMs: number): number {
    let bucket = this.buckets.get(key);
    if (bucket) {
      const refilled = bucket.tokens + ((nowMs - bucket.at) * ratePerSecond) / 1000;
      bucket.tokens = Math.min(burst, refilled);
      bucket.at = nowMs;
    } else {
      if (this.buckets.size >= this.maxCallers) {
        if (nowMs < this.noRoomUntil) return this.noRoomUntil - nowMs;
        const wait = this.makeRoom(ratePerSecond, burst, nowMs);
        if (wait > 0) {
          this.noRoomUntil = nowMs + wait;
          return wait;
        }
      }
      bucket = { tokens: burst, at: nowMs };
      this.buckets.set(key, bucket);
    }
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return 0;
    }
    return ((1 - bucket.tokens) * 1000) / ratePerSecond;
  }

  /** Drops refilled buckets; answers 0 when there is room now, else how long until the soonest refill. */
  private makeRoom(ratePerSecond: number, burst: number, nowMs: number): number {
    let soonest = Number.POSITIVE_INFINITY;
    for (const [key, b] of this.buckets) {
      const full = b.tokens + ((nowMs - b.at) * ratePerSecond) / 1000 >= burst;
      if (full) this.buckets.delete(key);
      else soonest = Math.min(soonest, ((burst - b.tokens) * 1000) / ratePerSecond - (nowMs - b.at));
    }
    return this.buckets.size < this.maxCallers ? 0 : Math.max(1, soonest);
  }
}
