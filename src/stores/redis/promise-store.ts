import { EventEmitter } from 'node:events';
import type { Redis } from 'ioredis';
import type {
  PromiseQuota,
  PromiseRecord,
  PromiseStatus,
  PromiseStore,
  Settlement,
} from '../../core/promises/store.js';
import { tooManyPromises } from '../bound-errors.js';
import {
  type ConnectRedisOptions,
  quitRedis,
  redisSubscriber,
  storeClient,
  withRedis,
} from './connection.js';
import { COUNT_PENDING, CREATE, FINISH, RENEW, refusing } from './scripts.js';

/** Options of the Redis promise store. Give `url` or `client`. */
export interface RedisPromiseStoreOptions {
  /** Where Redis is (`redis://[user:password@]host:port[/db]`, `rediss://` for TLS); used when `client` is absent. */
  url?: string;
  /** A client to share; the store then neither tunes nor closes it (it does open and close its subscriber). */
  client?: Redis;
  /** Prefix of every key and of the event channel, so that several servers can share one Redis. Default `mcplite:`. */
  prefix?: string;
  /**
   * How long after `expiresAt` a record is kept, so that redeeming says "expired" instead of "unknown". Redis
   * drops it then (key TTL). Default 10 min.
   */
  expiredGraceMs?: number;
  /** Most records held at once (any status, grace included); past it `create` is refused. Default 1 000 000. */
  maxPromises?: number;
  /** Connection tuning for a store made from `url` (see `connectRedis`). */
  connection?: ConnectRedisOptions;
}

const STATUS: Record<string, PromiseStatus> = { p: 'pending', s: 'settled', c: 'cancelled' };
const RESYNC = Symbol('resync');

/**
 * Promises in Redis, shared by every replica that uses the same Redis and prefix.
 *
 * Key layout (P = prefix):
 * - `P p:<token>`: a hash per promise: `r` the immutable fields as JSON, `s` the status (`p`/`s`/`c`), `l` the
 *   lease, `x` the settlement as JSON. It expires (PEXPIREAT) at `expiresAt + expiredGraceMs`: no sweeper.
 * - `P o:<owner>`: the owner's tokens scored by `expiresAt`, for the per-owner quota.
 * - `P all`: every token scored by when its record goes, for `maxPromises`.
 * - channel `P events`: `s:<token>` (settled) and `c:<token>` (cancelled).
 *
 * Every change is one Lua script (scripts.ts), so replicas never race. Waiting uses the channel: one subscriber
 * connection per store, fanned out locally. Every method rejects with `unavailable` at once when Redis is down,
 * and works again when ioredis has reconnected. Single Redis (or Sentinel) only: the scripts touch several keys
 * without a hash tag, which Redis Cluster would refuse.
 */
export class RedisPromiseStore implements PromiseStore {
  private readonly client: Redis;
  private readonly subscriber: Redis;
  private readonly ownsClient: boolean;
  private readonly prefix: string;
  private readonly channel: string;
  private readonly graceMs: number;
  private readonly maxPromises: number;
  private readonly events = new EventEmitter();
  private readonly cancelListeners = new Set<(token: string) => void>();
  private closed = false;

  constructor(options: RedisPromiseStoreOptions) {
    this.prefix = options.prefix ?? 'mcplite:';
    this.channel = `${this.prefix}events`;
    this.graceMs = options.expiredGraceMs ?? 600_000;
    this.maxPromises = options.maxPromises ?? 1_000_000;
    ({ client: this.client, owned: this.ownsClient } = storeClient('RedisPromiseStore', options));
    this.events.setMaxListeners(0);
    this.subscriber = redisSubscriber(this.client);
    this.subscriber.on('message', (channel: string, message: string) => this.onMessage(channel, message));
    this.subscriber.on('ready', () => void this.subscribe());
  }

  /** How many local listeners the waiters (`waitSettled` calls) hold right now: 0 when nobody waits. For tests. */
  get waiterCount(): number {
    let n = 0;
    for (const name of this.events.eventNames()) n += this.events.listenerCount(name);
    return n;
  }

  async create(record: PromiseRecord, quota: PromiseQuota): Promise<boolean> {
    const { token, status: _s, leaseUntil, settlement: _x, ...fixed } = record;
    const keepUntil = record.expiresAt + this.graceMs;
    return withRedis(this.client, async () => {
      const created = await refusing(
        CREATE.run(
          this.client,
          [
            this.recordKey(token),
            `${this.prefix}o:${record.owner}`,
            `${this.prefix}all`,
            `${this.prefix}pending`,
          ],
          [
            JSON.stringify(fixed),
            record.expiresAt,
            keepUntil,
            bound(quota.maxPerOwner),
            bound(this.maxPromises),
            token,
            leaseUntil ?? '',
          ],
        ),
        (full) =>
          full === 'caller'
            ? tooManyPromises('caller', quota.maxPerOwner)
            : tooManyPromises('server', this.maxPromises),
      );
      return created === 1;
    });
  }

