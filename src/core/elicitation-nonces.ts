/**
 * Where the nonces of answered elicitation states are remembered, so that a state answers one call only
 * (docs/architecture.md "State"). The memory store (`stores/memory-elicitation-nonces.ts`) serves one process;
 * the Redis one (`stores/redis/elicitation-nonce-store.ts`) every replica that shares it, so a state answered on
 * one front is refused on every other.
 */
export interface ElicitationNonceStore {
  /**
   * Records `nonce` as used by `caller` (`callerKey`) until `expiresAt` (epoch milliseconds, the state's own
   * expiry: after it the state is refused anyway). Resolves true when it was not used before, false when it was;
   * atomic, so two replicas given the same nonce at once never both get true. Rejects with `resource_exhausted`
   * when the caller (or the store) holds as many as its bound allows, and with `unavailable` when the store
   * cannot be reached. The memory store answers synchronously.
   */
  use(nonce: string, expiresAt: number, caller: string): boolean | Promise<boolean>;
  /** Releases what the store holds (timers, a connection it opened). */
  close?(): void | Promise<void>;
}
