import type { ElicitationNonceStore } from '../core/elicitation-nonces.js';
import { tooManyElicitationAnswers } from './bound-errors.js';

/** Options of the in-memory store of used elicitation nonces. */
export interface MemoryElicitationNonceStoreOptions {
  /** Most nonces one caller may have remembered at once (until their states expire). Default 1 000. */
  maxPerCaller?: number;
  /** Most nonces remembered at once in all. Default 100 000. */
  maxNonces?: number;
}

interface UsedNonce {
  expiresAt: number;
  caller: string;
}

/**
 * Used elicitation nonces in one process, each until its state expires. Synchronous. Bounded per caller and in
 * total; a bound reached refuses the caller that reached it, and never forgets a nonce that is still live (that
 * would let its state answer again).
 */
export class MemoryElicitationNonceStore implements ElicitationNonceStore {
  private readonly used = new Map<string, UsedNonce>();
  private readonly perCaller = new Map<string, number>();
  private readonly maxPerCaller: number;
  private readonly maxNonces: number;
  // Expired nonces are dropped in one pass at most this often (and when a bound is reached), not on every use.
  private nextSweepAt = 0;

  constructor(options: MemoryElicitationNonceStoreOptions = {}) {
    this.maxPerCaller = options.maxPerCaller ?? 1000;
    this.maxNonces = options.maxNonces ?? 100_000;
  }

  /** How many nonces are remembered. */
  get size(): number {
    return this.used.size;
  }

  use(nonce: string, expiresAt: number, caller: string): boolean {
    const now = Date.now();
    if (now >= this.nextSweepAt) this.sweep(now);
    const known = this.used.get(nonce);
    if (known && known.expiresAt > now) return false;
    if (known) this.forget(nonce, known);
    if ((this.perCaller.get(caller) ?? 0) >= this.maxPerCaller) {
      this.sweep(now);
      if ((this.perCaller.get(caller) ?? 0) >= this.maxPerCaller)
        throw tooManyElicitationAnswers('caller', this.maxPerCaller);
    }
    if (this.used.size >= this.maxNonces) {
      this.sweep(now);
      if (this.used.size >= this.maxNonces) throw tooManyElicitationAnswers('server', this.maxNonces);
    }
    this.used.set(nonce, { expiresAt, caller });
    this.perCaller.set(caller, (this.perCaller.get(caller) ?? 0) + 1);
    return true;
  }

  /** Forgets every nonce. */
  close(): void {
    this.used.clear();
    this.perCaller.clear();
  }

  private sweep(now: number): void {
    this.nextSweepAt = now + 1000;
    for (const [nonce, entry] of this.used) if (entry.expiresAt <= now) this.forget(nonce, entry);
  }

  private forget(nonce: string, entry: UsedNonce): void {
    this.used.delete(nonce);
    const left = (this.perCaller.get(entry.caller) ?? 1) - 1;
    if (left > 0) this.perCaller.set(entry.caller, left);
    else this.perCaller.delete(entry.caller);
  }
}
