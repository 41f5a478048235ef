import { describe, expect, it } from 'vitest';
import type { PromiseRecord } from '../core/promises/store.js';
import { isWellFormedToken, newPromiseToken } from '../core/promises/token.js';
import { MemoryPromiseStore } from './memory.js';

function record(token = newPromiseToken(), ttl = 60_000): PromiseRecord {
  const now = Date.now();
  return {
    token,
    tool: 't',
    status: 'pending',
    createdAt: now,
    expiresAt: now + ttl,
    estimatedCompletion: now,
  };
}
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
    expect(await store.create(r)).toBe(true);
    expect(await store.create(r)).toBe(false);
    await store.close();
  });

  it('settles a promise exactly once under racing settles and cancels', async () => {
    const store = new MemoryPromiseStore();
    const r = record();
    await store.create(r);
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
    await store.create(r);
    const waiting = store.waitSettled(r.token, 5_000);
    setTimeout(() => void store.settle(r.token, answer(7)), 20);
    expect((await waiting)?.status).toBe('settled');
    const other = record();
    await store.create(other);
    expect((await store.waitSettled(other.token, 20))?.status).toBe('pending');
    await store.close();
  });

  it('tells cancel listeners', async () => {
    const store = new MemoryPromiseStore();
    const r = record();
    await store.create(r);
    const seen: string[] = [];
    store.onCancel((t) => seen.push(t));
    await store.cancel(r.token);
    expect(seen).toEqual([r.token]);
    await store.close();
  });

  it('bounds its size: the oldest finished promises go first, and pending ones are never dropped', async () => {
    const store = new MemoryPromiseStore({ maxEntries: 3 });
    const a = record();
    const b = record();
    const c = record();
    for (const r of [a, b, c]) await store.create(r);
    await store.settle(b.token, answer(1));
    await store.settle(c.token, answer(2));
    const d = record();
    expect(await store.create(d)).toBe(true);
    expect(await store.get(b.token)).toBeUndefined();
    expect(await store.get(a.token)).toBeDefined();
    const e = record();
    expect(await store.create(e)).toBe(true);
    expect(await store.get(c.token)).toBeUndefined();
    await expect(store.create(record())).rejects.toMatchObject({ code: 'resource_exhausted' });
    await store.close();
  });

  it('keeps expired records for a grace period, then sweeps them', async () => {
    const store = new MemoryPromiseStore({ expiredGraceMs: 0, sweepIntervalMs: 10 });
    const r = record(undefined, -1);
    await store.create(r);
    expect(await store.get(r.token)).toBeDefined();
    await new Promise((resolve) => setTimeout(resolve, 40));
    expect(await store.get(r.token)).toBeUndefined();
    await store.close();
  });
});
