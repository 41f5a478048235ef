import { randomUUID } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import { Redis } from 'ioredis';
import { describe, expect, it, vi } from 'vitest';
import type { PromiseRecord, Settlement } from '../../src/core/promises/store.js';
import {
  connectRedis,
  redactUrl,
  redisReady,
  storeUnavailable,
  withRedis,
} from '../../src/stores/redis/connection.js';
import { RedisPromiseStore } from '../../src/stores/redis/promise-store.js';
import { RedisRateLimitStore } from '../../src/stores/redis/rate-limit-store.js';
import { freePort } from '../support/free-port.js';
import { usePromiseStores } from '../support/redis-stores.js';
import { RedisServer } from '../support/scale-cluster.js';
import { describePromiseStoreContract } from './promise-store-contract.js';

const REDIS_URL = process.env.REDIS_URL;
if (!REDIS_URL) {
  console.warn(
    'SKIPPED test/stores/redis-stores.test.ts: REDIS_URL is not set (e.g. redis://127.0.0.1:6379)',
  );
}
const url = REDIS_URL ?? '';
// One prefix per run, so that runs (and people) sharing the Redis never see each other's keys.
const prefix = `mcplite-test:${randomUUID()}:`;
const quota = { maxPerOwner: 100 };

describe.skipIf(!REDIS_URL)('Redis stores', () => {
  const { store, track } = usePromiseStores(url, prefix);

  describePromiseStoreContract('RedisPromiseStore', () => new RedisPromiseStore({ url, prefix }));

  it('shares records between two replicas and keeps a settled promise small', async () => {
    const [a, b] = [store(), store()];
    const r = record();
    expect(await a.create(r, quota)).toBe(true);
    expect(await b.get(r.token)).toEqual(r);
    expect(await b.create(r, quota)).toBe(false);
    expect(await b.settle(r.token, answer('ok'))).toBe(true);
    expect(await a.get(r.token)).toMatchObject({ status: 'settled', settlement: answer('ok') });
    const admin = new Redis(url);
    try {
      const bytes = Number(await admin.call('MEMORY', 'USAGE', `${prefix}p:${r.token}`));
      if (process.env.SHOW_REDIS_MEMORY) console.info(`settled record: ${bytes} bytes`);
      expect(bytes).toBeGreaterThan(0);
      expect(bytes).toBeLessThan(1024);
      // The record expires at expiresAt + grace, by Redis TTL.
      const expireAt = await admin.pexpiretime(`${prefix}p:${r.token}`);
      expect(expireAt).toBe(r.expiresAt + 600_000);
    } finally {
      await admin.quit();
    }
  });

  it('settles exactly once under 50 concurrent settle and cancel calls from two replicas', async () => {
    const [a, b] = [store(), store()];
    for (let round = 0; round < 5; round++) {
      const r = record();
      await a.create(r, quota);
      const results = await Promise.all(
        Array.from({ length: 50 }, (_, i) => {
          const s = i % 2 === 0 ? a : b;
          return i % 4 < 2 ? s.settle(r.token, answer(i)) : s.cancel(r.token);
        }),
      );
      expect(results.filter(Boolean)).toHaveLength(1);
      expect((await b.get(r.token))?.status).not.toBe('pending');
    }
  });

  it('wakes a waiter on one replica when another settles or cancels, and times out otherwise', async () => {
    const [a, b] = [store(), store()];
    const [r1, r2, r3] = [record(), record(), record()];
    for (const r of [r1, r2, r3]) await a.create(r, quota);
    const started = Date.now();
    const settled = a.waitSettled(r1.token, 10_000);
    const cancelled = a.waitSettled(r2.token, 10_000);
    setTimeout(() => void b.settle(r1.token, answer('across')), 100);
    setTimeout(() => void b.cancel(r2.token), 100);
    expect(await settled).toMatchObject({ status: 'settled', settlement: answer('across') });
    expect((await cancelled)?.status).toBe('cancelled');
    expect(Date.now() - started).toBeLessThan(2000);
    const t0 = Date.now();
    expect((await b.waitSettled(r3.token, 200))?.status).toBe('pending');
    expect(Date.now() - t0).toBeGreaterThanOrEqual(190);
    expect(a.waiterCount + b.waiterCount).toBe(0);
  });

  it('tells onCancel listeners of every replica', async () => {
    const [a, b] = [store(), store()];
    const heard: string[] = [];
    b.onCancel((token) => heard.push(token));
    const r = record();
    await a.create(r, quota);
    await a.waitSettled(r.token, 0); // both subscribers are up once a read has gone through
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await a.cancel(r.token)).toBe(true);
    await until(() => heard.includes(r.token));
  });

  it('forgets a record expiredGraceMs after it expires (Redis TTL)', async () => {
    const s = store({ expiredGraceMs: 300 });
    const r = record({ expiresAt: Date.now() + 100 });
    await s.create(r, quota);
    await new Promise((resolve) => setTimeout(resolve, 200));
    // Expired but kept: redeeming can still say "expired".
    expect((await s.get(r.token))?.expiresAt).toBe(r.expiresAt);
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(await s.get(r.token)).toBeUndefined();
  });

  it('counts the per-owner quota across replicas, and bounds the whole store', async () => {
    const [a, b] = [store(), store()];
    const owner = `principal:${randomUUID()}`;
    await a.create(record({ owner }), { maxPerOwner: 2 });
    await b.create(record({ owner }), { maxPerOwner: 2 });
    const refused = await a.create(record({ owner }), { maxPerOwner: 2 }).catch((e: unknown) => e);
    expect(refused).toMatchObject({
      code: 'resource_exhausted',
      message: expect.stringContaining('limit 2'),
      data: { limit: 2, scope: 'caller' },
    });
    const small = store({ prefix: `${prefix}small:`, maxPromises: 2 });
    await small.create(record(), quota);
    await small.create(record(), quota);
    await expect(small.create(record(), quota)).rejects.toMatchObject({
      code: 'resource_exhausted',
      data: { limit: 2, scope: 'server' },
    });
  });

  it('renews leases of pending promises across replicas', async () => {
    const [a, b] = [store(), store()];
    const [p, s] = [record({ leaseUntil: Date.now() + 100 }), record({ leaseUntil: Date.now() + 100 })];
    await a.create(p, quota);
    await a.create(s, quota);
    await a.settle(s.token, answer(1));
    const until = Date.now() + 30_000;
    await b.renewLeases([p.token, s.token, 'missing-token'], until);
    expect((await a.get(p.token))?.leaseUntil).toBe(until);
    expect((await a.get(s.token))?.leaseUntil).toBeUndefined();
    expect(await a.get('missing-token')).toBeUndefined();
  });

  it('leaves no listeners behind after 1,000 waits', async () => {
    const [a, b] = [store(), store()];
    // Both connected before the load: a store's first connection is waited for only briefly (withRedis).
    await Promise.all([a.pendingCount(), b.pendingCount()]);
    const records = Array.from({ length: 1000 }, () => record());
    await Promise.all(records.map((r) => a.create(r, { maxPerOwner: 10 })));
    const woken = Promise.all(records.map((r) => a.waitSettled(r.token, 10_000)));
    const timedOut = Promise.all(records.slice(0, 500).map((r) => b.waitSettled(r.token, 20)));
    const aborted = new AbortController();
    setMaxListeners(0, aborted.signal); // 500 waits share one signal here; a request has its own
    const abortedWaits = Promise.all(
      records.slice(500).map((r) => b.waitSettled(r.token, 10_000, aborted.signal)),
    );
    // Each wait reads its record before it listens: on a loaded machine that takes more than a moment.
    await vi.waitFor(() => expect(a.waiterCount).toBeGreaterThan(0), { timeout: 5000, interval: 20 });
    aborted.abort();
    await Promise.all(records.map((r) => b.settle(r.token, answer(r.token))));
    expect((await woken).every((r) => r?.status === 'settled')).toBe(true);
    await timedOut;
    await abortedWaits;
    expect(a.waiterCount).toBe(0);
    expect(b.waiterCount).toBe(0);
  });

  it('rate-limits with a token bucket shared by two replicas', async () => {
    const a = new RedisRateLimitStore({ url, prefix });
    const b = new RedisRateLimitStore({ url, prefix });
    track(a, b);
    const key = `addr:${randomUUID()}`;
    // 10 per second, burst 3: three go, the fourth waits about 100 ms, on either replica.
    expect(await a.take(key, 10, 3, Date.now())).toBe(0);
    expect(await b.take(key, 10, 3, Date.now())).toBe(0);
    expect(await a.take(key, 10, 3, Date.now())).toBe(0);
    const wait = await b.take(key, 10, 3, Date.now());
    expect(wait).toBeGreaterThan(0);
    expect(wait).toBeLessThanOrEqual(100);
    const admin = new Redis(url);
    try {
      const ttl = await admin.pttl(`${prefix}rl:${key}`);
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(300);
    } finally {
      await admin.quit();
    }
    await new Promise((resolve) => setTimeout(resolve, wait + 20));
    expect(await a.take(key, 10, 3, Date.now())).toBe(0);
    expect(await b.take(key, 10, 3, Date.now())).toBeGreaterThan(0);
    // Another caller has its own bucket.
    expect(await b.take(`addr:${randomUUID()}`, 10, 3, Date.now())).toBe(0);
  });

  it('says unavailable within a second when Redis is down, and recovers when it is back', async () => {
    const server = await new RedisServer(await freePort()).start();
    const downUrl = server.url;
    try {
      const [a, b, c] = [store({ url: downUrl }), store({ url: downUrl }), store({ url: downUrl })];
      const limiter = new RedisRateLimitStore({ url: downUrl, prefix });
      track(limiter);
      const r = record();
      expect(await a.create(r, quota)).toBe(true);
      await a.ping();
      await server.kill();
      for (const op of [
        () => a.get(r.token),
        () => a.create(record(), quota),
        () => a.ping(),
        () => b.settle(r.token, answer(1)),
        () => a.waitSettled(r.token, 5000),
        () => limiter.take('k', 1, 1, Date.now()),
      ]) {
        const started = Date.now();
        const err = await op().then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(err).toMatchObject({
          code: 'unavailable',
          message: expect.stringContaining('The state store (Redis) is unavailable'),
        });
        expect(Date.now() - started).toBeLessThan(1000);
      }
      const closing = Date.now();
      await c.close();
      expect(Date.now() - closing).toBeLessThan(1000);
      await server.start();
      await until(
        async () =>
          (await a.ping().then(
            () => true,
            () => false,
          )) && redisReady(a['client']),
        8000,
      );
      await until(
        async () =>
          b.ping().then(
            () => true,
            () => false,
          ),
        8000,
      );
      // The data died with the server (no persistence); the stores work again, pub/sub included.
      const fresh = record();
      expect(await a.create(fresh, quota)).toBe(true);
      const heard: string[] = [];
      a.onCancel((token) => heard.push(token));
      await new Promise((resolve) => setTimeout(resolve, 300));
      const waiting = a.waitSettled(fresh.token, 5000);
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(await b.cancel(fresh.token)).toBe(true);
      expect((await waiting)?.status).toBe('cancelled');
      await until(() => heard.includes(fresh.token));
      await until(async () => (await limiter.take('k2', 1, 1, Date.now()).catch(() => -1)) === 0, 8000);
    } finally {
      await server.kill();
    }
  });

  it('connects fast: a new client waits for its first connection, a dead address fails within a second', async () => {
    const client = connectRedis(url);
    const nowhere = connectRedis(`redis://127.0.0.1:${await freePort()}`);
    try {
      expect(await withRedis(client, () => client.ping())).toBe('PONG');
      expect(redisReady(client)).toBe(true);
      const started = Date.now();
      await expect(withRedis(nowhere, () => nowhere.ping())).rejects.toMatchObject({ code: 'unavailable' });
      expect(Date.now() - started).toBeLessThan(1000);
      expect(redisReady(nowhere)).toBe(false);
    } finally {
      await client.quit();
      nowhere.disconnect();
    }
  });

  it('maps failures to unavailable without leaking a password', () => {
    const err = storeUnavailable(new Error('connect ECONNREFUSED redis://user:secret@10.0.0.1:6379'));
    expect(err.code).toBe('unavailable');
    expect(err.message).not.toContain('secret');
    expect(redactUrl('redis://user:secret@host:6379/0')).not.toContain('secret');
  });
});

function record(overrides: Partial<PromiseRecord> = {}): PromiseRecord {
  const now = Date.now();
  return {
    token: `tok-${randomUUID()}`,
    tool: 'slow_tool',
    status: 'pending',
    owner: `addr:${randomUUID()}`,
    createdAt: now,
    expiresAt: now + 3_600_000,
    estimatedCompletion: now + 1000,
    ...overrides,
  };
}

function answer(result: unknown): Settlement {
  return { outcome: { type: 'answer', result }, processingTimeMs: 3 };
}

async function until(check: () => boolean | Promise<boolean>, ms = 2000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
