/** Promises tracked until each settles, for whoever must wait until those tracked now have (never failing). */
export class PendingSet {
  private readonly items = new Set<Promise<unknown>>();

  /** Tracks `promise` until it settles (a rejection is its owner's to report, not this set's). */
  add(promise: Promise<unknown>): void {
    this.items.add(promise);
    const done = () => {
      this.items.delete(promise);
    };
    promise.then(done, done);
  }

  /** Tracks `promise` until `release(promise)`, which its owner calls as it settles it. */
  hold(promise: Promise<unknown>): void {
    this.items.add(promise);
  }

  /** Ends what `hold` began. */
  release(promise: Promise<unknown>): void {
    this.items.delete(promise);
  }

  /** Settles when every promise tracked now has settled (never rejects); undefined when none is tracked. */
  settled(): Promise<void> | undefined {
    if (this.items.size === 0) return undefined;
    return Promise.allSettled([...this.items]).then(() => {});
  }
}
