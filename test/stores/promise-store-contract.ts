import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { PromiseRecord, PromiseStore, Settlement } from '../../src/core/promises/store.js';

/**
 * The behaviours every `PromiseStore` must have (the contract of `core/promises/store.ts`), as one vitest
 * `describe` block that any store's test file runs against its own store: `makeStore` is called before each test
 * and the store closed after it. Only the interface is used, so the same block checks the memory store, the Redis
 * store and any future one; what only a networked store can show (two replicas, TTL, Redis down) stays in that
 * store's own tests. Each test uses fresh tokens and owners, so a store may keep data between tests.
 *
 * This file imports vitest: it is for test files only, never for runtime code.
 */
export function describePromiseStoreContract(
  name: string,
  makeStore: () => PromiseStore | Promise<PromiseStore>,
): void {
  describe(`PromiseStore contract: ${name}`, () => {
    let store: PromiseStore;
    const quota = { maxPerOwner: 1000 };

    beforeEach(async () => {
      store = await makeStore();
    });
    afterEach(async () => {
      await store.close();
    });

    it('answers undefined and false for an unknown token', async () => {
      const token = fresh('unknown');
      expect(await store.get(token)).toBeUndefined();
      expect(await store.settle(token, answer('x'))).toBe(false);
      expect(await store.cancel(token)).toBe(false);
      expect(await store.waitSettled(token, 50)).toBeUndefined();
      await store.renewLeases([token], Date.now() + 1000);
      expect(await store.get(token)).toBeUndefined();
    });

    it('stores a record as given, and refuses a token that exists', async () => {
      const r = record({ leaseUntil: Date.now() + 5000 });
      expect(await store.create(r, quota)).toBe(true);
      expect(await store.get(r.token)).toEqual(r);
      expect(await store.create({ ...r, tool: 'other' }, quota)).toBe(false);
      expect((await store.get(r.token))?.tool).toBe(r.tool);
    });

    it('settles a pending promise exactly once, keeping the settlement as given', async () => {
      const r = record();
      await store.create(r, quota);
      const s: Settlement = {
        outcome: { type: 'answer', result: { items: [], nested: { list: [1, 2.5, 'x'], empty: {} } } },
        processingTimeMs: 12.5,
      };
      expect(await store.settle(r.token, s)).toBe(true);
      expect(await store.settle(r.token, answer('again'))).toBe(false);
      expect(await store.cancel(r.token)).toBe(false);
      const got = await store.get(r.token);
      expect(got?.status).toBe('settled');
      expect(got?.settlement).toEqual(s);
    });

    it('keeps an error settlement', async () => {
      const r = record();
      await store.create(r, quota);
      const s: Settlement = {
        error: { code: 'deadline_exceeded', message: 'too slow', data: { limitMs: 5 } },
        processingTimeMs: 5,
      };
      expect(await store.settle(r.token, s)).toBe(true);
      expect((await store.get(r.token))?.settlement).toEqual(s);
    });

    it('cancels a pending promise exactly once and tells onCancel listeners', async () => {
      const r = record();
      await store.create(r, quota);
      const heard: string[] = [];
      const off = store.onCancel((token) => heard.push(token));
      expect(await store.cancel(r.token)).toBe(true);
      expect(await store.cancel(r.token)).toBe(false);
      expect(await store.settle(r.token, answer('late'))).toBe(false);
      expect((await store.get(r.token))?.status).toBe('cancelled');
      await until(() => heard.includes(r.token));
      off();
      const r2 = record();
      await store.create(r2, quota);
      await store.cancel(r2.token);
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(heard).not.toContain(r2.token);
    });

    it('lets exactly one of many concurrent settle and cancel calls win', async () => {
      const r = record();
      await store.create(r, quota);
      const results = await Promise.all(
        Array.from({ length: 50 }, (_, i) =>
          i % 2 === 0 ? store.settle(r.token, answer(i)) : store.cancel(r.token),
        ),
      );
      expect(results.filter(Boolean)).toHaveLength(1);
      const winner = results.indexOf(true);
      const got = await store.get(r.token);
      expect(got?.status).toBe(winner % 2 === 0 ? 'settled' : 'cancelled');
      if (winner % 2 === 0) expect(got?.settlement).toEqual(answer(winner));
    });

    it('wakes waitSettled when the promise settles', async () => {
      const r = record();
      await store.create(r, quota);
      const started = Date.now();
      const waiting = store.waitSettled(r.token, 5000);
      setTimeout(() => void store.settle(r.token, answer('done')), 50);
      const got = await waiting;
      expect(got?.status).toBe('settled');
      expect(Date.now() - started).toBeLessThan(2000);
    });

    it('wakes waitSettled when the promise is cancelled', async () => {
      const r = record();
      await store.create(r, quota);
      const waiting = store.waitSettled(r.token, 5000);
      setTimeout(() => void store.cancel(r.token), 50);
      expect((await waiting)?.status).toBe('cancelled');
    });

    it('answers waitSettled at once for a finished promise, and with the pending record after the timeout', async () => {
      const done = record();
      await store.create(done, quota);
      await store.settle(done.token, answer(1));
      expect((await store.waitSettled(done.token, 5000))?.status).toBe('settled');
      const r = record();
      await store.create(r, quota);
      const started = Date.now();
      const got = await store.waitSettled(r.token, 150);
      expect(got?.status).toBe('pending');
      expect(Date.now() - started).toBeGreaterThanOrEqual(140);
      expect(Date.now() - started).toBeLessThan(2000);
    });

    it('ends waitSettled early when its signal aborts', async () => {
      const r = record();
      await store.create(r, quota);
      const controller = new AbortController();
      const started = Date.now();
      setTimeout(() => controller.abort(), 50);
      expect((await store.waitSettled(r.token, 5000, controller.signal))?.status).toBe('pending');
      expect(Date.now() - started).toBeLessThan(2000);
    });

    it('refuses an owner past its quota without touching anyone else', async () => {
      const owner = fresh('owner');
      const mine = [record({ owner }), record({ owner }), record({ owner })];
      for (const r of mine) expect(await store.create(r, { maxPerOwner: 3 })).toBe(true);
      // Finished promises still count until they expire.
      await store.settle(mine[0]!.token, answer(0));
      await store.cancel(mine[1]!.token);
      const refused = await store.create(record({ owner }), { maxPerOwner: 3 }).catch((e: unknown) => e);
      expect(refused).toMatchObject({ code: 'resource_exhausted' });
      const other = record({ owner: fresh('other') });
      expect(await store.create(other, { maxPerOwner: 3 })).toBe(true);
      for (const r of [...mine, other]) expect(await store.get(r.token)).toBeDefined();
      expect((await store.get(mine[2]!.token))?.status).toBe('pending');
    });

    it('frees quota when promises expire', async () => {
      const owner = fresh('owner');
      const soon = Date.now() + 200;
      expect(await store.create(record({ owner, expiresAt: soon }), { maxPerOwner: 2 })).toBe(true);
      expect(await store.create(record({ owner, expiresAt: soon }), { maxPerOwner: 2 })).toBe(true);
      await expect(store.create(record({ owner }), { maxPerOwner: 2 })).rejects.toMatchObject({
        code: 'resource_exhausted',
      });
      await new Promise((resolve) => setTimeout(resolve, 400));
      expect(await store.create(record({ owner }), { maxPerOwner: 2 })).toBe(true);
    });

    it('renews the leases of pending promises only', async () => {
      const pending = record({ leaseUntil: Date.now() + 1000 });
      const settled = record({ leaseUntil: Date.now() + 1000 });
      const cancelled = record();
      for (const r of [pending, settled, cancelled]) await store.create(r, quota);
      await store.settle(settled.token, answer('x'));
      await store.cancel(cancelled.token);
      const until = Date.now() + 60_000;
      await store.renewLeases([pending.token, settled.token, cancelled.token, fresh('unknown')], until);
      await store.renewLeases([], until);
      expect((await store.get(pending.token))?.leaseUntil).toBe(until);
      expect((await store.get(settled.token))?.leaseUntil).not.toBe(until);
      expect((await store.get(cancelled.token))?.leaseUntil).not.toBe(until);
      expect((await store.get(settled.token))?.status).toBe('settled');
    });
  });
}

/** A fresh, unique name (token or owner) for one test. */
function fresh(kind: string): string {
  return `${kind}-${randomUUID()}`;
}

/** A pending record with fresh token and owner, an hour to live; `overrides` replace fields. */
export function record(overrides: Partial<PromiseRecord> = {}): PromiseRecord {
  const now = Date.now();
  return {
    token: fresh('tok'),
    tool: 'contract_tool',
    status: 'pending',
    owner: fresh('principal:'),
    createdAt: now,
    expiresAt: now + 3_600_000,
    estimatedCompletion: now + 1000,
    ...overrides,
  };
}

/** A settlement answering `result`. */
export function answer(result: unknown): Settlement {
  return { outcome: { type: 'answer', result }, processingTimeMs: 1 };
}

/** Resolves once `check` holds, polling every 10 ms for at most 2 s (then fails the test). */
async function until(check: () => boolean): Promise<void> {
  const deadline = Date.now() + 2000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not met within 2 s');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
