import { KeyedListeners } from '../core/keyed-listeners.js';
import type {
  PromiseQuota,
  PromiseRecord,
  PromiseStatus,
  PromiseStore,
  Settlement,
} from '../core/promises/store.js';
import { type TimerHandle, unrefTimer } from '../core/timers.js';
import { tooManyPromises } from './bound-errors.js';

/** Options of the in-memory promise store. */
export interface MemoryPromiseStoreOptions {
  /**
   * Most promises held at once (any status, expired ones in their grace period included). When full, expired
   * records are dropped first; if none is, new promises are refused with `resource_exhausted`. A live promise is
   * never dropped to make room. Default 100 000.
   */
  maxEntries?: number;
  /** Expired records are kept this long so that redeeming says "expired" instead of "unknown". Default 10 min. */
  expiredGraceMs?: number;
  /** How often expired records are swept. Default 30 s. */
  sweepIntervalMs?: number;
}

const STATUS: readonly PromiseStatus[] = ['pending', 'settled', 'cancelled'];

/**
 * One promise as kept in memory: plain fields, and the settlement as its JSON text, which costs a fraction of the
 * object graph it came from (a settled promise costs a few hundred bytes beyond its result). `counted` says whether
 * it still counts against its owner's quota (until it expires).
 */
class Entry {
  constructor(
    readonly tool: string,
    public status: 0 | 1 | 2,
    readonly owner: string,
    readonly createdAt: number,
    readonly expiresAt: number,
    readonly estimatedCompletion: number,
    public leaseUntil: number,
    public settlement: string | undefined,
    public counted: boolean,
  ) {}
}

/**
 * The embedded default promise store: one process, no dependencies. Promises do not survive a restart and are
 * not shared between replicas; use the Redis store (`mcplite/redis`) for that.
 */
export class MemoryPromiseStore implements PromiseStore {
  // Map keeps insertion order, which is creation order: sweeps and room-making start with the oldest.
  private readonly entries = new Map<string, Entry>();
  /** Unexpired promises per owner (`callerKey`). */
  private readonly perOwner = new Map<string, number>();
  /** Who waits for a promise to settle or be cancelled, by token. */
  private readonly settled = new KeyedListeners<void>();
  private readonly cancelListeners = new Set<(token: string) => void>();
  private readonly maxEntries: number;
  private readonly expiredGraceMs: number;
  private readonly sweepIntervalMs: number;
  /** Started by the first promise, not here: Workers forbid timers outside a request, where stores are made. */
  private sweeper: TimerHandle | undefined;
  private closed = false;
  private lastQuotaSweep = 0;
  private pending = 0;

  constructor(options: MemoryPromiseStoreOptions = {}) {
    this.maxEntries = options.maxEntries ?? 100_000;
    this.expiredGraceMs = options.expiredGraceMs ?? 600_000;
    this.sweepIntervalMs = options.sweepIntervalMs ?? 30_000;
  }

  /** How many promises are held (any status). */
  get size(): number {
    return this.entries.size;
  }

  async create(record: PromiseRecord, quota: PromiseQuota): Promise<boolean> {
    if (this.entries.has(record.token)) return false;
    if (!this.sweeper && !this.closed)
      this.sweeper = unrefTimer(setInterval(() => this.sweep(Date.now()), this.sweepIntervalMs));
    const now = Date.now();
    let held = this.perOwner.get(record.owner) ?? 0;
    // Expired promises free their owner's quota; sweep at most every 100 ms so a caller at its limit cannot
    // make every refused call a scan of the whole store (a scan of 100 000 records takes about 2 ms).
    if (held >= quota.maxPerOwner && now - this.lastQuotaSweep >= 100) {
      this.lastQuotaSweep = now;
      this.sweep(now);
      held = this.perOwner.get(record.owner) ?? 0;
    }
    if (held >= quota.maxPerOwner) throw tooManyPromises('caller', quota.maxPerOwner);
    if (this.entries.size >= this.maxEntries && !this.dropOneExpired(now))
      throw tooManyPromises('server', this.maxEntries);
    const { owner } = record;
    this.entries.set(
      record.token,
      new Entry(
        record.tool,
        STATUS.indexOf(record.status) as 0 | 1 | 2,
        owner,
        record.createdAt,
        record.expiresAt,
        record.estimatedCompletion,
        record.leaseUntil ?? 0,
        record.settlement ? JSON.stringify(record.settlement) : undefined,
        true,
      ),
    );
    this.perOwner.set(owner, held + 1);
    if (record.status === 'pending') this.pending++;
    return true;
  }

