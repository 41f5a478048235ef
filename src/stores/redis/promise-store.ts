import type { Redis } from 'ioredis';
import type {
  PromiseQuota,
  PromiseRecord,
  PromiseStatus,
  PromiseStore,
  Settlement,
} from '../../core/promises/store.js';
import { tooManyPromises } from '../bound-errors.js';
import { type ConnectRedisOptions, quitRedis, storeClient, withRedis } from './connection.js';
import { PromiseEvents } from './promise-events.js';
import { COUNT_PENDING, CREATE, FINISH, RENEW, refusing, TAKE_OVER } from './scripts.js';

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
  /**
   * How many promises whose work runs in this process (leased) it remembers until their first read, so that one
   * it settled itself is redeemed once without a read from Redis (a settled record never changes; later reads go
   * to Redis). Default 10 000; 0 turns it off.
   */
  recentMax?: number;
}

const STATUS: Record<string, PromiseStatus> = { p: 'pending', s: 'settled', c: 'cancelled' };

/**
 * Promises in Redis, shared by every replica that uses the same Redis and prefix.
 *
 * Key layout (P = prefix):
 * - `P p:<token>`: a hash per promise: `r` the immutable fields as JSON, `s` the status (`p`/`s`/`c`), `l` the
 *   lease, `j` the job run under that lease (until it ends or is taken over), `x` the settlement as JSON. It
 *   expires (PEXPIREAT) at `expiresAt + expiredGraceMs`: no sweeper.
 * - `P o:<owner>`: the owner's tokens scored by `expiresAt`, for the per-owner quota.
 * - `P all`: every token scored by when its record goes, for `maxPromises`.
 * - `P pending`: the pending tokens scored by `expiresAt` (metrics); `P leases`: the leased ones scored by their
 *   lease, so that a sweep finds the work of a replica that died (`lapsedLeases`).
 * - channel `P w:<token>`: `s:<token>` (settled) or `c:<token>` (cancelled), for whoever waits on that promise;
 *   channel `P events`: `c:<token>` again, for every replica's cancel listeners.
 *
 * Every change is one Lua script (scripts.ts), so replicas never race. Waiting and cancels use the channels
 * (promise-events.ts). Every method rejects with `unavailable` at once when Redis is down,
 * and works again when ioredis has reconnected. Single Redis (or Sentinel) only: the scripts touch several keys
 * without a hash tag, which Redis Cluster would refuse.
 */
export class RedisPromiseStore implements PromiseStore {
  private readonly client: Redis;
  private readonly ownsClient: boolean;
  private readonly prefix: string;
  private readonly graceMs: number;
  private readonly maxPromises: number;
  private readonly events: PromiseEvents;
  /** Records of promises made here (insertion order, at most `recentMax`), settled ones read without Redis. */
  private readonly recent = new Map<string, PromiseRecord>();
  private readonly recentMax: number;
  /** The settlements of `recent` records being stored now (a read waits for the reply instead of asking Redis). */
  private readonly finishing = new Map<string, Promise<boolean>>();
  private closed = false;

  constructor(options: RedisPromiseStoreOptions) {
    this.prefix = options.prefix ?? 'mcplite:';
    this.graceMs = options.expiredGraceMs ?? 600_000;
    this.maxPromises = options.maxPromises ?? 1_000_000;
    this.recentMax = options.recentMax ?? 10_000;
    ({ client: this.client, owned: this.ownsClient } = storeClient('RedisPromiseStore', options));
    this.events = new PromiseEvents(this.client, this.prefix);
  }

  /**
   * How many local listeners and promise channels the waiters (`waitSettled` calls) hold right now: 0 when
   * nobody waits. For tests.
   */
  get waiterCount(): number {
    return this.events.waiterCount;
  }

