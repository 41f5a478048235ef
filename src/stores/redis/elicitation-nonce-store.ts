import type { Redis } from 'ioredis';
import type { ElicitationNonceStore } from '../../core/elicitation-nonces.js';
import { tooManyElicitationAnswers } from '../bound-errors.js';
import { type ConnectRedisOptions, quitRedis, storeClient, withRedis } from './connection.js';
import { FULL, LuaScript, NOW, refusing } from './scripts.js';

/** Options of the Redis store of used elicitation nonces. Give `url` or `client`. */
export interface RedisElicitationNonceStoreOptions {
  /** Where Redis is; used when `client` is absent. */
  url?: string;
  /** A client to share (e.g. with the promise store); the store then does not close it. */
  client?: Redis;
  /** Prefix of every key: nonces live at `<prefix>en:<nonce>`. Default `mcplite:`. */
  prefix?: string;
  /** Most nonces one caller may have remembered at once (until their states expire). Default 1 000. */
  maxPerCaller?: number;
  /** Most nonces remembered at once in all. Default 1 000 000. */
  maxNonces?: number;
  /** Connection tuning for a store made from `url` (see `connectRedis`). */
  connection?: ConnectRedisOptions;
}

/**
 * How long past its state's expiry a nonce is kept: the replicas' clocks, which judge expiry, may be behind
 * Redis's, which forgets the nonce; a replica whose clock lags still finds it while it takes the state as live.
 */
const CLOCK_SKEW_MS = 60_000;

/**
 * Records a nonce, one atomic step. KEYS: the nonce's key, the caller's sorted set of its nonces, the set of all
 * nonces (both scored by expiry). ARGV: expiry (epoch ms, already past the state's by CLOCK_SKEW_MS), the
 * caller's bound, the total bound, the nonce.
 * Expired members are trimmed first, so the bounds count live nonces only; then SET NX PXAT: 1 when the nonce
 * is new, 0 when it was used. A bound reached is an error reply (`FULL`), and nothing is recorded.
 */
const USE_NONCE = new LuaScript(`${NOW}
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
local exp = math.max(tonumber(ARGV[1]), now + 1)
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[2]) then return redis.error_reply('${FULL.caller}') end
redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', now)
if redis.call('ZCARD', KEYS[3]) >= tonumber(ARGV[3]) then return redis.error_reply('${FULL.server}') end
redis.call('SET', KEYS[1], '1', 'PXAT', exp)
redis.call('ZADD', KEYS[2], exp, ARGV[4])
redis.call('ZADD', KEYS[3], exp, ARGV[4])
local last = tonumber(redis.call('ZRANGE', KEYS[2], -1, -1, 'WITHSCORES')[2])
redis.call('PEXPIREAT', KEYS[2], last)
last = tonumber(redis.call('ZRANGE', KEYS[3], -1, -1, 'WITHSCORES')[2])
redis.call('PEXPIREAT', KEYS[3], last)
return 1
`);

/**
 * Used elicitation nonces in Redis, shared by every replica: a state answered on one front is refused on all.
 * Each `use` is one Lua script (SET NX with the state's expiry, and the per-caller and total counts), so two
 * replicas given the same state at once never both accept it. When Redis is down, `use` rejects with
 * `unavailable`: an answer is never taken without its nonce recorded.
 */
export class RedisElicitationNonceStore implements ElicitationNonceStore {
  private readonly client: Redis;
  private readonly ownsClient: boolean;
  private readonly prefix: string;
  private readonly maxPerCaller: number;
  private readonly maxNonces: number;

  constructor(options: RedisElicitationNonceStoreOptions) {
    this.prefix = options.prefix ?? 'mcplite:';
    this.maxPerCaller = options.maxPerCaller ?? 1000;
    this.maxNonces = options.maxNonces ?? 1_000_000;
    ({ client: this.client, owned: this.ownsClient } = storeClient('RedisElicitationNonceStore', options));
  }

  use(nonce: string, expiresAt: number, caller: string): Promise<boolean> {
    return withRedis(this.client, async () => {
      const keys = [`${this.prefix}en:${nonce}`, `${this.prefix}en-caller:${caller}`, `${this.prefix}en-all`];
      const args = [Math.ceil(expiresAt) + CLOCK_SKEW_MS, this.maxPerCaller, this.maxNonces, nonce];
      const fresh = await refusing(USE_NONCE.run(this.client, keys, args), (bound) =>
        tooManyElicitationAnswers(
          bound === 'caller' ? 'caller' : 'server',
          bound === 'caller' ? this.maxPerCaller : this.maxNonces,
        ),
      );
      return Number(fresh) === 1;
    });
  }

  /** Closes the connection when the store opened it. */
  async close(): Promise<void> {
    if (this.ownsClient) await quitRedis(this.client);
  }
}
