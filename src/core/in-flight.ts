/** Counts the calls running now, so that shutdown can wait until none is (`ToolServer.drain`). */
export class InFlight {
  private count = 0;
  private idleWaiters: Array<() => void> = [];

  /** Calls running now. */
  get size(): number {
    return this.count;
  }

  /** A call started. */
  begin(): void {
    this.count++;
  }

  /** A call ended; wakes the waiters once none is left. */
  end(): void {
    this.count--;
    if (this.count === 0 && this.idleWaiters.length > 0) {
      const waiters = this.idleWaiters;
      this.idleWaiters = [];
      for (const w of waiters) w();
    }
  }

  /** Waits until no call is running, up to `graceMs`; true when everything finished in time. */
  async drain(graceMs: number): Promise<boolean> {
    if (this.count === 0) return true;
    let timer: NodeJS.Timeout | undefined;
    const idle = new Promise<boolean>((resolve) => this.idleWaiters.push(() => resolve(true)));
    const timeout = new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), graceMs);
    });
    const finished = await Promise.race([idle, timeout]);
    clearTimeout(timer);
    return finished;
  }
}
