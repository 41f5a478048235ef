import type { CallRequest } from './call-request.js';
import type { CompiledTool } from './catalog.js';
import type { CallContext } from './context.js';
import type { McpLiteError } from './errors.js';
import type { CallResult, Outcome } from './outcomes.js';
import { unrefTimer } from './timers.js';

/** A call waiting for its answer within the budget: what promoting it needs, and how to settle its caller. */
export interface PendingCall {
  startedAt: number;
  /**
   * The request, until the call is promoted: its caller owns the promise. Read then rather than up front (the
   * node adapter reads the peer address from the socket), and let go of then (the work may run for hours).
   */
  request: CallRequest | undefined;
  tool: CompiledTool;
  context: CallContext;
  running: Promise<Outcome>;
  promoted: boolean;
  resolve: (r: CallResult) => void;
  reject: (e: unknown) => void;
}

/**
 * The answer budget (docs/architecture.md, "The outcome model"): the calls still waiting for their answer, and the one
 * sweeper that hands each to `promote` once it has run `budgetMs`, so that a client gets a promise instead of a
 * wait. A server without a budget (no promise store) holds nothing and starts no timer.
 */
export class AnswerBudget {
  private readonly pending = new Set<PendingCall>();
  private sweeper: ReturnType<typeof setInterval> | undefined;
  private closed = false;

  constructor(
    /** How long a call may run before it is promoted, in ms; 0: never. */
    readonly budgetMs: number,
    /** Turns a call past the budget into a promise (it is no longer held here). */
    private readonly promote: (call: PendingCall) => void,
  ) {}

  /** Holds a call until it answers (`release`) or outlives the budget. */
  hold(call: PendingCall): void {
    this.pending.add(call);
    if (this.sweeper || this.closed) return;
    const every = Math.max(10, Math.min(250, Math.floor(this.budgetMs / 4)));
    this.sweeper = setInterval(() => {
      if (this.pending.size === 0) return;
      const now = performance.now();
      for (const c of this.pending) {
        if (now - c.startedAt < this.budgetMs) continue;
        this.pending.delete(c);
        this.promote(c);
      }
    }, every);
    unrefTimer(this.sweeper);
  }

  /** The call answered, failed or was promoted: no longer held. */
  release(call: PendingCall): void {
    this.pending.delete(call);
  }

  /** Stops the sweeper and aborts every call still held with `reason`. */
  close(reason: McpLiteError): void {
    this.closed = true;
    if (this.sweeper) clearInterval(this.sweeper);
    this.sweeper = undefined;
    for (const p of this.pending) p.context.lazyAbort().abort(reason);
  }
}