  async get(token: string): Promise<PromiseRecord | undefined> {
    return this.read(token);
  }

  async settle(token: string, settlement: Settlement): Promise<boolean> {
    const e = this.entries.get(token);
    if (e?.status !== 0) return false;
    e.status = 1;
    this.pending--;
    e.settlement = JSON.stringify(settlement);
    this.settled.emit(token, undefined);
    return true;
  }

  async cancel(token: string): Promise<boolean> {
    const e = this.entries.get(token);
    if (e?.status !== 0) return false;
    e.status = 2;
    this.pending--;
    this.settled.emit(token, undefined);
    for (const listener of [...this.cancelListeners]) listener(token);
    return true;
  }

  async renewLeases(tokens: readonly string[], until: number): Promise<void> {
    for (const token of tokens) {
      const e = this.entries.get(token);
      if (e?.status === 0) e.leaseUntil = until;
    }
  }

  async waitSettled(
    token: string,
    timeoutMs: number,
    signal?: AbortSignal,
  ): Promise<PromiseRecord | undefined> {
    const current = this.entries.get(token);
    if (current?.status !== 0 || timeoutMs <= 0 || signal?.aborted) return this.read(token);
    await new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        stopListening();
        signal?.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, timeoutMs);
      const stopListening = this.settled.add(token, done);
      signal?.addEventListener('abort', done, { once: true });
    });
    return this.read(token);
  }

  onCancel(listener: (token: string) => void): () => void {
    this.cancelListeners.add(listener);
    return () => this.cancelListeners.delete(listener);
  }

  async pendingCount(): Promise<number> {
    return this.pending;
  }

  async ping(): Promise<void> {}

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.sweeper);
    this.settled.clear();
    this.cancelListeners.clear();
  }

  private read(token: string): PromiseRecord | undefined {
    const e = this.entries.get(token);
    if (!e) return undefined;
    const record: PromiseRecord = {
      token,
      tool: e.tool,
      status: STATUS[e.status]!,
      owner: e.owner,
      createdAt: e.createdAt,
      expiresAt: e.expiresAt,
      estimatedCompletion: e.estimatedCompletion,
    };
    if (e.leaseUntil) record.leaseUntil = e.leaseUntil;
    if (e.settlement !== undefined) record.settlement = JSON.parse(e.settlement) as Settlement;
    return record;
  }

  /** Drops the oldest expired record to make room; false when every record is still live. */
  private dropOneExpired(now: number): boolean {
    for (const [token, e] of this.entries) {
      if (e.expiresAt <= now) {
        this.forget(token, e);
        return true;
      }
    }
    return false;
  }

  /** Frees the quota of expired promises and forgets those past their grace period. */
  private sweep(now: number): void {
    const cutoff = now - this.expiredGraceMs;
    for (const [token, e] of this.entries) {
      if (e.expiresAt < cutoff) this.forget(token, e);
      else if (e.counted && e.expiresAt <= now) this.uncount(e);
    }
  }

  private forget(token: string, e: Entry): void {
    this.entries.delete(token);
    if (e.status === 0) this.pending--;
    if (e.counted) this.uncount(e);
  }

  private uncount(e: Entry): void {
    e.counted = false;
    const n = (this.perOwner.get(e.owner) ?? 1) - 1;
    if (n > 0) this.perOwner.set(e.owner, n);
    else this.perOwner.delete(e.owner);
  }
}
