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
