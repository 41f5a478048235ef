import type { ServerResponse } from 'node:http';

/**
 * Streams an async-iterable body chunk by chunk, waiting for 'drain'. A client that goes away ends the stream
 * at once, even while the producer is idle, so that it can stop. When the producer gives up on the client
 * (`abandoned`), the connection is destroyed: what it still held for a client that does not read is freed.
 *
 * Each wait is its own promise woken by the one 'close' listener, never a `Promise.race` against a promise that
 * stays pending for the stream's life: every race would leave a reaction on it, so a long stream grew by a few
 * hundred bytes per event until it ended.
 */
export async function writeStream(
  res: ServerResponse,
  status: number,
  headers: Record<string, string>,
  body: AsyncIterable<string | Uint8Array>,
  abandoned?: AbortSignal,
): Promise<void> {
  if (abandoned) {
    if (abandoned.aborted) {
      res.destroy();
      return;
    }
    // Until the connection closes, not the loop's end: the last chunks may still wait for a client that stalled.
    const drop = () => res.destroy();
    abandoned.addEventListener('abort', drop, { once: true });
    res.once('close', () => abandoned.removeEventListener('abort', drop));
  }
  res.writeHead(status, headers);
  res.flushHeaders();
  res.socket?.setNoDelay(true);
  let wake: ((value: typeof CLOSED) => void) | undefined;
  let closed = res.destroyed;
  const onClose = () => {
    closed = true;
    wake?.(CLOSED);
  };
  res.once('close', onClose);
  const iterator = body[Symbol.asyncIterator]();
  try {
    while (!closed && !res.destroyed) {
      const next = iterator.next();
      const step = await new Promise<IteratorResult<string | Uint8Array> | typeof CLOSED>(
        (resolve, reject) => {
          wake = resolve;
          next.then(resolve, reject);
        },
      );
      wake = undefined;
      if (step === CLOSED || step.done) break;
      if (res.write(step.value)) continue;
      const drained = await new Promise<unknown>((resolve) => {
        wake = resolve;
        res.once('drain', resolve);
      });
      wake = undefined;
      if (drained === CLOSED) break;
    }
  } finally {
    res.off('close', onClose);
    // Not awaited: an async generator's return() waits behind a pending next(), which may never come.
    iterator.return?.()?.then(undefined, () => {});
    if (!res.destroyed) res.end();
  }
}

const CLOSED = Symbol('closed');
