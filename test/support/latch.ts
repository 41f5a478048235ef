/** A promise and the function that resolves it: what a test opens once an event it waits on has happened. */
export interface Latch<T = void> {
  readonly promise: Promise<T>;
  readonly resolve: (value: T) => void;
}

/** A new latch (Node 20 has no `Promise.withResolvers`). */
export function latch<T = void>(): Latch<T> {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}
