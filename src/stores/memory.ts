import { EventEmitter } from 'node:events';
import { McpLiteError } from '../core/errors.js';
import type { PromiseRecord, PromiseStore, Settlement } from '../core/promises/store.js';

/** Options of the in-memory promise store. */
export interface MemoryPromiseStoreOptions {
  /**
   * Most promises held at once. When full, the oldest settled (or cancelled) promises are dropped first; if every
   * promise is still pending, new promises are refused with `resource_exhausted`. Default 100 000.
   */
  maxEntries?: number;
  /** Expired records are kept this long so that redeeming says "expired" instead of "unknown". Default 10 min. */
  expiredGraceMs?: number;
  /** How often expired records are swept. Default 30 s. */
  sweepIntervalMs?: number;
}

/**
 * The embedded default promise store: one process, no dependencies. Promises do not survive a restart and are
 * not shared between replicas; use the Redis store for that.
 */
export class MemoryPromiseStore implements PromiseStore {
  // Map keeps insertion order, which is creation order: the eviction scan starts with the oldest.
  private readonly records = new Map<string, PromiseRecord>();
  private readonly events = new EventEmitter();
  private readonly maxEntries: number;
  private readonly expiredGraceMs: number;
  private readonly sweeper: NodeJS.Timeout;

  constructor(options: MemoryPromiseStoreOptions = {}) {
    this.maxEntries = options.maxEntries ?? 100_000;
    this.expiredGraceMs = options.expiredGraceMs ?? 600_000;
    this.events.setMaxListeners(0);
    this.sweeper = setInterval(() => this.sweep(), options.sweepIntervalMs ?? 30_000);
    this.sweeper.unref();
  }

  /** How many promises are held (any status). */
  get size(): number {
    return this.records.size;
  }

  async create(record: PromiseRecord): Promise<boolean> {
    if (this.records.has(record.token)) return false;
    if (this.records.size >= this.maxEntries && !this.evictOne()) {
      throw new McpLiteError('resource_exhausted', 'Too many outstanding promises; try again later');
    }
    this.records.set(record.token, { ...record });
    return true;
  }

  async get(token: string): Promise<PromiseRecord | undefined> {
    const r = this.records.get(token);
    return r ? { ...r } : undefined;
  }

  async settle(token: string, settlement: Settlement): Promise<boolean> {
    const r = this.records.get(token);
    if (r?.status !== 'pending') return false;
    r.status = 'settled';
    r.settlement = settlement;
    this.events.emit(token);
    return true;
  }

  async cancel(token: string): Promise<boolean> {
    const r = this.records.get(token);
    if (r?.status !== 'pending') return false;
    r.status = 'cancelled';
    this.events.emit(token);
    this.events.emit('cancel', token);
    return true;
  }

  async waitSettled(
    token: string,
    timeoutMs: number,
    signal?: AbortSignal,
  ): Promise<PromiseRecord | undefined> {
    const current = this.records.get(token);
    if (current?.status !== 'pending' || timeoutMs <= 0 || signal?.aborted) return this.get(token);
    await new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.events.off(token, done);
        signal?.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, timeoutMs);
      this.events.on(token, done);
      signal?.addEventListener('abort', done, { once: true });
    });
    return this.get(token);
  }

  onCancel(listener: (token: string) => void): () => void {
    this.events.on('cancel', listener);
    return () => this.events.off('cancel', listener);
  }

  async close(): Promise<void> {
    clearInterval(this.sweeper);
    this.events.removeAllListeners();
  }

  /** Drops the oldest finished promise; false when every promise is still pending. */
  private evictOne(): boolean {
    for (const [token, r] of this.records) {
      if (r.status !== 'pending') {
        this.records.delete(token);
        return true;
      }
    }
    return false;
  }

  private sweep(): void {
    const cutoff = Date.now() - this.expiredGraceMs;
    for (const [token, r] of this.records) if (r.expiresAt < cutoff) this.records.delete(token);
  }
}
