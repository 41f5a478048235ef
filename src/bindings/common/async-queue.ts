/**
 * A one-consumer queue that is an async iterable: the producer `push`es and gets a promise that resolves when the
 * consumer has taken the item, which is how streaming bindings pass backpressure back to `ctx.partial`.
 * When the consumer stops early (client gone), the queue closes and later pushes resolve at once and are dropped.
 */
export class AsyncQueue<T> implements AsyncIterable<T> {
  private readonly items: Array<{ value: T; taken: () => void }> = [];
  private waiting: ((r: IteratorResult<T>) => void) | undefined;
  private ended = false;
  private closedByConsumer = false;
  private readonly closeListeners: Array<() => void> = [];

  /** Whether the consumer has stopped reading. */
  get consumerGone(): boolean {
    return this.closedByConsumer;
  }

  /** How many items wait for the consumer. */
  get pending(): number {
    return this.items.length;
  }

  /** Adds an item; resolves when it has been handed to the consumer. */
  push(value: T): Promise<void> {
    if (this.ended || this.closedByConsumer) return Promise.resolve();
    return new Promise<void>((taken) => {
      if (this.waiting) {
        const w = this.waiting;
        this.waiting = undefined;
        w({ value, done: false });
        taken();
      } else {
        this.items.push({ value, taken });
      }
    });
  }

  /** No more items: the consumer finishes after the queued ones. */
  end(): void {
    this.ended = true;
    if (this.waiting && this.items.length === 0) {
      const w = this.waiting;
      this.waiting = undefined;
      w({ value: undefined, done: true });
    }
  }

  /** Runs `listener` when the consumer stops early. */
  onConsumerGone(listener: () => void): void {
    this.closeListeners.push(listener);
  }

  [Symbol.asyncIterator](): AsyncIterator<T> {
    return {
      next: () => {
        const item = this.items.shift();
        if (item) {
          item.taken();
          return Promise.resolve({ value: item.value, done: false });
        }
        if (this.ended || this.closedByConsumer) return Promise.resolve({ value: undefined, done: true });
        return new Promise((resolve) => {
          this.waiting = resolve;
        });
      },
      return: () => {
        this.stopConsumer();
        return Promise.resolve({ value: undefined, done: true });
      },
    };
  }

  private stopConsumer(): void {
    if (this.closedByConsumer) return;
    this.closedByConsumer = true;
    for (const item of this.items.splice(0)) item.taken();
    for (const l of this.closeListeners) l();
  }
}
