/** A listener of a `LazyAbort`: called once, with the reason, when it is aborted. */
export type AbortListener = (reason: unknown) => void;

/**
 * An AbortController for promised work that makes its AbortSignal only when someone reads `signal` (a handler
 * reading `ctx.signal`, a fetch it passes it to). Why: Node 20 spends about 2 µs making an AbortSignal and 1.5 µs
 * adding an 'abort' listener to one (Node 22: under 0.2 µs), and a promised call linked four of them (the queue's,
 * the handler context's, the run-time limit's race and the link between them): a fifth of the server's CPU for
 * making a promise. Work that nobody cancels now makes none; the listeners here are a plain array.
 *
 * The semantics are AbortController's: aborted at most once, the first reason kept (an AbortError DOMException
 * when none is given), listeners called in order, `signal` aborted with the same reason however late it is made.
 */
export class LazyAbort {
  private controller: AbortController | undefined;
  private listeners: AbortListener[] | undefined;
  private abortedWith: { reason: unknown } | undefined;

  /** Whether `abort` was called. */
  get aborted(): boolean {
    return this.abortedWith !== undefined;
  }

  /** The reason `abort` was called with; undefined while not aborted. */
  get reason(): unknown {
    return this.abortedWith?.reason;
  }

  /** A real AbortSignal that follows this abort, made on first read. */
  get signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      if (this.abortedWith) this.controller.abort(this.abortedWith.reason);
    }
    return this.controller.signal;
  }

  /** Aborts (once: later calls do nothing), calling every listener with `reason`. */
  abort(reason: unknown = new DOMException('This operation was aborted', 'AbortError')): void {
    if (this.abortedWith) return;
    this.abortedWith = { reason };
    this.controller?.abort(reason);
    const listeners = this.listeners;
    this.listeners = undefined;
    if (listeners) for (const listener of listeners) listener(reason);
  }

  /**
   * Calls `listener` once when aborted: at once (synchronously) if it already is. Returns what removes it, for a
   * listener whose interest ends before the work does.
   */
  onAbort(listener: AbortListener): () => void {
    if (this.abortedWith) {
      listener(this.abortedWith.reason);
      return () => {};
    }
    // A literal of one: an empty array's first push reserves room for 17, most of it never used.
    if (this.listeners) this.listeners.push(listener);
    else this.listeners = [listener];
    return () => {
      const i = this.listeners?.indexOf(listener) ?? -1;
      if (i >= 0) this.listeners!.splice(i, 1);
    };
  }
}
