import type { Redis } from 'ioredis';
import { registerScript, runBatched } from './script-batch.js';

/**
 * A Lua script, one atomic step: how the Redis stores make every state change atomic across replicas. Calls go
 * to Redis in batches (script-batch.ts): all of a turn of the event loop as one EVALSHA of a script combining
 * every script, loaded on first use and again after a server restart or SCRIPT FLUSH (NOSCRIPT). Each call still
 * runs on its own keys and arguments and gets its own reply.
 */
export class LuaScript {
  /** Its number in the combined script. */
  private readonly id: number;

  /** `lua`: the script's text, reading its keys from KEYS and its arguments from ARGV. */
  constructor(readonly lua: string) {
    this.id = registerScript(this);
  }

  /** Runs the script with `keys` (KEYS) and `args` (ARGV); rejects with its error reply. */
  run(client: Redis, keys: readonly string[], args: readonly (string | number)[]): Promise<unknown> {
    return runBatched(client, this.id, keys, args);
  }
}

/**
 * The error replies of a script refusing a change because a bound is reached, by whose bound it is: the caller's
 * (its quota of promises, sessions or tasks), the store's, or the session's (its subscriptions).
 */
export const FULL = {
  caller: 'MCPLITE_CALLER_FULL',
  server: 'MCPLITE_STORE_FULL',
  session: 'MCPLITE_SUBS_FULL',
} as const;

/** Whose bound a script's error reply (`FULL`) says was reached; undefined for any other failure. */
export function refusedBound(err: unknown): keyof typeof FULL | undefined {
  const message = err instanceof Error ? err.message : '';
  for (const bound of ['caller', 'server', 'session'] as const)
    if (message.includes(FULL[bound])) return bound;
  return undefined;
}

/**
 * `op` (a script's run) with a refusal it replied (`FULL`) turned into `refuse(bound)`, the caller's
 * `resource_exhausted`; any other failure goes on as it is (`withRedis` makes it `unavailable`).
 */
export async function refusing<T>(op: Promise<T>, refuse: (bound: keyof typeof FULL) => Error): Promise<T> {
  try {
    return await op;
  } catch (err) {
    const bound = refusedBound(err);
    throw bound ? refuse(bound) : err;
  }
}

/** Lua: `now`, Redis server time in whole milliseconds (the clock PEXPIREAT uses). */
export const NOW = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
`;

/**
 * Lua: `keepUntil(key, at)` makes a sorted set live at least until `at` (epoch ms, the score of a member just
 * added): its expiry only ever moves later, so the set goes with its last member. It reads the set's TTL, not its
 * greatest score: reading that score (ZRANGE … WITHSCORES) cost Redis a third of a promise's creation. Needs
 * `now` (NOW) first.
 */
export const KEEP_UNTIL = `
local function keepUntil(key, at)
  if redis.call('PTTL', key) < tonumber(at) - now then redis.call('PEXPIREAT', key, at) end
end
`;

/**
 * Creates a pending promise with its quotas, in one step.
 * KEYS: record hash, owner's sorted set, the store's sorted set of every record, the sorted set of pending ones,
 * the sorted set of leases.
 * ARGV: record JSON (immutable fields), expiresAt, keepUntil (expiresAt + grace), maxPerOwner, maxPromises, token,
 * leaseUntil ('' for none), the job JSON ('' for none; kept in field `j` for `TAKE_OVER`).
 * A leased record is also in the leases set, scored by its lease, so that a sweep finds the lapsed ones.
 * The owner's and the pending set are scored by expiresAt, the store's by keepUntil; entries past their score are
 * trimmed here (Redis server time, the clock PEXPIREAT uses), so an expired promise frees its owner's quota
 * without a sweeper, and each set expires with its last member. Answers 1 (created), 0 (token taken) or an error
 * reply.
 */
export const CREATE = new LuaScript(`
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
${NOW}${KEEP_UNTIL}redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[4]) then return redis.error_reply('${FULL.caller}') end
redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', now)
if redis.call('ZCARD', KEYS[3]) >= tonumber(ARGV[5]) then return redis.error_reply('${FULL.server}') end
if ARGV[7] == '' then
  redis.call('HSET', KEYS[1], 'r', ARGV[1], 's', 'p')
else
  if ARGV[8] == '' then
    redis.call('HSET', KEYS[1], 'r', ARGV[1], 's', 'p', 'l', ARGV[7])
  else
    redis.call('HSET', KEYS[1], 'r', ARGV[1], 's', 'p', 'l', ARGV[7], 'j', ARGV[8])
  end
  redis.call('ZADD', KEYS[5], ARGV[7], ARGV[6])
