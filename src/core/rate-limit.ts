import { DEFAULT_IPV6_CALLER_PREFIX } from './address-key.js';
import type { Principal } from './auth.js';
import { callerKey } from './caller.js';
import { McpLiteError } from './errors.js';

/**
 * Where token buckets live. `take` removes one token from `key`'s bucket (refilled at `ratePerSecond`, holding
 * at most `burst`) and answers 0 when the request may go, else the milliseconds until a token is there. A store
 * must do the refill-and-take atomically, so that replicas sharing it never let a caller through twice on one
 * token. The memory store answers synchronously, which keeps the call path free of promise turns.
 */
export interface RateLimitStore {
  take(key: string, ratePerSecond: number, burst: number, nowMs: number): number | Promise<number>;
  /** Releases what the store holds (timers, connections). */
  close?(): void | Promise<void>;
}

/** Options of per-caller rate limiting (`createServer({ rateLimit })`, `mcplite serve --rate-limit <n>`). */
export interface RateLimitOptions {
  /** Sustained requests per second each caller may make. */
  requestsPerSecond: number;
  /** How many requests a caller may make at once after being idle. Default `requestsPerSecond` (at least 1). */
  burst?: number;
  /** Where the buckets live. `createServer` defaults to a bounded in-memory store. */
  store?: RateLimitStore;
}

/** What identifies a caller (see `callerKey`). */
type Caller = { principal?: Principal | undefined; remoteAddress?: string | undefined };

/**
 * Per-caller token buckets, enforced by core on every tool call whatever the binding, so that a caller cannot
 * get more by switching wires. The caller is `callerKey` (the principal, else the peer address).
 */
export class RateLimiter {
  private readonly rate: number;
  private readonly burst: number;

  constructor(
    options: RateLimitOptions,
    private readonly store: RateLimitStore,
    /** Bits of an IPv6 address that make one caller (`callerKey`). */
    private readonly ipv6PrefixBits: number = DEFAULT_IPV6_CALLER_PREFIX,
  ) {
    if (!(options.requestsPerSecond > 0) || !Number.isFinite(options.requestsPerSecond)) {
      throw new McpLiteError('invalid_request', 'rateLimit.requestsPerSecond must be a positive number');
    }
    this.rate = options.requestsPerSecond;
    this.burst = Math.max(1, Math.floor(options.burst ?? options.requestsPerSecond));
  }

  /**
   * Takes a token for the caller, or throws `rate_limited` with `retryAfterMs`. Synchronous with a synchronous
   * store; with an asynchronous one the returned promise rejects instead.
   */
  admit(caller: Caller): void | Promise<void> {
    const wait = this.store.take(callerKey(caller, this.ipv6PrefixBits), this.rate, this.burst, Date.now());
    if (typeof wait === 'number') {
      if (wait > 0) throw rateLimited(wait);
      return;
    }
    return wait.then((ms) => {
      if (ms > 0) throw rateLimited(ms);
    });
  }

  /** Closes the store. */
  async close(): Promise<void> {
    await this.store.close?.();
  }
}

/**
 * The limiter of `ToolServerOptions.rateLimit`, counting IPv6 callers by `ipv6PrefixBits`; core has no default
 * store, so one must be given.
 */
export function rateLimiterOf(
  options: RateLimitOptions | undefined,
  ipv6PrefixBits: number = DEFAULT_IPV6_CALLER_PREFIX,
): RateLimiter | undefined {
  if (!options) return undefined;
  if (!options.store) throw new McpLiteError('invalid_request', 'rateLimit needs a store');
  return new RateLimiter(options, options.store, ipv6PrefixBits);
}

function rateLimited(waitMs: number): McpLiteError {
  const retryAfterMs = Math.max(1, Math.ceil(waitMs));
  return new McpLiteError('rate_limited', `Rate limit exceeded: retry in ${retryAfterMs} ms`, {
    retryAfterMs,
  });
}