  async get(token: string): Promise<PromiseRecord | undefined> {
    const [r, s, l, x] = await withRedis(this.client, () =>
      this.client.hmget(this.recordKey(token), 'r', 's', 'l', 'x'),
    );
    if (!r || !s) return undefined;
    const record: PromiseRecord = {
      ...(JSON.parse(r) as Omit<PromiseRecord, 'token' | 'status'>),
      token,
      status: STATUS[s] ?? 'pending',
    };
    if (l) record.leaseUntil = Number(l);
    if (x) record.settlement = JSON.parse(x) as Settlement;
    return record;
  }

  async settle(token: string, settlement: Settlement): Promise<boolean> {
    return this.finish(token, 's', JSON.stringify(settlement));
  }

  async cancel(token: string): Promise<boolean> {
    return this.finish(token, 'c', '');
  }

  async renewLeases(tokens: readonly string[], until: number): Promise<void> {
    if (tokens.length === 0) return;
    await withRedis(this.client, () =>
      RENEW.run(
        this.client,
        tokens.map((t) => this.recordKey(t)),
        [until],
      ),
    );
  }

  async waitSettled(
    token: string,
    timeoutMs: number,
    signal?: AbortSignal,
  ): Promise<PromiseRecord | undefined> {
    const deadline = Date.now() + Math.max(0, timeoutMs);
    const event = `t:${token}`;
    let woken = false;
    let wake: (() => void) | undefined;
    let timer: NodeJS.Timeout | undefined;
    const onEvent = () => {
      woken = true;
      wake?.();
    };
    // Listen before reading: a change published while the read is in flight still wakes this waiter.
    this.events.on(event, onEvent);
    this.events.on(RESYNC, onEvent);
    signal?.addEventListener('abort', onEvent);
    try {
      for (;;) {
        woken = false;
        const record = await this.get(token);
        const left = deadline - Date.now();
        if (record?.status !== 'pending' || left <= 0 || signal?.aborted) return record;
        // Not subscribed yet (or resubscribing): the RESYNC sent once subscribed wakes this loop to read again.
        if (!woken) {
          await new Promise<void>((resolve) => {
            wake = resolve;
            timer = setTimeout(resolve, left);
          });
          clearTimeout(timer);
          wake = undefined;
          if (this.closed) return record;
        }
      }
    } finally {
      clearTimeout(timer);
      this.events.off(event, onEvent);
      this.events.off(RESYNC, onEvent);
      signal?.removeEventListener('abort', onEvent);
    }
  }

  onCancel(listener: (token: string) => void): () => void {
    this.cancelListeners.add(listener);
    return () => this.cancelListeners.delete(listener);
  }

  async pendingCount(): Promise<number> {
    const n = await withRedis(this.client, () =>
      COUNT_PENDING.run(this.client, [`${this.prefix}pending`], []),
    );
    return Number(n);
  }

  async ping(): Promise<void> {
    await withRedis(this.client, () => this.client.ping());
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.events.emit(RESYNC);
    this.cancelListeners.clear();
    await Promise.all([quitRedis(this.subscriber), this.ownsClient ? quitRedis(this.client) : undefined]);
  }

  private recordKey(token: string): string {
    return `${this.prefix}p:${token}`;
  }

  private finish(token: string, status: 's' | 'c', settlement: string): Promise<boolean> {
    return withRedis(this.client, async () => {
      const changed = await FINISH.run(
        this.client,
        [this.recordKey(token), `${this.prefix}pending`],
        [status, settlement, this.channel, `${status}:${token}`, token],
      );
      return changed === 1;
    });
  }

  private async subscribe(): Promise<void> {
    try {
      // SUBSCRIBE again after a reconnection even if ioredis resubscribes: it is idempotent, and awaiting it
      // tells when messages flow again.
      await this.subscriber.subscribe(this.channel);
      // Changes published while unsubscribed were missed: every waiter reads its record again.
      this.events.emit(RESYNC);
    } catch {
      // The connection dropped again; the next 'ready' retries.
    }
  }

  private onMessage(channel: string, message: string): void {
    if (channel !== this.channel || message.length < 3 || message[1] !== ':') return;
    const token = message.slice(2);
    this.events.emit(`t:${token}`);
    if (message[0] !== 'c') return;
    for (const listener of this.cancelListeners) {
      try {
        listener(token);
      } catch {
        // A listener's failure is its own; the others still hear of the cancellation.
      }
    }
  }
}

/** A bound as Lua reads it: `Infinity` (no bound) becomes the largest safe integer. */
function bound(n: number): number {
  return Number.isFinite(n) ? Math.max(0, Math.floor(n)) : Number.MAX_SAFE_INTEGER;
}
