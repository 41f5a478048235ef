/**
 * The stores of used elicitation nonces, one contract for both: a nonce is taken once until it expires; each
 * caller holds at most its bound, the store at most its own, and a bound reached refuses the caller that reached
 * it (`resource_exhausted`) without forgetting anyone's live nonce. The Redis store on a real Redis (REDIS_URL).
 */
import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { deletePrefix } from '../../test/support/scale-cluster.js';
import type { ElicitationNonceStore } from '../core/elicitation-nonces.js';
import { MemoryElicitationNonceStore } from './memory-elicitation-nonces.js';
import { RedisElicitationNonceStore } from './redis/elicitation-nonce-store.js';

const REDIS_URL = process.env.REDIS_URL;
const prefix = `mcplite-test-en-${randomBytes(6).toString('hex')}:`;
afterAll(() => (REDIS_URL ? deletePrefix(REDIS_URL, prefix) : undefined));

type Make = (bounds: { maxPerCaller: number; maxNonces: number }) => ElicitationNonceStore;

const nonce = () => randomBytes(16).toString('base64url');

function contract(name: string, make: Make) {
  describe(name, () => {
    it('takes a nonce once while it lives, and again once it expired', async () => {
      const store = make({ maxPerCaller: 10, maxNonces: 100 });
      try {
        const n = nonce();
        expect(await store.use(n, Date.now() + 60_000, 'addr:1')).toBe(true);
        expect(await store.use(n, Date.now() + 60_000, 'addr:1')).toBe(false);
        expect(await store.use(n, Date.now() + 60_000, 'addr:2')).toBe(false);
      } finally {
        await store.close?.();
      }
    });

    it("refuses a caller past its bound without forgetting its nonces or touching another caller's", async () => {
      const store = make({ maxPerCaller: 2, maxNonces: 100 });
      try {
        const mine = [nonce(), nonce()];
        for (const n of mine) expect(await store.use(n, Date.now() + 60_000, 'addr:a')).toBe(true);
        await expect(
          Promise.resolve().then(() => store.use(nonce(), Date.now() + 60_000, 'addr:a')),
        ).rejects.toMatchObject({ code: 'resource_exhausted', data: { scope: 'caller', limit: 2 } });
        expect(await store.use(nonce(), Date.now() + 60_000, 'addr:b')).toBe(true);
        for (const n of mine) expect(await store.use(n, Date.now() + 60_000, 'addr:a')).toBe(false);
      } finally {
        await store.close?.();
      }
    });

    it('refuses past the total bound', async () => {
      const store = make({ maxPerCaller: 10, maxNonces: 2 });
      try {
        expect(await store.use(nonce(), Date.now() + 60_000, 'addr:a')).toBe(true);
        expect(await store.use(nonce(), Date.now() + 60_000, 'addr:b')).toBe(true);
        await expect(
          Promise.resolve().then(() => store.use(nonce(), Date.now() + 60_000, 'addr:c')),
        ).rejects.toMatchObject({ code: 'resource_exhausted', data: { scope: 'server' } });
      } finally {
        await store.close?.();
      }
    });
  });
}

contract('MemoryElicitationNonceStore', (bounds) => new MemoryElicitationNonceStore(bounds));

describe('MemoryElicitationNonceStore expiry', () => {
  it("frees an expired nonce's place in its caller's bound", async () => {
    const store = new MemoryElicitationNonceStore({ maxPerCaller: 1 });
    expect(store.use(nonce(), Date.now() + 30, 'addr:a')).toBe(true);
    expect(() => store.use(nonce(), Date.now() + 60_000, 'addr:a')).toThrow(/Too many/);
    await new Promise((r) => setTimeout(r, 50));
    expect(store.use(nonce(), Date.now() + 60_000, 'addr:a')).toBe(true);
    expect(store.size).toBe(1);
  });
});

if (!REDIS_URL) {
  console.warn(
    'SKIPPED in src/stores/elicitation-nonce-stores.test.ts: REDIS_URL is not set, so RedisElicitationNonceStore is not tested',
  );
}

describe.skipIf(!REDIS_URL)('on Redis', () => {
  contract('RedisElicitationNonceStore', (bounds) => {
    // A prefix per store, so that the bounds of one test do not count another's nonces.
    const own = `${prefix}${randomBytes(4).toString('hex')}:`;
    return new RedisElicitationNonceStore({ url: REDIS_URL!, prefix: own, ...bounds });
  });

  it('two stores on one Redis take a nonce once between them', async () => {
    const [a, b] = [0, 1].map(() => new RedisElicitationNonceStore({ url: REDIS_URL!, prefix }));
    try {
      const n = nonce();
      const taken = await Promise.all([a, b, a, b].map((s) => s!.use(n, Date.now() + 60_000, 'addr:x')));
      expect(taken.filter(Boolean)).toHaveLength(1);
    } finally {
      await Promise.all([a!.close(), b!.close()]);
    }
  });

  it('answers unavailable when Redis cannot be reached', async () => {
    const store = new RedisElicitationNonceStore({ url: 'redis://127.0.0.1:1' });
    try {
      await expect(store.use(nonce(), Date.now() + 60_000, 'addr:x')).rejects.toMatchObject({
        code: 'unavailable',
      });
    } finally {
      await store.close();
    }
  });
});
