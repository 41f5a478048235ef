import type { Outcome } from '../outcomes.js';

/** Where a promise is in its life. `pending` moves to `settled` or `cancelled` exactly once. */
export type PromiseStatus = 'pending' | 'settled' | 'cancelled';

/** The end of promised work: an outcome, or a protocol error that redeeming re-raises. */
export type Settlement = (
  | { outcome: Exclude<Outcome, { type: 'promise' }>; processingTimeMs: number }
  | { error: { code: string; message: string; data?: Record<string, unknown> }; processingTimeMs: number }
) & {
  /** The promised work's span (W3C trace context), so that a `redeem` links to it (`core/telemetry/`). */
  trace?: Record<string, string>;
};

/** One promise as stored. Plain JSON, so that any store (memory, Redis) can hold it. */
export interface PromiseRecord {
  token: string;
  tool: string;
  status: PromiseStatus;
  /**
   * `callerKey` of whoever made it (`principal:<id>`, `addr:<IPv4>`, `addr:<IPv6 prefix>/<bits>` or `anonymous`). Per-caller quotas count
   * against it; a promise made by an authenticated principal is unknown to every other caller.
   */
  owner: string;
  /** Epoch milliseconds. */
  createdAt: number;
  /** After this, the promise is gone: redeeming says `promise_expired` or `promise_not_found`. */
  expiresAt: number;
  /** When the work is expected to finish (epoch ms). */
  estimatedCompletion: number;
  /**
   * Work running in one replica's memory (a call promoted past the answer budget) holds a lease that the replica
   * renews while it runs (epoch ms). A pending promise whose lease ran out lost its replica: whoever reads it
   * settles it as the failure `worker_lost` instead of leaving it pending forever. Absent for queued work.
   */
  leaseUntil?: number;
  /** Present once settled. */
  settlement?: Settlement;
}

/** Bounds a store enforces when it creates a promise. */
export interface PromiseQuota {
  /**
   * Most unexpired promises (any status) one owner may hold. Past it `create` throws `resource_exhausted` for
   * that owner; nobody else's promise is ever dropped to make room.
   */
  maxPerOwner: number;
}

/**
 * Storage for promises. Every operation is async so that a networked store (Redis) drops in, and the state
 * changes are atomic: `settle` and `cancel` succeed only for a pending promise, so a promise settles exactly once.
 * A promise handed out stays redeemable until `expiresAt`: a full store refuses new promises (`resource_exhausted`),
 * it never evicts live ones. A store that cannot be reached rejects with `unavailable`.
 */
export interface PromiseStore {
  /**
   * Stores a new pending promise; false when the token already exists (the caller draws another). Throws
   * `resource_exhausted` when `record.owner` already holds `quota.maxPerOwner` unexpired promises, or the store
   * is full. `job`, for a leased record whose work is a job run in this replica's memory, is the job as JSON
   * (`PromisedJob`): a store shared between replicas keeps it until the promise ends, for `takeOver`; a store
   * private to the process (memory) may ignore it.
   */
  create(record: PromiseRecord, quota: PromiseQuota, job?: string): Promise<boolean>;
  /** The record, or undefined when unknown. A store may keep an expired record a while (so that redeeming can
   * say "expired" rather than "unknown") and must forget it eventually. */
  get(token: string): Promise<PromiseRecord | undefined>;
  /** Pending → settled, atomically; false when it was not pending. */
  settle(token: string, settlement: Settlement): Promise<boolean>;
  /** Pending → cancelled, atomically; false when it was not pending. Also tells every replica (see onCancel). */
  cancel(token: string): Promise<boolean>;
  /**
   * Moves the lease of pending promises (work this replica runs) to `until` (epoch ms); unknown tokens, and
   * promises that are no longer leased (taken over), are skipped.
   */
  renewLeases(tokens: readonly string[], until: number): Promise<void>;
  /**
   * Takes over a pending promise whose lease ran out before `now` (or at once with `force`: its own replica hands
   * it back), atomically, so that exactly one replica does: the lease and the kept job are dropped. Resolves
   * undefined when there is nothing to take over (not pending, lease alive or already taken), `{}` when no job
   * was kept (the taker settles it as `worker_lost`), `{ job }` (the JSON given to `create`) to queue it again.
   * Only stores shared between replicas need it.
   */
  takeOver?(token: string, now: number, force?: boolean): Promise<{ job?: string } | undefined>;
  /** Tokens of pending promises whose lease ran out before `now`, at most `limit` (for a periodic sweep). */
  lapsedLeases?(now: number, limit: number): Promise<string[]>;
  /**
   * Resolves with the record once it is no longer pending, or with the current record after `timeoutMs`.
   * Lets `redeem` wait briefly instead of making the client poll.
   */
  waitSettled(token: string, timeoutMs: number, signal?: AbortSignal): Promise<PromiseRecord | undefined>;
  /** Subscribes to cancellations (from any replica) so the replica running the work can abort it. */
  onCancel(listener: (token: string) => void): () => void;
  /** How many promises are pending, across every replica that shares the store (metrics). */
  pendingCount?(): Promise<number>;
  /** Checks that the store can be reached (readiness probes); rejects with `unavailable` when it cannot. */
  ping?(): Promise<void>;
  /** Releases timers and connections. */
  close(): Promise<void>;
}
