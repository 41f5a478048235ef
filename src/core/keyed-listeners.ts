/**
 * Listeners grouped by a key (a session's messages, a job's partial results): added and removed one by one, told
 * together. A key's set goes when its last listener does, so that the map holds only keys someone listens to.
 */
export class KeyedListeners<T> {
  private readonly byKey = new Map<string, Set<(value: T) => void>>();

  /** Adds a listener of `key`; answers the function that removes it. */
  add(key: string, listener: (value: T) => void): () => void {
    let set = this.byKey.get(key);
    if (!set) {
      set = new Set();
      this.byKey.set(key, set);
    }
    set.add(listener);
    return () => {
      const s = this.byKey.get(key);
      s?.delete(listener);
      if (s?.size === 0) this.byKey.delete(key);
    };
  }

  /** Hands `value` to every listener of `key` (those added meanwhile wait for the next one). */
  emit(key: string, value: T): void {
    const set = this.byKey.get(key);
    if (set) for (const listener of [...set]) listener(value);
  }

  /** Forgets every listener of `key`. */
  delete(key: string): void {
    this.byKey.delete(key);
  }

  clear(): void {
    this.byKey.clear();
  }
}
