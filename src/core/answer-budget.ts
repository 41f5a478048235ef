import type { CallRequest } from './call-request.js';
import type { CompiledTool } from './catalog.js';
import type { CallContext } from './context.js';
import { McpLiteError, toMcpLiteError } from './errors.js';
import type { CallResult, Outcome } from './outcomes.js';
import { handlerError } from './promised-work.js';
import { unrefTimer } from './timers.js';

/** A foreground call whose handler did not answer synchronously: what waiting for it, and promoting it, needs. */
export interface WaitingCall {
  startedAt: number;
  tool: CompiledTool;
  context: CallContext;
  running: Promise<Outcome>;
}

/** What the budget does outside itself: how a call goes on as a promise, and how an outcome becomes a result. */
export interface BudgetHooks {
  /** Hands a call past the budget to promised work under its caller (`request`); settles with the promise. */
  promote(call: WaitingCall, request: CallRequest): Promise<Outcome>;
  /** The call's result for an outcome after `processingTimeMs` (`_meta` included). */
  result(outcome: Outcome, processingTimeMs: number): CallResult;
  /** The handler's work ended (answered or failed), whether its caller still waited or it was promoted. */
  ended(): void;
}

/**
 * One call's place in the budget. `waiting`: its caller waits (held for the sweeper when promotable); `promoted`:
 * it went on as a promise, its own settling is promised work's; `done`: its caller got the answer, the error or the
 * abort.
 */
interface PendingCall {
  state: 'waiting' | 'promoted' | 'done';
  startedAt: number;
  /**
   * The request, until the call is promoted: its caller owns the promise. Read then rather than up front (the
   * node adapter reads the peer address from the socket), and let go of then (the work may run for hours).
   */
  request: CallRequest | undefined;
  call: WaitingCall;
  resolve: (r: CallResult) => void;
  reject: (e: unknown) => void;
}

/**
 * The answer budget (docs/architecture.md, "The outcome model") as one state machine: a foreground call's caller
 * waits for its answer, its abort, or (past `budgetMs`, found by the one sweeper) its promotion to a promise, so
 * that a client gets a promise instead of a wait. A server without a budget (no promise store) holds nothing and
 * starts no timer.
 */
export class AnswerBudget {
  private readonly pending = new Set<PendingCall>();
  private sweeper: ReturnType<typeof setInterval> | undefined;
  private closed = false;

  constructor(
    /** How long a call may run before it is promoted, in ms; 0: never. */
    readonly budgetMs: number,
    private readonly hooks: BudgetHooks,
  ) {}

  /**
   * The caller's answer to a running call: its outcome, its error, the cancellation of its request's signal, or,
   * when `promotable` (a server that lists `redeem`, a call that does not stream) and the budget runs out, the
   * promise it goes on as, owned by the caller of `request`.
   */
  wait(call: WaitingCall, request: CallRequest, promotable: boolean): Promise<CallResult> {
    return new Promise<CallResult>((resolve, reject) => {
      const pending: PendingCall = {
        state: 'waiting',
        startedAt: call.startedAt,
        request,
        call,
        resolve,
        reject,
      };
      const signal = request.signal;
      const onAbort = () => {
        if (pending.state !== 'waiting') return;
        pending.state = 'done';
        this.pending.delete(pending);
        reject(toMcpLiteError(signal?.reason ?? new McpLiteError('cancelled', 'The call was cancelled')));
      };
      if (signal) {
        if (signal.aborted) onAbort();
        else signal.addEventListener('abort', onAbort, { once: true });
      }
      if (promotable && this.budgetMs > 0) this.hold(pending);
      call.running.then(
        (outcome) => {
          this.hooks.ended();
          if (pending.state === 'promoted') return;
          this.settle(pending, signal, onAbort);
          resolve(this.hooks.result(outcome, performance.now() - call.startedAt));
        },
        (err) => {
          this.hooks.ended();
          if (pending.state === 'promoted') return;
          this.settle(pending, signal, onAbort);
          reject(handlerError(err, call.context, call.tool));
        },
      );
    });
  }

  /** Stops the sweeper and aborts every call still held with `reason`. */
  close(reason: McpLiteError): void {
    this.closed = true;
    if (this.sweeper) clearInterval(this.sweeper);
    this.sweeper = undefined;
    for (const p of this.pending) p.call.context.lazyAbort().abort(reason);
  }

  /** The call answered or failed (an aborted one's later settling is ignored by its promise): no longer held. */
  private settle(pending: PendingCall, signal: AbortSignal | undefined, onAbort: () => void): void {
    pending.state = 'done';
    this.pending.delete(pending);
    signal?.removeEventListener('abort', onAbort);
  }

  /** Holds a call until it answers or outlives the budget. */
  private hold(pending: PendingCall): void {
    this.pending.add(pending);
    if (this.sweeper || this.closed) return;
    const every = Math.max(10, Math.min(250, Math.floor(this.budgetMs / 4)));
    this.sweeper = setInterval(() => {
      if (this.pending.size === 0) return;
      const now = performance.now();
      for (const p of this.pending) {
        if (now - p.startedAt < this.budgetMs) continue;
        this.pending.delete(p);
        this.promote(p);
      }
    }, every);
    unrefTimer(this.sweeper);
  }

  /** Promotes a call that outlived the budget into a promise, which its caller gets as its answer. */
  private promote(pending: PendingCall): void {
    pending.state = 'promoted';
    const request = pending.request!;
    pending.request = undefined;
    this.hooks.promote(pending.call, request).then(
      (outcome) => pending.resolve(this.hooks.result(outcome, performance.now() - pending.startedAt)),
      (err) => pending.reject(err),
    );
  }
}
