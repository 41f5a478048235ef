import { describe, expect, it } from 'vitest';
import type { PromiseRecord } from '../../src/core/promises/store.js';
import { isWellFormedToken, newPromiseToken } from '../../src/core/promises/token.js';
import { MemoryPromiseStore } from '../../src/stores/memory.js';
import { describePromiseStoreContract } from './promise-store-contract.js';

describePromiseStoreContract('MemoryPromiseStore', () => new MemoryPromiseStore());

function record(token = newPromiseToken(), ttl = 60_000): PromiseRecord {
  const now = Date.now();
  return {
    token,
    tool: 't',
    status: 'pending',
    owner: 'anonymous',
    createdAt: now,
    expiresAt: now + ttl,
    estimatedCompletion: now,
  };
}
const QUOTA = { maxPerOwner: 1000 };
const answer = (n: number) => ({ outcome: { type: 'answer' as const, result: n }, processingTimeMs: 1 });

describe('memory promise store', () => {
  it('makes unguessable, well-formed, unique tokens', () => {
    const tokens = new Set(Array.from({ length: 10_000 }, newPromiseToken));
    expect(tokens.size).toBe(10_000);
    for (const t of [...tokens].slice(0, 50)) expect(isWellFormedToken(t)).toBe(true);
    expect(isWellFormedToken('prom_short')).toBe(false);
    expect(isWellFormedToken(123)).toBe(false);
  });

  it('refuses a duplicate token', async () => {
    const store = new MemoryPromiseStore();
    const r = record();
    expect(await store.create(r, QUOTA)).toBe(true);
    expect(await store.create(r, QUOTA)).toBe(false);
    await store.close();
  });

  it('settles a promise exactly once under racing settles and cancels', async () => {
    const store = new MemoryPromiseStore();
    const r = record();
    await store.create(r, QUOTA);
    const results = await Promise.all([
      store.settle(r.token, answer(1)),
      store.cancel(r.token),
      store.settle(r.token, answer(2)),
      store.cancel(r.token),
    ]);
    expect(results.filter(Boolean)).toHaveLength(1);
    const final = await store.get(r.token);
    expect(final?.status).toBe('settled');
    expect(final?.settlement).toEqual(answer(1));
    await store.close();
  });

  it('wakes a waiting redeem when the promise settles, and times out otherwise', async () => {
    const store = new MemoryPromiseStore();
    const r = record();
    await store.create(r, QUOTA);
    const waiting = store.waitSettled(r.token, 5_000);
    setTimeout(() => void store.settle(r.token, answer(7)), 20);
    expect((await waiting)?.status).toBe('settled');
    const other = record();
    await store.create(other, QUOTA);
    expect((await store.waitSettled(other.token, 20))?.status).toBe('pending');
    await store.close();
  });

  it('tells cancel listeners', async () => {
    const store = new MemoryPromiseStore();
    const r = record();
    await store.create(r, QUOTA);
    const seen: string[] = [];
    store.onCancel((t) => seen.push(t));
    await store.cancel(r.token);
    expect(seen).toEqual([r.token]);
    await store.close();
  });

  it('bounds its size without dropping a live promise: only expired records make room', async () => {
    const store = new MemoryPromiseStore({ maxEntries: 3 });
    const a = record();
    const b = record();
    const c = record(undefined, -1);
    for (const r of [a, b, c]) await store.create(r, QUOTA);
    await store.settle(b.token, answer(1));
    const d = record();
    expect(await store.create(d, QUOTA)).toBe(true);
    expect(await store.get(c.token)).toBeUndefined();
    await expect(store.create(record(), QUOTA)).rejects.toMatchObject({
      code: 'resource_exhausted',
      data: { scope: 'server' },
    });
    for (const r of [a, b, d]) expect(await store.get(r.token)).toBeDefined();
    expect((await store.get(b.token))?.settlement).toEqual(answer(1));
    await store.close();
  });

  it("refuses an owner past its quota, never touching another owner's promises; expiry frees the quota", async () => {
    const store = new MemoryPromiseStore();
    const quota = { maxPerOwner: 2 };
    const mine = (ttl = 60_000) => ({ ...record(undefined, ttl), owner: 'addr:10.0.0.1' });
    const theirs = { ...record(), owner: 'addr:10.0.0.2' };
    await store.create(theirs, quota);
    const short = mine(50);
    await store.create(short, quota);
    await store.create(mine(), quota);
    await expect(store.create(mine(), quota)).rejects.toMatchObject({
      code: 'resource_exhausted',
      data: { limit: 2, scope: 'caller' },
    });
    expect(await store.create({ ...record(), owner: 'addr:10.0.0.2' }, quota)).toBe(true);
    expect(await store.get(theirs.token)).toBeDefined();
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(await store.create(mine(), quota)).toBe(true);
    await store.close();
  });

  it('renews the lease of pending promises only', async () => {
    const store = new MemoryPromiseStore();
    const p = { ...record(), leaseUntil: 1 };
    const s = { ...record(), leaseUntil: 1 };
    await store.create(p, QUOTA);
    await store.create(s, QUOTA);
    await store.settle(s.token, answer(1));
    await store.renewLeases([p.token, s.token, 'prom_unknown'], 5_000);
    expect((await store.get(p.token))?.leaseUntil).toBe(5_000);
    expect((await store.get(s.token))?.leaseUntil).toBe(1);
    await store.close();
  });

  it('keeps expired records for a grace period, then sweeps them', async () => {
    const store = new MemoryPromiseStore({ expiredGraceMs: 0, sweepIntervalMs: 10 });
    const r = record(undefined, -1);
    await store.create(r, QUOTA);
    expect(await store.get(r.token)).toBeDefined();
    await new Promise((resolve) => setTimeout(resolve, 40));
    expect(await store.get(r.token)).toBeUndefined();
    await store.close();
  });
});
