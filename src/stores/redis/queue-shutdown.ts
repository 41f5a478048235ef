// Bounded waits: the BullMQ queue's shutdown (queue.ts; BullMQ waits for Redis forever when it is down) and the
// promise store's waiters (promise-events.ts).

/** Whether `p` settles within `ms`. */
export async function within(p: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const done = new Promise<boolean>((r) => (timer = setTimeout(r, ms, false)));
  const settled = await Promise.race([
    p.then(
      () => true,
      () => true,
    ),
    done,
  ]);
  clearTimeout(timer);
  return settled;
}

/** Ends a BullMQ object's connections (its internals, best effort), so that none keeps reconnecting. */
export function drop(owner: unknown): void {
  const backend = (owner as { backend?: Record<string, { _client?: { disconnect(): void } } | undefined> })
    .backend;
  for (const c of [backend?.connection, backend?.blockingConnection]) c?._client?.disconnect();
}
