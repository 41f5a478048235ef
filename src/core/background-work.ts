import { McpLiteError } from './errors.js';
import { isThenable } from './handler-value.js';
import type { InFlight } from './in-flight.js';
import type { LazyAbort } from './lazy-abort.js';
import type { Outcome } from './outcomes.js';
import { toSettlement } from './promises/manager.js';
import type { Settlement } from './promises/store.js';
import { holdRunningWork, releaseRunningWork } from './running-work.js';
import { type TimerHandle, unrefTimer } from './timers.js';

/**
 * How background work's value and its failure end: the value as an outcome, a rejection as the outcome it still
 * makes where it makes one (a declined elicitation's), and what it threw as the error kept. One object per run,
 * with its methods on a prototype, because a closure for each would stay for as long as the work runs.
 */
export interface WorkEnd {
  /** The outcome of the work's value. */
  resolved(value: unknown): Outcome | Promise<Outcome>;
  /** The outcome a rejection still makes; throws `err` where it makes none. */
  rejected(err: unknown): Outcome;
  /** What the work threw (or the abort's reason) as the error kept; logs an internal one. */
  error(err: unknown): McpLiteError;
}

/**
 * One piece of background work until it ends: the first of its outcome, its failure or its abort settles it.
 * Kept as one object with a few fields, rather than as a race of promises and their callbacks, because every
 * outstanding promise holds one for as long as its work runs: the promise chains it replaced (race, then,
 * finally, a tracking callback, a timer each) were most of what an outstanding promise cost in memory.
 */
class BackgroundRun {
  ended = false;
  resolve!: (settlement: Settlement) => void;
  settled!: Promise<Settlement>;

  constructor(
    private readonly end: WorkEnd,
    private readonly startedAt: number,
    private readonly inFlight: InFlight | undefined,
    readonly controller: LazyAbort,
    /** When the run-time limit aborts it, on `performance.now()`'s clock. */
    readonly deadline: number,
  ) {}

  /** The work's value: its outcome, now or once the value's own settling ends (a generator drained). */
  value(value: unknown): void {
    if (this.ended) return;
    let outcome: Outcome | Promise<Outcome>;
    try {
      outcome = this.end.resolved(value);
    } catch (err) {
      this.fail(err);
      return;
    }
    if (isThenable(outcome))
      outcome.then(
        (o) => this.succeed(o),
        (err) => this.fail(err),
      );
    else this.succeed(outcome);
  }

  /** The work rejected: the outcome the rejection still makes, else the failure. */
  rejection(err: unknown): void {
    if (this.ended) return;
    let outcome: Outcome;
    try {
      outcome = this.end.rejected(err);
    } catch (thrown) {
      this.fail(thrown);
      return;
    }
    this.succeed(outcome);
  }

  succeed(outcome: Outcome): void {
    if (!this.ended) this.finish(toSettlement({ outcome }, performance.now() - this.startedAt));
  }

  fail(err: unknown): void {
    if (!this.ended)
      this.finish(toSettlement({ error: this.end.error(err) }, performance.now() - this.startedAt));
  }

  private finish(settlement: Settlement): void {
    this.ended = true;
    RUN_LIMITS.delete(this);
    releaseRunningWork(this.settled);
    this.inFlight?.end();
    this.resolve(settlement);
  }
}

/**
 * The run-time limit of every piece of background work in this process, kept by one sweeper instead of a timer per
 * run (a timer, its arguments and its place in the timer list were a tenth of an outstanding promise). A run is
 * aborted at most a quarter of its limit (and at most a second) after the limit has passed.
 */
class RunLimits {
  private readonly runs = new Set<BackgroundRun>();
  private sweeper: TimerHandle | undefined;
  private every = Number.POSITIVE_INFINITY;

  add(run: BackgroundRun, maxRunMs: number): void {
    this.runs.add(run);
    const every = Math.max(10, Math.min(1000, Math.floor(maxRunMs / 4)));
    if (this.sweeper !== undefined && every >= this.every) return;
    if (this.sweeper !== undefined) clearInterval(this.sweeper);
    this.every = every;
    this.sweeper = unrefTimer(setInterval(() => this.sweep(), every));
  }

  delete(run: BackgroundRun): void {
    if (!this.runs.delete(run) || this.runs.size > 0 || this.sweeper === undefined) return;
    clearInterval(this.sweeper);
    this.sweeper = undefined;
    this.every = Number.POSITIVE_INFINITY;
  }

  private sweep(): void {
    const now = performance.now();
    for (const run of this.runs) {
      if (now < run.deadline) continue;
      this.delete(run);
      run.controller.abort(new McpLiteError('deadline_exceeded', 'The promised work ran out of time'));
    }
  }
}

const RUN_LIMITS = new RunLimits();

/**
 * Runs promised work (a long-running tool, or a call promoted past the answer budget) in the background: aborted
 * through `controller` after `maxRunMs`, it ends as a settlement for the promise store and never rejects. `end`
 * turns its value, its rejection and what it threw into the settlement's outcome or error. `inFlight`, when given,
 * has counted the work as begun; it is told when the work ends.
 */
export function backgroundWork(
  run: () => unknown,
  controller: LazyAbort,
  maxRunMs: number,
  end: WorkEnd,
  startedAt = performance.now(),
  inFlight?: InFlight,
): Promise<Settlement> {
  const state = new BackgroundRun(end, startedAt, inFlight, controller, performance.now() + maxRunMs);
  state.settled = new Promise<Settlement>((resolve) => {
    state.resolve = resolve;
  });
  holdRunningWork(state.settled);
  RUN_LIMITS.add(state, maxRunMs);
  // An abort ends the work at once, whatever the work does afterwards.
  controller.onAbort((reason) => state.fail(reason));
  let value: unknown;
  try {
    value = run();
  } catch (err) {
    state.rejection(err);
    return state.settled;
  }
  if (isThenable(value))
    Promise.resolve(value).then(
      (v) => state.value(v),
      (err) => state.rejection(err),
    );
  else state.value(value);
  return state.settled;
}
