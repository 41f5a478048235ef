import { createHash } from 'node:crypto';
import { Command, type Redis } from 'ioredis';

/**
 * Script calls batched per Redis client: every Lua script call a process makes in one turn of the event loop goes
 * to Redis as a single EVALSHA of one combined script that runs them in order, each as its own protected call.
 *
 * Why: under load a replica sends many small script calls at once (a promise's create, another's settle, a
 * session's append). ioredis costs about 8 µs of CPU per command, more than the script's own work in Redis; one
 * command for the whole batch cut a promise create + redeem pair's server CPU by about a fifth (`npm run bench`,
 * scale section). What stays the same per call: its own keys and arguments, its own atomic run (a batch runs as
 * one script, so no other client's command comes between its calls), its own answer or error reply (a bound
 * refused, a wrong type), and the order of script calls from one process. What differs: a failure of the whole
 * command (Redis down, timeout) rejects every call of the batch; and a plain command (HMGET, PUBLISH) sent in the
 * same turn as a script call may reach Redis before it, so the stores wait for a script's reply before any command
 * that depends on it.
 *
 * The combined script is made of every script registered so far (`registerScript`); one registered later makes a
 * new combined script, loaded on first use like any other (NOSCRIPT, then EVAL).
 */

/** What the batch needs of a script: its Lua text (the body of a function of KEYS and ARGV). */
export interface BatchableScript {
  readonly lua: string;
}

/** Most calls in one batch: a batch runs in Redis as one step, which must stay short. */
const MAX_CALLS = 100;
/** Most characters of keys and arguments in one batch (a job's arguments can be large). */
const MAX_CHARS = 512 * 1024;

const scripts: BatchableScript[] = [];
let combined: { count: number; lua: string; sha: string } | undefined;

/** Adds `script` to those the combined script can run; answers its number there. */
export function registerScript(script: BatchableScript): number {
  scripts.push(script);
  return scripts.length;
}

/**
 * Runs script number `id` (`registerScript`) with `keys` and `args` in this turn's batch of `client`; resolves
 * with what the script returned, or rejects with its error reply (the message as Redis gave it).
 */
export function runBatched(
  client: Redis,
  id: number,
  keys: readonly string[],
  args: readonly (string | number)[],
): Promise<unknown> {
  return new Promise((resolve, reject) => {
    let batch = batches.get(client);
    let chars = 0;
    for (const k of keys) chars += k.length;
    for (const a of args) chars += typeof a === 'string' ? a.length : 16;
    if (batch && (batch.calls.length >= MAX_CALLS || batch.chars + chars > MAX_CHARS)) {
      send(client, batch);
      batch = undefined;
    }
    if (!batch) {
      batch = { calls: [], chars: 0 };
      batches.set(client, batch);
      setImmediate(flush, client, batch);
    }
    batch.calls.push({ id, keys, args, resolve, reject });
    batch.chars += chars;
  });
}

interface Call {
  id: number;
  keys: readonly string[];
  args: readonly (string | number)[];
  resolve: (value: unknown) => void;
  reject: (err: Error) => void;
}

interface Batch {
  calls: Call[];
  chars: number;
}

/** Each client's batch of this turn, not sent yet. */
const batches = new WeakMap<Redis, Batch>();

function flush(client: Redis, batch: Batch): void {
  // Sent already, because it was full.
  if (batches.get(client) === batch) send(client, batch);
}

/**
 * Sends `batch` as one EVALSHA: KEYS are every call's keys in order; ARGV is the number of calls, then per call
 * its script number, key count, argument count and arguments. The reply has one [1, value] or [0, error] per call.
 */
function send(client: Redis, batch: Batch): void {
  // Always the client's current batch (runBatched sends it when full, flush at the end of the turn).
  batches.delete(client);
  const script = combinedScript();
  const { calls } = batch;
  // The command's arguments in one array, built in two passes (keys, then the rest) instead of joined copies.
  const argv: string[] = ['', ''];
  for (const call of calls) for (const k of call.keys) argv.push(k);
  argv[1] = String(argv.length - 2);
  argv.push(String(calls.length));
  for (const call of calls) {
    argv.push(String(call.id), String(call.keys.length), String(call.args.length));
    for (const a of call.args) argv.push(typeof a === 'string' ? a : String(a));
  }
  const command = (name: string, scriptArg: string) => {
    argv[0] = scriptArg;
    const c = new Command(name, argv, { replyEncoding: 'utf8' });
    // Straight to the connection: a batch is already one command per turn, and ioredis's auto-pipelining would
    // hold it for one more turn.
    void client.sendCommand(c);
    return c.promise;
  };
  command('evalsha', script.sha)
    .catch((err: unknown) => {
      // Not loaded in this Redis yet (or no longer: a restart, SCRIPT FLUSH): EVAL loads it.
      if (err instanceof Error && err.message.startsWith('NOSCRIPT')) return command('eval', script.lua);
      throw err;
    })
    .then(
      (reply) => {
        const results = reply as [number, unknown][];
        for (let i = 0; i < calls.length; i++) {
          const [ok, value] = results[i]!;
          if (ok === 1) calls[i]!.resolve(value);
          else calls[i]!.reject(new Error(String(value)));
        }
      },
      (err: unknown) => {
        const e = err instanceof Error ? err : new Error(String(err));
        for (const call of calls) call.reject(e);
      },
    );
}

/**
 * The combined script: each registered script as a function of its own KEYS and ARGV, called through pcall so
 * that one call's error reply or failure is that call's alone; nil becomes false (a table cannot hold nil).
 */
function combinedScript(): { lua: string; sha: string } {
  if (combined?.count === scripts.length) return combined;
  let lua = 'local S = {}\n';
  scripts.forEach((s, i) => {
    lua += `S[${i + 1}] = function(KEYS, ARGV)\n${s.lua}\nend\n`;
  });
  lua += `
local out = {}
local k, a = 0, 2
for i = 1, tonumber(ARGV[1]) do
  local id, nk, na = tonumber(ARGV[a]), tonumber(ARGV[a + 1]), tonumber(ARGV[a + 2])
  a = a + 3
  local keys, args = {}, {}
  for j = 1, nk do keys[j] = KEYS[k + j] end
  for j = 1, na do args[j] = ARGV[a + j - 1] end
  k = k + nk
  a = a + na
  local ok, v = pcall(S[id], keys, args)
  if not ok then out[i] = {0, type(v) == 'table' and v.err or tostring(v)}
  elseif type(v) == 'table' and v.err then out[i] = {0, v.err}
  elseif v == nil then out[i] = {1, false}
  else out[i] = {1, v} end
end
return out
`;
  combined = { count: scripts.length, lua, sha: createHash('sha1').update(lua).digest('hex') };
  return combined;
}
