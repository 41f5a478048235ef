/**
 * The session-state stores against one contract (`core/session-state.ts`): the memory store always, the Redis store
 * against a real Redis at REDIS_URL (skipped, with a warning, without one), there also as two instances sharing one
 * prefix (two replicas). Sessions and their owner check, the count bounds (per caller, in total, per kind), event
 * logs bounded by count and bytes, subscriptions bounded, server-request waiters (delivered once, from another
 * instance, or timing out), task-resume data bounded and expiring, and publish/listen.
 */
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import type { SessionStateStore, SessionStoreOptions, TaskResumeData } from '../../src/core/session-state.js';
import { MemorySessionStore } from '../../src/stores/memory-sessions.js';
import { RedisSessionStore } from '../../src/stores/redis/session-store.js';
import { waitFor } from '../support/scale-cluster.js';

const REDIS_URL = process.env.REDIS_URL;
if (!REDIS_URL) {
  console.warn(
    'SKIPPED the Redis half of test/scale-out/session-stores.test.ts: REDIS_URL is not set (e.g. redis://127.0.0.1:6379)',
  );
}

const prefixes: string[] = [];
const opened: SessionStateStore[] = [];

afterAll(async () => {
  for (const s of opened) await s.close();
  if (!REDIS_URL || prefixes.length === 0) return;
  const redis = new Redis(REDIS_URL);
  try {
    for (const prefix of prefixes) {
      const keys = await redis.keys(`${prefix}*`);
      if (keys.length > 0) await redis.del(...keys);
    }
  } finally {
    redis.disconnect();
  }
});

/** Two views of one store: the same instance (memory), or two instances over one prefix (Redis). */
type Pair = (options?: SessionStoreOptions) => [SessionStateStore, SessionStateStore];

const memory: Pair = (options) => {
  const s = new MemorySessionStore(options);
  opened.push(s);
  return [s, s];
};

const redis: Pair = (options) => {
  const prefix = `mcplite-test-${randomBytes(6).toString('hex')}:`;
  prefixes.push(prefix);
  const a = new RedisSessionStore({ url: REDIS_URL!, prefix, ...options });
  const b = new RedisSessionStore({ url: REDIS_URL!, prefix, ...options });
  opened.push(a, b);
  return [a, b];
};

const init = (owner: string, kind?: string) => ({
  revision: '2025-06-18',
  clientCapabilities: { elicitation: {} },
  clientInfo: { name: 'c' },
  owner,
  ...(kind ? { kind } : {}),
});

function task(owner: string, expiresAt: number): TaskResumeData {
  return { tool: 't', arguments: { a: 1 }, token: 'tok', answered: [], lastUpdatedAt: 1, owner, expiresAt };
}

const cases: Array<[string, Pair, boolean]> = [
  ['memory', memory, true],
  ['Redis (two instances, one prefix)', redis, Boolean(REDIS_URL)],
];