end
redis.call('PEXPIREAT', KEYS[1], ARGV[3])
redis.call('ZADD', KEYS[2], ARGV[2], ARGV[6])
redis.call('ZADD', KEYS[3], ARGV[3], ARGV[6])
redis.call('ZREMRANGEBYSCORE', KEYS[4], '-inf', now)
redis.call('ZADD', KEYS[4], ARGV[2], ARGV[6])
keepUntil(KEYS[2], ARGV[2])
keepUntil(KEYS[3], ARGV[3])
keepUntil(KEYS[4], ARGV[2])
return 1
`);

/**
 * Ends a pending promise, exactly once: pending ('p') becomes settled ('s', with the settlement JSON) or
 * cancelled ('c'), drops the lease and the kept job, and publishes the change so that waiters on every replica
 * wake (and, for a cancel, every replica's cancel listeners).
 * KEYS: record hash, the sorted set of pending promises, the sorted set of leases. ARGV: new status, settlement
 * JSON ('' for none), the store's channel (cancels only), message, token, the promise's own channel.
 * Answers 1 when it changed the record, 0 when it was not pending (or is unknown).
 */
export const FINISH = new LuaScript(`
if redis.call('HGET', KEYS[1], 's') ~= 'p' then return 0 end
if ARGV[2] == '' then
  redis.call('HSET', KEYS[1], 's', ARGV[1])
else
  redis.call('HSET', KEYS[1], 's', ARGV[1], 'x', ARGV[2])
end
if redis.call('HDEL', KEYS[1], 'l', 'j') > 0 then redis.call('ZREM', KEYS[3], ARGV[5]) end
redis.call('ZREM', KEYS[2], ARGV[5])
redis.call('PUBLISH', ARGV[6], ARGV[4])
if ARGV[1] == 'c' then redis.call('PUBLISH', ARGV[3], ARGV[4]) end
return 1
`);

/**
 * Moves the lease of the leased pending promises among KEYS[2..] (record hashes) to ARGV[1] (epoch ms), in the
 * leases set (KEYS[1]) too; others (finished, unknown, taken over) are skipped, so a renewal can never bring back
 * a forgotten record or a lease another replica took over. ARGV[2]: the length of the record keys' prefix (what
 * precedes the token). Answers how many moved.
 */
export const RENEW = new LuaScript(`
local n = 0
local skip = tonumber(ARGV[2])
for i = 2, #KEYS do
  local key = KEYS[i]
  local r = redis.call('HMGET', key, 's', 'l')
  if r[1] == 'p' and r[2] then
    redis.call('HSET', key, 'l', ARGV[1])
    redis.call('ZADD', KEYS[1], ARGV[1], string.sub(key, skip + 1))
    n = n + 1
  end
end
return n
`);

/**
 * Takes over a pending promise whose lease ran out (ARGV[2] = '1': at once, handed back by its own replica), so
 * that exactly one replica does: drops the lease and the kept job and answers the job, or '' when none was kept.
 * A promise is leased once, at its creation: it can be taken over once. Answers nil when there is nothing to take
 * over; a token that is not (or no longer) leased leaves the leases set.
 * KEYS: record hash, the sorted set of leases. ARGV: now (epoch ms), force, token.
 */
export const TAKE_OVER = new LuaScript(`
local r = redis.call('HMGET', KEYS[1], 's', 'l', 'j')
if r[1] ~= 'p' or not r[2] then
  redis.call('ZREM', KEYS[2], ARGV[3])
  return nil
end
if ARGV[2] ~= '1' and tonumber(r[2]) > tonumber(ARGV[1]) then return nil end
redis.call('HDEL', KEYS[1], 'l', 'j')
redis.call('ZREM', KEYS[2], ARGV[3])
return r[3] or ''
`);

/**
 * Token bucket: refills KEYS[1] (hash: t tokens, a last time in ms) by the time elapsed at ARGV[1] tokens per
 * second up to ARGV[2] (burst), takes one token when there is one, and keeps the key only as long as the bucket
 * needs to refill (a missing bucket is a full one). Time is Redis server time (see rate-limit-store.ts).
 * Answers 0 when a token was taken, else the whole milliseconds until one is there.
 */
export const TAKE = new LuaScript(`
local rate = tonumber(ARGV[1])
local burst = tonumber(ARGV[2])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + tonumber(t[2]) / 1000
local b = redis.call('HMGET', KEYS[1], 't', 'a')
local tokens = burst
if b[1] then
  local elapsed = math.max(0, now - tonumber(b[2]))
  tokens = math.min(burst, tonumber(b[1]) + elapsed * rate / 1000)
end
local wait = 0
if tokens >= 1 then
  tokens = tokens - 1
else
  wait = math.max(1, math.ceil((1 - tokens) * 1000 / rate))
end
redis.call('HSET', KEYS[1], 't', string.format('%.17g', tokens), 'a', string.format('%.17g', now))
redis.call('PEXPIRE', KEYS[1], math.max(1, math.ceil((burst - tokens) * 1000 / rate)))
return wait
`);

/**
 * How many promises are pending: the pending set (scored by expiresAt) trimmed of the expired, then counted.
 * KEYS: the sorted set of pending promises.
 */
export const COUNT_PENDING = new LuaScript(`${NOW}redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
return redis.call('ZCARD', KEYS[1])
`);
