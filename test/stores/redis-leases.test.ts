/**
 * The Redis promise store's part in local-first work: a leased promise keeps its job until it ends, and once its
 * lease runs out exactly one replica takes it over; and the records a process made and settled itself are read
 * back without Redis. Real Redis at REDIS_URL.
 */
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { usePromiseStores } from '../support/redis-stores.js';
import { answer, record } from './promise-store-contract.js';

const REDIS_URL = process.env.REDIS_URL;
if (!REDIS_URL) console.warn('SKIPPED test/stores/redis-leases.test.ts: REDIS_URL is not set');
const url = REDIS_URL ?? '';
const prefix = `mcplite-test-leases:${randomUUID()}:`;
const quota = { maxPerOwner: 100 };
const JOB = JSON.stringify({ tool: 'slow_tool', arguments: { n: 1 } });

describe.skipIf(!REDIS_URL)('Redis promise store: leased jobs and records settled here', () => {
  const { store } = usePromiseStores(url, prefix);

  it('hands the job of a lapsed lease to exactly one of ten replicas, once', async () => {
    const replicas = Array.from({ length: 10 }, () => store());
    const [a] = replicas;
    const r = record({ leaseUntil: Date.now() + 300 });
    expect(await a!.create(r, quota, JOB)).toBe(true);
    // Alive: nothing to take over, not listed as lapsed.
    expect(await a!.takeOver(r.token, Date.now())).toBeUndefined();
    expect(await a!.lapsedLeases(Date.now(), 10)).not.toContain(r.token);
    await new Promise((resolve) => setTimeout(resolve, 350));
    expect(await a!.lapsedLeases(Date.now(), 10)).toContain(r.token);
    const taken = await Promise.all(replicas.map((s) => s.takeOver(r.token, Date.now())));
    expect(taken.filter((t) => t !== undefined)).toEqual([{ job: JOB }]);
    // Taken over: still pending, no lease, no longer lapsed, and a late renewal of the dead lease does not revive it.
    await a!.renewLeases([r.token], Date.now() + 60_000);
    const after = await a!.get(r.token);
    expect(after).toMatchObject({ status: 'pending' });
    expect(after?.leaseUntil).toBeUndefined();
    expect(await a!.lapsedLeases(Date.now() + 120_000, 10)).not.toContain(r.token);
    expect(await a!.takeOver(r.token, Date.now() + 120_000, true)).toBeUndefined();
  });

  it('answers {} for a lapsed lease without a job (promoted work), and nothing for an ended promise', async () => {
    const s = store();
    const promoted = record({ leaseUntil: Date.now() - 1 });
    const ended = record({ leaseUntil: Date.now() + 60_000 });
    await s.create(promoted, quota);
    await s.create(ended, quota, JOB);
    expect(await s.takeOver(promoted.token, Date.now())).toEqual({});
    expect(await s.settle(ended.token, answer(1))).toBe(true);
    // Settling dropped the lease and the job: never listed, never taken, even when forced.
    expect(await s.lapsedLeases(Date.now() + 120_000, 100)).not.toContain(ended.token);
    expect(await s.takeOver(ended.token, Date.now() + 120_000, true)).toBeUndefined();
    const admin = new Redis(url);
    try {
      expect(await admin.hexists(`${prefix}p:${ended.token}`, 'j')).toBe(0);
    } finally {
      await admin.quit();
    }
  });

  it('hands over a live lease at once when its own replica gives it back (force)', async () => {
    const s = store();
    const r = record({ leaseUntil: Date.now() + 60_000 });
    await s.create(r, quota, JOB);
    expect(await s.takeOver(r.token, Date.now(), true)).toEqual({ job: JOB });
    expect(await s.takeOver(r.token, Date.now(), true)).toBeUndefined();
  });

  it('reads a record whose work it ran and settled once without Redis, and sees cancels made elsewhere', async () => {
    const [a, b] = [store({ expiredGraceMs: 200 }), store({ expiredGraceMs: 200 })];
    const admin = new Redis(url);
    const leased = () => record({ leaseUntil: Date.now() + 60_000, expiresAt: Date.now() + 400 });
    try {
      const mine = leased();
      await a.create(mine, quota, JOB);
      await a.settle(mine.token, answer('here'));
      // The key is gone from Redis, yet the first read here still answers the settled record; later reads ask Redis.
      await admin.del(`${prefix}p:${mine.token}`);
      expect(await a.get(mine.token)).toMatchObject({ status: 'settled', settlement: answer('here') });
      expect(await a.get(mine.token)).toBeUndefined();
      expect(await b.get(mine.token)).toBeUndefined();
      // Pending here, cancelled by another replica: the read goes to Redis.
      const theirs = leased();
      await a.create(theirs, quota, JOB);
      expect(await b.cancel(theirs.token)).toBe(true);
      expect(await a.get(theirs.token)).toMatchObject({ status: 'cancelled' });
      expect(await a.settle(theirs.token, answer('late'))).toBe(false);
      expect(await a.get(theirs.token)).toMatchObject({ status: 'cancelled' });
      // Past expiresAt + grace, an unread copy is forgotten like the key.
      const unread = leased();
      await a.create(unread, quota, JOB);
      await a.settle(unread.token, answer('unread'));
      await new Promise((resolve) => setTimeout(resolve, 650));
      expect(await a.get(unread.token)).toBeUndefined();
    } finally {
      await admin.quit();
    }
  });

  it('keeps at most recentMax records in memory, and none of work it does not run', async () => {
    const s = store({ recentMax: 3 });
    const admin = new Redis(url);
    try {
      const records = Array.from({ length: 5 }, () => record({ leaseUntil: Date.now() + 60_000 }));
      const queued = record();
      for (const r of [...records, queued]) {
        await s.create(r, quota);
        await s.settle(r.token, answer(r.token));
        await admin.del(`${prefix}p:${r.token}`);
      }
      const known = await Promise.all(records.map((r) => s.get(r.token)));
      expect(known.map((r) => r?.status)).toEqual([undefined, undefined, 'settled', 'settled', 'settled']);
      expect(await s.get(queued.token)).toBeUndefined();
    } finally {
      await admin.quit();
    }
  });
});
