import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../../test/support/free-port.js';
import { usePromiseStores } from '../../../test/support/redis-stores.js';
import { RedisServer } from '../../../test/support/scale-cluster.js';
import { FULL, LuaScript } from './scripts.js';

const REDIS_URL = process.env.REDIS_URL;
if (!REDIS_URL) {
  console.warn(
    'SKIPPED src/stores/redis/script-batch.test.ts: REDIS_URL is not set (e.g. redis://127.0.0.1:6379)',
  );
}
const url = REDIS_URL ?? '';
const prefix = `mcplite-test:${randomUUID()}:`;

// Scripts of this test only, registered beside the stores' own (the combined script then holds them too).
const ECHO = new LuaScript(`return ARGV[1]`);
const SET_THEN_INCR = new LuaScript(`redis.call('SET', KEYS[1], ARGV[1])
return redis.call('INCR', KEYS[2])`);
const REFUSE = new LuaScript(`return redis.error_reply('${FULL.caller}')`);
const NOTHING = new LuaScript(`return nil`);
const LIST = new LuaScript(`return {ARGV[1], tonumber(ARGV[2]), false, {'nested'}}`);

/**
 * How many EVALSHA and EVAL commands the Redis of `admin` (a private redis-server: the count is Redis-wide) runs
 * while `act` runs; the scripts are loaded first, so that a NOSCRIPT retry does not count.
 */
async function scriptCommandsDuring(admin: Redis, act: () => Promise<unknown>): Promise<number> {
  await ECHO.run(admin, ['warm-up'], ['loaded']);
  await admin.config('RESETSTAT');
  await act();
  const stats = await admin.info('commandstats');
  const calls = (name: string) => Number(new RegExp(`cmdstat_${name}:calls=(\\d+)`).exec(stats)?.[1] ?? 0);
  return calls('evalsha') + calls('eval');
}

describe.skipIf(!REDIS_URL)('script batches (real Redis)', () => {
  const { store } = usePromiseStores(url, prefix);
  const client = new Redis(url);
  let privateServer: RedisServer | undefined;
  let own: Redis;
  beforeAll(async () => {
    privateServer = await new RedisServer(await freePort()).start();
    own = new Redis(privateServer.url);
  });
  afterAll(async () => {
    own?.disconnect();
    await privateServer?.kill();
    await client.quit();
  });

  it('sends the script calls of one turn as one command, each call answered with its own result', async () => {
    let results: unknown[] = [];
    const commands = await scriptCommandsDuring(own, async () => {
      results = await Promise.all(
        Array.from({ length: 60 }, (_, i) => ECHO.run(own, [`k:${i}`], [`value ${i}`])),
      );
    });
    expect(results).toEqual(Array.from({ length: 60 }, (_, i) => `value ${i}`));
    expect(commands).toBe(1);
  });

  it('splits a turn past 100 calls or 512 KB of arguments into several commands', async () => {
    const big = 'x'.repeat(300 * 1024);
    let many: unknown[] = [];
    let large: unknown[] = [];
    const commands = await scriptCommandsDuring(own, async () => {
      many = await Promise.all(Array.from({ length: 250 }, (_, i) => ECHO.run(own, [`k:${i}`], [String(i)])));
      large = await Promise.all([0, 1, 2].map((i) => ECHO.run(own, [`big:${i}`], [big])));
    });
    expect(many).toEqual(Array.from({ length: 250 }, (_, i) => String(i)));
    expect(large).toEqual([big, big, big]);
    expect(commands).toBe(3 + 3);
  });

  it('keeps each call to its own keys, reply and error within one batch', async () => {
    const key = `${prefix}k:${randomUUID()}`;
    await client.set(`${key}:string`, 'not a number');
    const calls = [
      SET_THEN_INCR.run(client, [`${key}:a`, `${key}:n`], ['first']),
      REFUSE.run(client, [], []),
      SET_THEN_INCR.run(client, [`${key}:b`, `${key}:string`], ['second']),
      NOTHING.run(client, [], []),
      LIST.run(client, [], ['text', 42]),
      SET_THEN_INCR.run(client, [`${key}:c`, `${key}:n`], ['third']),
    ];
    const settled = await Promise.allSettled(calls);
    expect(settled.map((s) => s.status)).toEqual([
      'fulfilled',
      'rejected',
      'rejected',
      'fulfilled',
      'fulfilled',
      'fulfilled',
    ]);
    expect(settled[0]).toMatchObject({ value: 1 });
    expect(String((settled[1] as PromiseRejectedResult).reason.message)).toContain(FULL.caller);
    // A command failing inside a script (INCR of a string) fails that call, after its own earlier writes.
    expect(String((settled[2] as PromiseRejectedResult).reason.message)).toMatch(/not an integer/);
    expect(settled[3]).toMatchObject({ value: null });
    expect(settled[4]).toMatchObject({ value: ['text', 42, null, ['nested']] });
    expect(settled[5]).toMatchObject({ value: 2 });
    expect(await client.mget(`${key}:a`, `${key}:b`, `${key}:c`)).toEqual(['first', 'second', 'third']);
  });

  it('makes promises in batches that honour the per-caller quota call by call', async () => {
    const s = store();
    const owner = `addr:${randomUUID()}`;
    const now = Date.now();
    const results = await Promise.allSettled(
      Array.from({ length: 12 }, (_, i) =>
        s.create(
          {
            token: `tok-${randomUUID()}`,
            tool: 't',
            status: 'pending',
            owner,
            createdAt: now,
            expiresAt: now + 60_000,
            estimatedCompletion: now + i,
          },
          { maxPerOwner: 10 },
        ),
      ),
    );
    const made = results.filter((r) => r.status === 'fulfilled' && r.value === true);
    const refused = results.filter((r) => r.status === 'rejected');
    expect(made).toHaveLength(10);
    expect(refused).toHaveLength(2);
    for (const r of refused)
      expect((r as PromiseRejectedResult).reason).toMatchObject({ code: 'resource_exhausted' });
  });

  it('loads the combined script again after SCRIPT FLUSH or a Redis restart (own redis-server)', async () => {
    const server = await new RedisServer(await freePort()).start();
    const own = new Redis(server.url, { maxRetriesPerRequest: 0, enableOfflineQueue: false });
    const ready = () =>
      new Promise<void>((resolve) => (own.status === 'ready' ? resolve() : own.once('ready', resolve)));
    try {
      await ready();
      expect(await ECHO.run(own, ['k'], ['one'])).toBe('one');
      await own.script('FLUSH');
      expect(await Promise.all([ECHO.run(own, ['k'], ['two']), NOTHING.run(own, [], [])])).toEqual([
        'two',
        null,
      ]);
      await server.kill();
      // Redis down: every call of the batch fails at once, none hangs.
      await expect(ECHO.run(own, ['k'], ['down'])).rejects.toThrow();
      await server.start();
      await ready();
      expect(await ECHO.run(own, ['k'], ['three'])).toBe('three');
    } finally {
      own.disconnect();
      await server.kill();
    }
  });
});
