import { FULL, KEEP_UNTIL, LuaScript, NOW } from './scripts.js';

/**
 * The Lua scripts of the Redis session store (`session-store.ts`): each state change is one atomic step, so that
 * the count bounds hold across replicas and a server request is answered exactly once. Keys under the store's
 * prefix `P`:
 * - `P s:<id>` hash: owner, kind, rev, caps, info, init, level, seen, evb (bytes of the event log), dialect ('' for
 *   MCP's own); TTL = idle;
 * - `P s:<id>:subs` set of subscribed URIs, `P s:<id>:ev` list of events (JSON), both with the hash's TTL;
 * - `P sessions:<kind>` and `P owner:<kind>:<owner>` sorted sets of live ids scored by expiry (the count bounds);
 * - `P srq:<request id>` a server request waiting for its response (TTL = its timeout);
 * - `P t:<task id>` task-resume data (JSON, expiring with the task), `P tasks` and `P towner:<owner>` its counts.
 * TOUCH and DELETE name the sorted sets from the prefix and the stored owner and kind (keys not declared: a
 * single Redis server or a Redis with one keyspace, not a Redis Cluster).
 */

/**
 * Creates a session within its bounds. KEYS: hash, kind's sorted set, owner's sorted set. ARGV: id, idleMs,
 * maxPerCaller, maxSessions, owner, kind, revision, caps JSON, info JSON, dialect ('' for none). Answers the
 * creation time.
 */
export const CREATE_SESSION = new LuaScript(`${NOW}
redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', now)
if redis.call('ZCARD', KEYS[3]) >= tonumber(ARGV[3]) then return redis.error_reply('${FULL.caller}') end
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[4]) then return redis.error_reply('${FULL.server}') end
local idle = tonumber(ARGV[2])
redis.call('HSET', KEYS[1], 'owner', ARGV[5], 'kind', ARGV[6], 'rev', ARGV[7], 'caps', ARGV[8], 'info', ARGV[9],
  'init', '0', 'seen', now, 'evb', 0, 'dialect', ARGV[10] or '')
redis.call('PEXPIRE', KEYS[1], idle)
for i = 2, 3 do
  redis.call('ZADD', KEYS[i], now + idle, ARGV[1])
  redis.call('PEXPIRE', KEYS[i], idle)
end
return now
`);

/**
 * Reads a session and marks it used (when ARGV[4], the caller, may see it). KEYS: hash. ARGV: id, idleMs, prefix,
 * caller ('' for anyone), touch ('1' or '0'). Answers false when unknown, else the fields owner, kind, rev, caps,
 * info, init, level, seen, dialect, then the subscriptions.
 */
export const READ_SESSION = new LuaScript(`
if redis.call('EXISTS', KEYS[1]) == 0 then return false end
local f = redis.call('HMGET', KEYS[1], 'owner', 'kind', 'rev', 'caps', 'info', 'init', 'level', 'seen', 'dialect')
local owner = f[1]
if ARGV[4] ~= '' and string.sub(owner, 1, 10) == 'principal:' and owner ~= ARGV[4] then return false end
if ARGV[5] == '1' then
  ${NOW}
  local idle = tonumber(ARGV[2])
  redis.call('HSET', KEYS[1], 'seen', now)
  f[8] = tostring(now)
  redis.call('PEXPIRE', KEYS[1], idle)
  redis.call('PEXPIRE', KEYS[1] .. ':subs', idle)
  redis.call('PEXPIRE', KEYS[1] .. ':ev', idle)
  local sets = { ARGV[3] .. 'sessions:' .. f[2], ARGV[3] .. 'owner:' .. f[2] .. ':' .. owner }
  for _, key in ipairs(sets) do
    redis.call('ZADD', key, now + idle, ARGV[1])
    redis.call('PEXPIRE', key, idle)
  end
end
local subs = redis.call('SMEMBERS', KEYS[1] .. ':subs')
for _, s in ipairs(subs) do f[#f + 1] = s end
for i = 1, 9 do if f[i] == false then f[i] = '' end end
return f
`);

/** Sets fields of a live session. KEYS: hash. ARGV: field, value, … */
export const UPDATE_SESSION = new LuaScript(`
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], unpack(ARGV))
return 1
`);

