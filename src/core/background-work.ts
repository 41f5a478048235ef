import { McpLiteError } from './errors.js';
import type { InFlight } from './in-flight.js';
import type { LazyAbort } from './lazy-abort.js';
import type { Outcome } from './outcomes.js';
import { toSettlement } from './promises/manager.js';
import type { Settlement } from './promises/store.js';
import { holdRunningWork, releaseRunningWork } from './running-work.js';
import { unrefTimer } from './timers.js';

/**
 * One piece of background work until it ends: the first of its outcome, its failure or its abort settles it.
 * Kept as one object with a few fields, rather than as a race of promises and their callbacks, because every
 * outstanding promise holds one for as long as its work runs: the promise chains it replaced (race, then,
 * finally, a tracking callback) were most of what an outstanding promise cost in memory.
 */
class BackgroundRun {
  ended = false;
  resolve!: (settlement: Settlement) => void;
  settled!: Promise<Settlement>;
  limit: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly toError: (err: unknown) => McpLiteError,
    private readonly startedAt: number,
    private readonly inFlight: InFlight | undefined,
  ) {}

  succeed(outcome: Outcome): void {
    if (!this.ended) this.end(toSettlement({ outcome }, performance.now() - this.startedAt));
  }

  fail(err: unknown): void {
    if (!this.ended) this.end(toSettlement({ error: this.toError(err) }, performance.now() - this.startedAt));
  }

  private end(settlement: Settlement): void {
    this.ended = true;
    clearTimeout(this.limit);
    releaseRunningWork(this.settled);
    this.inFlight?.end();
    this.resolve(settlement);
  }
}

/** The run-time limit's timer callback: a plain function (with the controller as its argument), not a closure. */
function outOfTime(controller: LazyAbort): void {
  controller.abort(new McpLiteError('deadline_exceeded', 'The promised work ran out of time'));
}

/**
 * Wraps promised work (a long-running tool, or a call promoted past the answer budget): aborted through
 * `controller` after `maxRunMs`, it ends as a settlement for the promise store and never rejects. `toError` turns
 * what the work threw (or the abort's reason) into the error kept (and logs an internal one). `inFlight`, when
 * given, has counted the work as begun; it is told when the work ends.
 */
export function backgroundWork(
  run: () => Promise<Outcome>,
  controller: LazyAbort,
  maxRunMs: number,
  toError: (err: unknown) => McpLiteError,
  startedAt = performance.now(),
  inFlight?: InFlight,
): Promise<Settlement> {
  const state = new BackgroundRun(toError, startedAt, inFlight);
  state.settled = new Promise<Settlement>((resolve) => {
    state.resolve = resolve;
  });
  holdRunningWork(state.settled);
  state.limit = setTimeout(outOfTime, maxRunMs, controller);
  unrefTimer(state.limit);
  // An abort settles the work at once, whatever the work does afterwards (as the first to settle of a race).
  controller.onAbort((reason) => state.fail(reason));
  let work: Promise<Outcome>;
  try {
    work = run();
  } catch (err) {
    work = Promise.reject(err);
  }
  work.then(
    (outcome) => state.succeed(outcome),
    (err) => state.fail(err),
  );
  return state.settled;
}
