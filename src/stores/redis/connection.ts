import { Redis, type RedisOptions } from 'ioredis';
import { McpLiteError } from '../../core/errors.js';
import type { Logger } from '../../core/logger.js';

/** Options of `connectRedis`, beside the URL. */
export interface ConnectRedisOptions {
  /**
   * Where connection changes are reported (lost, back): one line per change, never per failed attempt, and never
   * with the URL's password. Default: silent.
   */
  logger?: Pick<Logger, 'warn' | 'info'>;
  /** Most milliseconds between two reconnection attempts (the backoff doubles up to it, forever). Default 2000. */
  maxReconnectDelayMs?: number;
  /** A command without a reply after this many milliseconds fails (a hung or partitioned Redis). Default 2000. */
  commandTimeoutMs?: number;
  /** Anything else for ioredis; it overrides the tuned defaults (the subscriber connection uses this). */
  redis?: Partial<RedisOptions>;
}

/**
 * Opens an ioredis client tuned so that a Redis that is down fails fast and says so, and that comes back by
 * itself:
 * - `enableOfflineQueue: false`: a command sent while disconnected rejects at once instead of queueing (a
 *   queued call would hold a request until it times out somewhere far from the cause);
 * - `maxRetriesPerRequest: 0`: a command in flight when the connection drops rejects at once and is never sent
 *   again on reconnect. Replaying a state change whose reply was lost would make it answer "not pending" to the
 *   replica whose change it was; an honest `unavailable` is better;
 * - `connectTimeout` 3 s and `commandTimeout` (default 2 s) bound a black-holed or hung server;
 * - `retryStrategy`: reconnect forever with exponential backoff capped at `maxReconnectDelayMs`, plus jitter so
 *   that replicas do not reconnect in step.
 * The connection starts at once (`lazyConnect: false`).
 */
export function connectRedis(url: string, options: ConnectRedisOptions = {}): Redis {
  const cap = options.maxReconnectDelayMs ?? 2000;
  const client = new Redis(url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    connectTimeout: 3000,
    commandTimeout: options.commandTimeoutMs ?? 2000,
    lazyConnect: false,
    enableAutoPipelining: true,
    retryStrategy: (times) => Math.min(cap, 50 * 2 ** Math.min(times, 10)) + Math.floor(Math.random() * 50),
    ...options.redis,
  });
  watchConnection(client, options.logger, redactUrl(url));
  return client;
}

/**
 * A subscriber connection beside `client` (same server, same options otherwise). It never carries a request, so
 * it queues its SUBSCRIBE while disconnected and waits for the connection however long it takes (no command
 * timeout), and ioredis subscribes again after a reconnection. Its errors are silent: the client reports the
 * connection's state.
 */
export function redisSubscriber(client: Redis): Redis {
  const subscriber = client.duplicate({
    enableOfflineQueue: true,
    maxRetriesPerRequest: null,
    commandTimeout: undefined,
    lazyConnect: false,
  });
  subscriber.on('error', () => {});
  return subscriber;
}

/** True when the client can send commands now (its status is `ready`): for readiness probes and metrics. */
export function redisReady(client: Redis): boolean {
  return client.status === 'ready';
}

/**
 * The one error a store answers when Redis fails: `unavailable` (503 / UNAVAILABLE on the wires) with a short
 * reason, and the original error kept as `cause` for the log. An McpLiteError passes through unchanged. `what`
 * names the state that cannot be reached (the work queue says "The work queue (Redis)").
 */
export function storeUnavailable(err: unknown, what = 'The state store (Redis)'): McpLiteError {
  if (err instanceof McpLiteError) return err;
  return new McpLiteError('unavailable', `${what} is unavailable: ${shortReason(err)}`, undefined, {
    cause: err,
  });
}

/**
 * Runs one Redis operation, turning any failure into `storeUnavailable`. Before the first connection (a store
 * used right after it was made) it waits for the client to be ready, at most `readyWaitMs`; once the client has
 * been ready, a lost connection is not waited for: the command fails fast. `what` names the state in the
 * message (default "The state store (Redis)").
 */
export async function withRedis<T>(
  client: Redis,
  op: () => Promise<T>,
  readyWaitMs = 500,
  what?: string,
): Promise<T> {
  try {
    await untilReady(client, readyWaitMs);
    return await op();
  } catch (err) {
    throw storeUnavailable(err, what);
  }
}