/** Adds a subscription within the bound. KEYS: hash, subs. ARGV: uri, maxSubscriptions. */
export const SUBSCRIBE = new LuaScript(`
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
if redis.call('SISMEMBER', KEYS[2], ARGV[1]) == 1 then return 1 end
if redis.call('SCARD', KEYS[2]) >= tonumber(ARGV[2]) then return redis.error_reply('${FULL.session}') end
redis.call('SADD', KEYS[2], ARGV[1])
local ttl = redis.call('PTTL', KEYS[1])
if ttl > 0 then redis.call('PEXPIRE', KEYS[2], ttl) end
return 1
`);

/**
 * Ends a session (when the caller may see it) and tells every replica. KEYS: hash. ARGV: id, prefix, caller ('' for
 * anyone), channel, message. Answers 1, or 0 when unknown.
 */
export const DELETE_SESSION = new LuaScript(`
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
local f = redis.call('HMGET', KEYS[1], 'owner', 'kind')
local owner = f[1]
if ARGV[3] ~= '' and string.sub(owner, 1, 10) == 'principal:' and owner ~= ARGV[3] then return 0 end
redis.call('DEL', KEYS[1], KEYS[1] .. ':subs', KEYS[1] .. ':ev')
redis.call('ZREM', ARGV[2] .. 'sessions:' .. f[2], ARGV[1])
redis.call('ZREM', ARGV[2] .. 'owner:' .. f[2] .. ':' .. owner, ARGV[1])
redis.call('PUBLISH', ARGV[4], ARGV[5])
return 1
`);

/** The live ids of a kind. KEYS: the kind's sorted set. */
export const LIVE_IDS = new LuaScript(`${NOW}
return redis.call('ZRANGEBYSCORE', KEYS[1], '(' .. now, '+inf')
`);

/**
 * Appends an event, dropping the oldest past the count or the bytes. KEYS: hash, events list. ARGV: entry JSON,
 * maxEvents, maxEventBytes.
 */
export const APPEND_EVENT = new LuaScript(`
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('RPUSH', KEYS[2], ARGV[1])
local bytes = redis.call('HINCRBY', KEYS[1], 'evb', string.len(ARGV[1]))
local n = redis.call('LLEN', KEYS[2])
while n > 0 and (n > tonumber(ARGV[2]) or bytes > tonumber(ARGV[3])) do
  local old = redis.call('LPOP', KEYS[2])
  bytes = redis.call('HINCRBY', KEYS[1], 'evb', -string.len(old))
  n = n - 1
end
local ttl = redis.call('PTTL', KEYS[1])
if ttl > 0 then redis.call('PEXPIRE', KEYS[2], ttl) end
return 1
`);

/** Hands a response to its waiter exactly once. KEYS: the request's key. ARGV: channel, message. */
export const DELIVER_RESPONSE = new LuaScript(`
if redis.call('DEL', KEYS[1]) == 1 then
  redis.call('PUBLISH', ARGV[1], ARGV[2])
  return 1
end
return 0
`);

/**
 * Checks the task bounds and, when ARGV[3] is given, keeps a new task. KEYS: the store's task set, the owner's.
 * ARGV: maxTasksPerCaller, maxTasks, task key ('' to only check), task id, data JSON, expiresAt.
 */
export const ADD_TASK = new LuaScript(`${NOW}${KEEP_UNTIL}
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[1]) then return redis.error_reply('${FULL.caller}') end
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[2]) then return redis.error_reply('${FULL.server}') end
if ARGV[3] == '' then return 0 end
redis.call('SET', ARGV[3], ARGV[5], 'PXAT', ARGV[6])
for i = 1, 2 do
  redis.call('ZADD', KEYS[i], ARGV[6], ARGV[4])
  keepUntil(KEYS[i], ARGV[6])
end
return 1
`);

/** Replaces a kept task's data and expiry. KEYS: task key, store's set, owner's set. ARGV: id, data, expiresAt. */
export const PUT_TASK = new LuaScript(`
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
${NOW}${KEEP_UNTIL}redis.call('SET', KEYS[1], ARGV[2], 'PXAT', ARGV[3])
for i = 2, 3 do
  redis.call('ZADD', KEYS[i], ARGV[3], ARGV[1])
  keepUntil(KEYS[i], ARGV[3])
end
return 1
`);
