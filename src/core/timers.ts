/**
 * Timers as every runtime has them. Node and Bun answer an object that can stop keeping the process alive;
 * Deno and Workers answer a number, on which `.unref()` would throw.
 */

/** A timer handle as `setTimeout` / `setInterval` answer it on any runtime. */
export type TimerHandle = ReturnType<typeof setTimeout>;

/** Lets the process exit while `timer` is pending, where the runtime keeps processes alive for timers. */
export function unrefTimer(timer: TimerHandle): TimerHandle {
  (timer as { unref?: () => unknown }).unref?.();
  return timer;
}

/**
 * Whether `promise` settles (either way) within `ms`: a bounded wait for something that may never end (a
 * queue's shutdown while Redis is down, a child that ignores its stdin closing). With `unref`, the timer does
 * not keep the process alive by itself.
 */
export async function settlesWithin(
  promise: Promise<unknown>,
  ms: number,
  options: { unref?: boolean } = {},
): Promise<boolean> {
  let timer: TimerHandle | undefined;
  const expired = new Promise<boolean>((resolve) => {
    timer = setTimeout(resolve, ms, false);
    if (options.unref) unrefTimer(timer);
  });
  const settled = await Promise.race([
    promise.then(
      () => true,
      () => true,
    ),
    expired,
  ]);
  clearTimeout(timer);
  return settled;
}
