// The BullMQ queue's shutdown when Redis is down (queue.ts): BullMQ waits for Redis forever, so its objects'
// connections are dropped by hand once a bounded wait (`settlesWithin`, core/timers.ts) runs out.

/** Ends a BullMQ object's connections (its internals, best effort), so that none keeps reconnecting. */
export function drop(owner: unknown): void {
  const backend = (owner as { backend?: Record<string, { _client?: { disconnect(): void } } | undefined> })
    .backend;
  for (const c of [backend?.connection, backend?.blockingConnection]) c?._client?.disconnect();
}
