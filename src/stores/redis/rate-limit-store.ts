import type { Redis } from 'ioredis';
import type { RateLimitStore } from '../../core/rate-limit.js';
import { type ConnectRedisOptions, quitRedis, storeClient, withRedis } from './connection.js';
import { TAKE } from './scripts.js';

/** Options of the Redis rate-limit store. Give `url` or `client`. */
export interface RedisRateLimitStoreOptions {
  /** Where Redis is; used when `client` is absent. */
  url?: string;
  /** A client to share (e.g. with the promise store); the store then does not close it. */
  client?: Redis;
  /** Prefix of every key; buckets live at `<prefix>rl:<caller key>`. Default `mcplite:`. */
  prefix?: string;
  /** Connection tuning for a store made from `url` (see `connectRedis`). */
  connection?: ConnectRedisOptions;
}

/**
 * Token buckets in Redis, shared by every replica: a caller gets the same rate however many replicas serve it.
 * Each `take` is one Lua script (refill by elapsed time, take one token, answer 0 or the wait), so two replicas
 * never spend one token twice. A bucket key expires once it would be full again: an idle caller costs nothing.
 *
 * Time: the script reads Redis server time (TIME) and ignores the `nowMs` it is given. The replicas' clocks
 * disagree by some milliseconds or more; a bucket refilled by one clock and then by another that is behind or ahead
 * would gain or lose tokens. One clock, the server's, keeps the arithmetic right whatever the replicas' skew.
 *
 * When Redis is down, `take` rejects with `unavailable` (503): it fails closed. Failing open would lift every
 * limit exactly when the system is degraded, and a deployment that configured a shared limiter expects it to hold;
 * the calls that need no state still fail only while Redis is away, and the store recovers by itself.
 */
export class RedisRateLimitStore implements RateLimitStore {
  private readonly client: Redis;
  private readonly ownsClient: boolean;
  private readonly prefix: string;

  constructor(options: RedisRateLimitStoreOptions) {
    this.prefix = options.prefix ?? 'mcplite:';
    ({ client: this.client, owned: this.ownsClient } = storeClient('RedisRateLimitStore', options));
  }

  /** Takes one token from `key`'s bucket: 0 when allowed, else the milliseconds to wait. `_nowMs` is unused (see above). */
  take(key: string, ratePerSecond: number, burst: number, _nowMs: number): Promise<number> {
    return withRedis(this.client, async () => {
      const wait = await TAKE.run(this.client, [`${this.prefix}rl:${key}`], [ratePerSecond, burst]);
      return Number(wait);
    });
  }

  /** Closes the connection when the store opened it. */
  async close(): Promise<void> {
    if (this.ownsClient) await quitRedis(this.client);
  }
}