/**
 * `withRedis` for an operation that would otherwise wait for a connection by itself (BullMQ does, forever): once
 * the first wait is over, a client that is not ready fails at once, saying why (its last connection error).
 * `what` names the state in the message (see `storeUnavailable`).
 */
export function withReadyRedis<T>(
  client: Redis,
  op: () => Promise<T>,
  what: string,
  readyWaitMs = 500,
): Promise<T> {
  const guarded = () => {
    if (client.status === 'ready') return op();
    const why = lastErrors.get(client);
    throw new Error(`cannot reach Redis${why ? `: ${why}` : ` (${client.status})`}`);
  };
  return withRedis(client, guarded, readyWaitMs, what);
}

/** Where a store's Redis is: a shared `client`, or a `url` to open one with `connectRedis`. */
export interface RedisStoreConnection {
  url?: string;
  client?: Redis;
  connection?: ConnectRedisOptions;
}

/**
 * The client a store uses and whether it owns it: the shared `client` when given (the store neither tunes nor
 * closes it), else one opened from `url`. `store` names the store in the error when both are missing.
 */
export function storeClient(store: string, options: RedisStoreConnection): { client: Redis; owned: boolean } {
  if (options.client) return { client: options.client, owned: false };
  if (options.url) return { client: connectRedis(options.url, options.connection), owned: true };
  throw new McpLiteError('invalid_request', `${store} needs a url or a client`);
}

/** QUIT when connected (pending replies arrive first), else drop the connection and its reconnection timer. */
export async function quitRedis(client: Redis): Promise<void> {
  if (client.status === 'end') return;
  try {
    if (client.status !== 'ready') throw new Error('not connected');
    await client.quit();
  } catch {
    client.disconnect();
  }
}

/** The URL without its password (and user), fit for a log line. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    if (u.username) u.username = '***';
    return u.toString();
  } catch {
    return 'redis://(unparsable URL)';
  }
}

// One shared wait per client for its first connection, so that many calls made at start add one listener.
const firstReady = new WeakMap<Redis, Promise<void>>();
// Clients that have been ready once: from then on a command never waits for a reconnection.
const everReady = new WeakSet<Redis>();
// The last connection error of each watched client: for the log when it is lost, and for `withReadyRedis`.
const lastErrors = new WeakMap<Redis, string>();

/**
 * True while a client is making its first connection (it was never seen ready): the store's operations wait for
 * it then (`withRedis`), where a client that was ready and lost its connection fails fast.
 */
export function redisStarting(client: Redis): boolean {
  if (client.status === 'ready') everReady.add(client);
  return (
    !everReady.has(client) &&
    (client.status === 'wait' || client.status === 'connecting' || client.status === 'connect')
  );
}

function untilReady(client: Redis, maxMs: number): Promise<void> | undefined {
  if (client.status === 'ready') {
    everReady.add(client);
    return undefined;
  }
  if (everReady.has(client) || (client.status !== 'connecting' && client.status !== 'connect'))
    return undefined;
  let wait = firstReady.get(client);
  if (!wait) {
    wait = new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        client.off('ready', done);
        client.off('end', done);
        firstReady.delete(client);
        resolve();
      };
      const timer = setTimeout(done, maxMs);
      timer.unref();
      client.once('ready', done);
      client.once('end', done);
    });
    firstReady.set(client, wait);
  }
  return wait;
}

/** Logs the loss and the return of the connection once each, and keeps ioredis from printing its own errors. */
function watchConnection(client: Redis, logger: ConnectRedisOptions['logger'], where: string): void {
  let up = false;
  client.on('error', (err: unknown) => {
    lastErrors.set(client, shortReason(err));
  });
  client.on('ready', () => {
    everReady.add(client);
    if (!up) logger?.info({ redis: where }, 'Redis connection ready');
    up = true;
  });
  client.on('close', () => {
    const reason = lastErrors.get(client) ?? 'connection closed';
    if (up) logger?.warn({ redis: where, reason }, 'Redis connection lost');
    up = false;
  });
}

/** The first line of an error's message, bounded, with anything that looks like URL credentials removed. */
function shortReason(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  const line = (message.split('\n')[0] ?? '').replace(/\/\/[^@/\s]*@/g, '//***@');
  return line.length > 120 ? `${line.slice(0, 117)}...` : line || 'unknown error';
}
