import type { Outcome } from '../outcomes.js';

/** Where a promise is in its life. `pending` moves to `settled` or `cancelled` exactly once. */
export type PromiseStatus = 'pending' | 'settled' | 'cancelled';

/** The end of promised work: an outcome, or a protocol error that redeeming re-raises. */
export type Settlement =
  | { outcome: Exclude<Outcome, { type: 'promise' }>; processingTimeMs: number }
  | { error: { code: string; message: string; data?: Record<string, unknown> }; processingTimeMs: number };

/** One promise as stored. Plain JSON, so that any store (memory, Redis) can hold it. */
export interface PromiseRecord {
  token: string;
  tool: string;
  status: PromiseStatus;
  /** Epoch milliseconds. */
  createdAt: number;
  /** After this, the promise is gone: redeeming says `promise_expired` or `promise_not_found`. */
  expiresAt: number;
  /** When the work is expected to finish (epoch ms). */
  estimatedCompletion: number;
  /** Present once settled. */
  settlement?: Settlement;
}

/**
 * Storage for promises. Every operation is async so that a networked store (Redis) drops in, and the state
 * changes are atomic: `settle` and `cancel` succeed only for a pending promise, so a promise settles exactly once.
 */
export interface PromiseStore {
  /** Stores a new pending promise; false when the token already exists (the caller draws another). */
  create(record: PromiseRecord): Promise<boolean>;
  /** The record, or undefined when unknown. A store may keep an expired record a while (so that redeeming can
   * say "expired" rather than "unknown") and must forget it eventually. */
  get(token: string): Promise<PromiseRecord | undefined>;
  /** Pending → settled, atomically; false when it was not pending. */
  settle(token: string, settlement: Settlement): Promise<boolean>;
  /** Pending → cancelled, atomically; false when it was not pending. Also tells every replica (see onCancel). */
  cancel(token: string): Promise<boolean>;
  /**
   * Resolves with the record once it is no longer pending, or with the current record after `timeoutMs`.
   * Lets `redeem` wait briefly instead of making the client poll.
   */
  waitSettled(token: string, timeoutMs: number, signal?: AbortSignal): Promise<PromiseRecord | undefined>;
  /** Subscribes to cancellations (from any replica) so the replica running the work can abort it. */
  onCancel(listener: (token: string) => void): () => void;
  /** Releases timers and connections. */
  close(): Promise<void>;
}
