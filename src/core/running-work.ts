import { PendingSet } from './pending-set.js';

/**
 * The promised work running in this process (every server in it), for runtimes that end a request's work when its
 * response is sent: Cloudflare Workers stop what a request started unless it is handed to `ctx.waitUntil`. The
 * fetch adapter hands over what runs when a response leaves; work a promise stands for starts before the response
 * that carries the promise, so it is always among it.
 */
const running = new PendingSet();

/** Counts `work` as running until it settles. */
export function trackRunningWork(work: Promise<unknown>): void {
  running.add(work);
}

/**
 * Counts `work` as running until `releaseRunningWork(work)`: for work that knows when it ends, which saves the
 * callbacks that watching it settle would keep for as long as it runs.
 */
export function holdRunningWork(work: Promise<unknown>): void {
  running.hold(work);
}

/** Ends what `holdRunningWork` began, as the work settles. */
export function releaseRunningWork(work: Promise<unknown>): void {
  running.release(work);
}

/** Settles when all the work running now has settled (never rejects); undefined when none runs. */
export function runningWork(): Promise<void> | undefined {
  return running.settled();
}
