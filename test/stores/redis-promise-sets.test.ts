/**
 * The sorted sets behind the Redis promise store's bounds (an owner's promises, every record, the pending ones)
 * expire with their last member, whatever order the members came in, and never before it. Real Redis at
 * REDIS_URL.
 */
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { usePromiseStores } from '../support/redis-stores.js';
import { answer, record } from './promise-store-contract.js';

const REDIS_URL = process.env.REDIS_URL;
if (!REDIS_URL) console.warn('SKIPPED test/stores/redis-promise-sets.test.ts: REDIS_URL is not set');
const url = REDIS_URL ?? '';
const prefix = `mcplite-test-sets:${randomUUID()}:`;
const GRACE_MS = 600_000;

describe.skipIf(!REDIS_URL)('Redis promise store: the bound sets expire with their last member', () => {
  const { store: open } = usePromiseStores(url, prefix);

  it('moves each set expiry to its latest member, never back, and drops a settled promise from pending', async () => {
    const store = open({ expiredGraceMs: GRACE_MS });
    const admin = new Redis(url);
    try {
      const owner = 'principal:sets';
      const now = Date.now();
      const late = record({ owner, expiresAt: now + 7_200_000 });
      const early = record({ owner, expiresAt: now + 60_000 });
      const later = record({ owner, expiresAt: now + 9_000_000 });
      const expiries = () =>
        Promise.all(['o:principal:sets', 'all', 'pending'].map((k) => admin.pexpiretime(`${prefix}${k}`)));

      expect(await store.create(late, { maxPerOwner: 10 })).toBe(true);
      expect(await expiries()).toEqual([late.expiresAt, late.expiresAt + GRACE_MS, late.expiresAt]);
      // An earlier member does not shorten a set's life: the later one is still in it.
      expect(await store.create(early, { maxPerOwner: 10 })).toBe(true);
      expect(await expiries()).toEqual([late.expiresAt, late.expiresAt + GRACE_MS, late.expiresAt]);
      expect(await store.create(later, { maxPerOwner: 10 })).toBe(true);
      expect(await expiries()).toEqual([later.expiresAt, later.expiresAt + GRACE_MS, later.expiresAt]);

      expect(await admin.zcard(`${prefix}pending`)).toBe(3);
      expect(await store.settle(late.token, answer('done'))).toBe(true);
      expect(await admin.zscore(`${prefix}pending`, late.token)).toBeNull();
      expect(await store.pendingCount()).toBe(2);
      expect(await admin.zcard(`${prefix}o:${owner}`)).toBe(3);
    } finally {
      await admin.quit();
    }
  });
});