for (const [name, pair, enabled] of cases) {
  describe.skipIf(!enabled)(`session store: ${name}`, () => {
    it('creates, reads (owner check), updates and deletes a session', async () => {
      const [a, b] = pair();
      const r = await a.create(init('principal:ada'));
      expect(r.id).toMatch(/^[0-9a-f]{32}$/);
      const got = await b.get(r.id, 'principal:ada');
      expect(got).toMatchObject({
        owner: 'principal:ada',
        revision: '2025-06-18',
        clientCapabilities: { elicitation: {} },
        clientInfo: { name: 'c' },
        initialized: false,
        subscriptions: [],
      });
      expect(await b.get(r.id, 'principal:bob')).toBeUndefined();
      await b.update(r.id, { initialized: true, logLevel: 'info' });
      await b.subscribe(r.id, 'test://x');
      expect(await a.peek(r.id)).toMatchObject({
        initialized: true,
        logLevel: 'info',
        subscriptions: ['test://x'],
      });
      await a.unsubscribe(r.id, 'test://x');
      expect((await b.get(r.id))?.subscriptions).toEqual([]);
      expect(await a.ids()).toContain(r.id);
      expect(await b.delete(r.id, 'principal:bob')).toBe(false);
      expect(await b.delete(r.id, 'principal:ada')).toBe(true);
      expect(await a.get(r.id)).toBeUndefined();
      expect(await a.touch(r.id)).toBe(false);
    });

    it("keeps a session's dialect (a known one only), with its subscriptions", async () => {
      const [a, b] = pair();
      const draft = await a.create({ ...init('addr:d'), dialect: 'draft-seed' });
      expect(draft.dialect).toBe('draft-seed');
      await a.subscribe(draft.id, 'test://d');
      expect(await b.get(draft.id)).toMatchObject({ dialect: 'draft-seed', subscriptions: ['test://d'] });
      expect((await b.peek(draft.id))?.dialect).toBe('draft-seed');
      const plain = await a.create(init('addr:d'));
      expect(plain.dialect).toBeUndefined();
      expect((await b.get(plain.id))?.dialect).toBeUndefined();
      const unknown = await a.create({ ...init('addr:d'), dialect: 'klingon' as 'draft-seed' });
      expect((await b.get(unknown.id))?.dialect).toBeUndefined();
    });

    it('bounds sessions per caller and in total, per kind, never evicting a live one', async () => {
      const [a, b] = pair({ maxSessionsPerCaller: 2, maxSessions: 3 });
      const one = await a.create(init('addr:1'));
      await b.create(init('addr:1'));
      await expect(a.create(init('addr:1'))).rejects.toMatchObject({
        code: 'resource_exhausted',
        data: { limit: 2, scope: 'caller' },
      });
      await b.create(init('addr:2'));
      await expect(a.create(init('addr:3'))).rejects.toMatchObject({
        code: 'resource_exhausted',
        data: { limit: 3, scope: 'server' },
      });
      // Another kind has its own count.
      await a.create(init('addr:1', 'sse'), { maxSessions: 1, maxSessionsPerCaller: 1 });
      await expect(
        b.create(init('addr:4', 'sse'), { maxSessions: 1, maxSessionsPerCaller: 1 }),
      ).rejects.toMatchObject({ code: 'resource_exhausted' });
      expect(await a.get(one.id)).toBeDefined();
      await b.delete(one.id);
      await a.create(init('addr:1'));
    });

    it('keeps the newest events within the count and the bytes, and replays those of one stream', async () => {
      const [a, b] = pair({ maxEvents: 4, maxEventBytes: 2000 });
      const { id } = await a.create(init('addr:1'));
      for (let i = 1; i <= 6; i++) {
        await a.appendEvent(id, { id: `e${i}`, stream: i % 2 ? 'get' : 'p', data: `m${i}` });
      }
      expect(await b.eventsAfter(id, 'e1')).toBeUndefined();
      expect(await b.eventsAfter(id, 'e3')).toEqual({
        stream: 'get',
        events: [{ id: 'e5', stream: 'get', data: 'm5' }],
      });
      // Within the count (4) but past the bytes (2000): the oldest go until the rest fits.
      await b.appendEvent(id, { id: 'big', stream: 'get', data: 'x'.repeat(1500) });
      await b.appendEvent(id, { id: 'big2', stream: 'get', data: 'y'.repeat(600) });
      await b.appendEvent(id, { id: 'after', stream: 'get', data: 'z' });
      expect(await a.eventsAfter(id, 'e6')).toBeUndefined();
      expect(await a.eventsAfter(id, 'big')).toBeUndefined();
      expect((await a.eventsAfter(id, 'big2'))?.events.map((e) => e.id)).toEqual(['after']);
    });

    it('bounds subscriptions per session', async () => {
      const [a, b] = pair({ maxSubscriptions: 2 });
      const { id } = await a.create(init('addr:1'));
      await a.subscribe(id, 'u1');
      await b.subscribe(id, 'u2');
      await b.subscribe(id, 'u2');
      await expect(a.subscribe(id, 'u3')).rejects.toMatchObject({
        code: 'resource_exhausted',
        data: { limit: 2 },
      });
    });

    it('delivers a server response from the other instance exactly once, and times out without one', async () => {
      const [a, b] = pair();
      const waiter = await a.awaitResponse('srv-1', 5000);
      expect(await b.deliverResponse('srv-1', { result: { ok: true } })).toBe(true);
      expect(await b.deliverResponse('srv-1', { result: { ok: false } })).toBe(false);
      expect(await waiter.response).toEqual({ result: { ok: true } });
      const late = await a.awaitResponse('srv-2', 50);
      await expect(late.response).rejects.toMatchObject({ code: 'deadline_exceeded' });
      const cancelled = await a.awaitResponse('srv-3', 5000);
      cancelled.cancel();
      // A cancel is let go on the instance's own connection: one more round trip there has it done before.
      await a.peek('none');
      expect(await b.deliverResponse('srv-3', { result: {} })).toBe(false);
    });

    it('carries messages to the listeners of a session on the other instance', async () => {
      const [a, b] = pair();
      const heard: unknown[] = [];
      const stop = await b.listen('s1', (m) => heard.push(m));
      await a.publish('s1', { type: 'event', stream: 'get', id: 'x', chunk: 'c' });
      await a.publish('s2', { type: 'closed' });
      // Published after s2's message on the same connection: once it is heard, s2's would have been too.
      await a.publish('s1', { type: 'event', stream: 'get', id: 'y', chunk: 'last' });
      await waitFor(() => heard.length >= 2, 5000, 'the messages of s1');
      expect(heard).toEqual([
        { type: 'event', stream: 'get', id: 'x', chunk: 'c' },
        { type: 'event', stream: 'get', id: 'y', chunk: 'last' },
      ]);
      stop();
      const { id } = await a.create(init('addr:1'));
      const closed: unknown[] = [];
      await b.listen(id, (m) => closed.push(m));
      await a.delete(id);
      await waitFor(() => closed.length > 0, 5000, 'the closed message');
      expect(closed).toEqual([{ type: 'closed' }]);
    });

    it('bounds task-resume data per caller and in total, replaces it, and forgets it when the task expires', async () => {
      const [a, b] = pair();
      const bounds = { maxTasksPerCaller: 1, maxTasks: 2 };
      const soon = Date.now() + 300;
      await a.addTask('t1', task('addr:1', soon), bounds);
      await expect(b.addTask('t2', task('addr:1', soon), bounds)).rejects.toMatchObject({
        code: 'resource_exhausted',
        data: { scope: 'caller', limit: 1 },
      });
      await b.addTask('t3', task('addr:2', soon), bounds);
      await expect(a.admitTask('addr:3', bounds)).rejects.toMatchObject({
        data: { scope: 'server', limit: 2 },
      });
      await b.putTask('t1', { ...task('addr:1', soon), answered: ['k'], arguments: undefined });
      const got = await a.getTask('t1');
      expect(got?.answered).toEqual(['k']);
      expect(got?.arguments).toBeUndefined();
      await waitFor(async () => (await b.getTask('t1')) === undefined, 5000, 't1 to expire');
      await a.admitTask('addr:1', bounds);
    });

    it("pages a caller's own live task ids", async () => {
      const [a, b] = pair();
      const bounds = { maxTasksPerCaller: 10, maxTasks: 10 };
      const at = Date.now() + 60_000;
      await a.addTask('k3', task('addr:k', at + 3), bounds);
      await a.addTask('k1', task('addr:k', at + 1), bounds);
      await b.addTask('other', task('addr:other', at + 2), bounds);
      await b.addTask('k2', task('addr:k', at + 2), bounds);
      const first = await b.taskIds('addr:k', 0, 2);
      expect(first.more).toBe(true);
      const second = await a.taskIds('addr:k', 2, 2);
      expect(second).toEqual({ ids: expect.any(Array), more: false });
      expect([...first.ids, ...second.ids].sort()).toEqual(['k1', 'k2', 'k3']);
      expect(await a.taskIds('addr:other', 0, 5)).toEqual({ ids: ['other'], more: false });
      expect(await a.taskIds('addr:nobody', 0, 5)).toEqual({ ids: [], more: false });
    });
  });
}

