/**
 * Redis promise stores for the store tests (src/stores/redis/*.test.ts): each one a test opens is closed after
 * that test, and every key under the test file's prefix is deleted after the last one.
 */
import { afterAll, afterEach } from 'vitest';
import { RedisPromiseStore, type RedisPromiseStoreOptions } from '../../src/stores/redis/promise-store.js';
import { deletePrefix } from './scale-cluster.js';

/** Something a test opens and the helper closes after it (a store, a limiter). */
interface Closable {
  close(): Promise<void>;
}

/**
 * Called in a describe: `store(options)` opens a RedisPromiseStore on `url` under `prefix` (options override),
 * `track(...)` hands over anything else to close after the test.
 */
export function usePromiseStores(url: string, prefix: string) {
  const opened: Closable[] = [];
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((s) => s.close()));
  });
  afterAll(() => deletePrefix(url, prefix));
  return {
    store(options: Partial<RedisPromiseStoreOptions> = {}): RedisPromiseStore {
      const s = new RedisPromiseStore({ url, prefix, ...options });
      opened.push(s);
      return s;
    },
    track(...items: Closable[]): void {
      opened.push(...items);
    },
  };
}