  async create(record: PromiseRecord, quota: PromiseQuota, job?: string): Promise<boolean> {
    const { token, leaseUntil } = record;
    // The fields that never change, named one by one: a rest pattern (`...fixed`) is slow on Node 20.
    const fixed: Omit<PromiseRecord, 'token' | 'status' | 'leaseUntil' | 'settlement'> = {
      tool: record.tool,
      owner: record.owner,
      createdAt: record.createdAt,
      expiresAt: record.expiresAt,
      estimatedCompletion: record.estimatedCompletion,
    };
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
            this.leasesKey,
          ],
          [
            JSON.stringify(fixed),
            record.expiresAt,
            keepUntil,
            bound(quota.maxPerOwner),
            bound(this.maxPromises),
            token,
            leaseUntil ?? '',
            leaseUntil !== undefined && job !== undefined ? job : '',
          ],
        ),
        (full) =>
          full === 'caller'
            ? tooManyPromises('caller', quota.maxPerOwner)
            : tooManyPromises('server', this.maxPromises),
      );
      // Only work run here is settled here; a copy read once dies young (kept longer, it would burden the GC).
      if (created === 1 && leaseUntil !== undefined) this.remember(Object.assign({}, record));
      return created === 1;
    });
  }

  async get(token: string): Promise<PromiseRecord | undefined> {
    let known = this.recent.get(token);
    // Its settlement is being stored by this process right now: its reply tells as much as a read would.
    const finishing = known && this.finishing.get(token);
    if (finishing) {
      await finishing;
      known = this.recent.get(token);
    }
    // With Redis down, a promise is unavailable like any state, not answered by whichever replica made it.
    if (known && known.status !== 'pending' && this.client.status === 'ready') {
      this.recent.delete(token);
      // Past its grace Redis has forgotten it: so does this copy.
      if (known.expiresAt + this.graceMs > Date.now()) return known;
    }
    const [r, s, l, x] = await withRedis(this.client, () =>
      this.client.hmget(this.recordKey(token), 'r', 's', 'l', 'x'),
    );
    if (!r || !s) return undefined;
    // The parsed object is new: completed in place rather than spread into another (slow on Node 20).
    const record = JSON.parse(r) as PromiseRecord;
    record.token = token;
    record.status = STATUS[s] ?? 'pending';
    if (l) record.leaseUntil = Number(l);
    if (x) record.settlement = JSON.parse(x) as Settlement;
    return record;
  }

  async settle(token: string, settlement: Settlement): Promise<boolean> {
    const finish = this.finish(token, 's', JSON.stringify(settlement));
    if (!this.recent.has(token)) return finish;
    this.finishing.set(token, finish);
    try {
      const changed = await finish;
      const known = this.recent.get(token);
      if (known && changed) Object.assign(known, { status: 'settled', settlement, leaseUntil: undefined });
      else this.recent.delete(token);
      return changed;
    } catch (err) {
      this.recent.delete(token);
      throw err;
    } finally {
      this.finishing.delete(token);
    }
  }

  async cancel(token: string): Promise<boolean> {
    const changed = await this.finish(token, 'c', '');
    this.recent.delete(token);
    return changed;
  }

  async renewLeases(tokens: readonly string[], until: number): Promise<void> {
    if (tokens.length === 0) return;
    await withRedis(this.client, () =>
      RENEW.run(
        this.client,
        [this.leasesKey, ...tokens.map((t) => this.recordKey(t))],
        [until, this.recordKey('').length],
      ),
    );
  }

  async takeOver(token: string, now: number, force = false): Promise<{ job?: string } | undefined> {
    const job = await withRedis(this.client, () =>
      TAKE_OVER.run(this.client, [this.recordKey(token), this.leasesKey], [now, force ? '1' : '', token]),
    );
    if (typeof job !== 'string') return undefined;
    return job === '' ? {} : { job };
  }

  async lapsedLeases(now: number, limit: number): Promise<string[]> {
    return withRedis(this.client, () =>
      this.client.zrangebyscore(this.leasesKey, '-inf', `(${now}`, 'LIMIT', 0, limit),
    );
  }

  async waitSettled(
    token: string,
    timeoutMs: number,
    signal?: AbortSignal,
  ): Promise<PromiseRecord | undefined> {
    const deadline = Date.now() + Math.max(0, timeoutMs);
    let record = await this.get(token);
    if (record?.status !== 'pending' || timeoutMs <= 0 || signal?.aborted) return record;
    // Listening before reading again: a change published while the read is in flight still wakes this waiter.
    const waiter = this.events.waiter(token, signal);
    try {
      await waiter.subscribed(deadline - Date.now());
      for (;;) {
        waiter.reset();
        record = await this.get(token);
        const left = deadline - Date.now();
        if (record?.status !== 'pending' || left <= 0 || signal?.aborted) return record;
        await waiter.changed(left);
        if (this.closed) return record;
      }
    } finally {
      waiter.done();
    }
  }

  onCancel(listener: (token: string) => void): () => void {
    return this.events.onCancel(listener);
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
    await Promise.all([this.events.close(), this.ownsClient ? quitRedis(this.client) : undefined]);
  }

  private get leasesKey(): string {
    return `${this.prefix}leases`;
  }

  /** Keeps a copy of a record made here, the oldest forgotten past `recentMax`. */
  private remember(record: PromiseRecord): void {
    if (this.recentMax <= 0) return;
    this.recent.set(record.token, record);
    if (this.recent.size > this.recentMax) this.recent.delete(this.recent.keys().next().value!);
  }

  private recordKey(token: string): string {
    return `${this.prefix}p:${token}`;
  }

  private finish(token: string, status: 's' | 'c', settlement: string): Promise<boolean> {
    return withRedis(this.client, async () => {
      const changed = await FINISH.run(
        this.client,
        [this.recordKey(token), `${this.prefix}pending`, this.leasesKey],
        [status, settlement, this.events.channel, `${status}:${token}`, token, this.events.channelOf(token)],
      );
      return changed === 1;
    });
  }
}

/** A bound as Lua reads it: `Infinity` (no bound) becomes the largest safe integer. */
function bound(n: number): number {
  return Number.isFinite(n) ? Math.max(0, Math.floor(n)) : Number.MAX_SAFE_INTEGER;
}