describe('session store: idle expiry (memory)', () => {
  it('ends a session unused for idleMs and tells its listeners', async () => {
    const s = new MemorySessionStore({ idleMs: 50 });
    opened.push(s);
    const { id } = await s.create(init('addr:1'));
    const heard: unknown[] = [];
    await s.listen(id, (m) => heard.push(m));
    await waitFor(() => heard.length > 0, 5000, 'the idle session to end');
    expect(await s.get(id)).toBeUndefined();
    expect(heard).toEqual([{ type: 'closed' }]);
  });
});

describe.skipIf(!REDIS_URL)('session store: idle expiry (Redis TTL)', () => {
  it('forgets a session unused for idleMs, freeing its place, and keeps one in use', async () => {
    // The used one is touched every poll (100 ms apart), far within its idle time even on a loaded machine.
    const [a] = redis({ idleMs: 1000, maxSessionsPerCaller: 2 });
    const idle = await a.create(init('addr:1'));
    const used = await a.create(init('addr:1'));
    await waitFor(
      async () => {
        expect(await a.touch(used.id)).toBe(true);
        // peek, not get: reading must not mark the idle one used.
        return (await a.peek(idle.id)) === undefined;
      },
      10_000,
      'the idle session to be forgotten',
    );
    expect(await a.get(idle.id)).toBeUndefined();
    expect(await a.get(used.id)).toBeDefined();
    await a.create(init('addr:1'));
  });
});
