import type { McpLiteError } from '../core/errors.js';

/** One call's abort: the caller's signal, its timeout and the client's own bounds, as one signal. */
export interface CallScope {
  /** Undefined when nothing can end the call early (no timeout, no caller signal, not `abortable`). */
  readonly signal: AbortSignal | undefined;
  /** Ends the call with `err` (a bound the server broke): every wire reading for it stops (a no-op without a signal). */
  fail(err: McpLiteError): void;
  /** The call is over: the timer is cleared and the caller's signal let go. */
  dispose(): void;
}

/**
 * The scope of one call. The timer is a plain `setTimeout` held by this scope and by Node's timer list until
 * `dispose`: `AbortSignal.timeout` (unref'd, holding its signal weakly) combined by `AbortSignal.any` (holding its
 * sources weakly) let a full GC collect the timeout while a call waited, and the call then never timed out.
 *
 * A call that nothing can end early (no timeout, no caller signal, and not `abortable`: a call whose partials
 * the client bounds) gets no signal at all: an AbortController and its listeners cost a call over a fast wire
 * (stdio) half its throughput, and a wire without a signal waits for the answer, as it would with one.
 */
export function callScope(
  timeout: number | undefined,
  callerSignal: AbortSignal,
): CallScope & { readonly signal: AbortSignal };
export function callScope(
  timeout: number | undefined,
  callerSignal?: AbortSignal,
  abortable?: boolean,
): CallScope;
export function callScope(
  timeout: number | undefined,
  callerSignal?: AbortSignal,
  abortable = false,
): CallScope {
  if (!callerSignal && !abortable && !(timeout !== undefined && timeout > 0)) return UNABORTABLE;
  const controller = new AbortController();
  const onCallerAbort = () => controller.abort(callerSignal?.reason);
  let timer: NodeJS.Timeout | undefined;
  if (callerSignal?.aborted) controller.abort(callerSignal.reason);
  else callerSignal?.addEventListener('abort', onCallerAbort, { once: true });
  if (timeout !== undefined && timeout > 0 && !controller.signal.aborted) {
    timer = setTimeout(() => {
      controller.abort(new DOMException(`The call timed out after ${timeout} ms`, 'TimeoutError'));
    }, timeout);
  }
  return {
    signal: controller.signal,
    fail(err) {
      if (!controller.signal.aborted) controller.abort(err);
    },
    dispose() {
      if (timer !== undefined) clearTimeout(timer);
      timer = undefined;
      callerSignal?.removeEventListener('abort', onCallerAbort);
    },
  };
}

/** The scope of a call nothing can end early. */
const UNABORTABLE: CallScope = { signal: undefined, fail() {}, dispose() {} };

/** `promise`, or the signal's reason once it aborts first. */
export function untilAborted<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (err: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(err);
      },
    );
  });
}

/** Waits `ms`, or rejects with the signal's reason once it aborts first. */
export function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
