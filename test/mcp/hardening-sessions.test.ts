/**
 * The session attacks of issue 9 on the MCP binding over Streamable HTTP, kept as tests on a real socket (at
 * smaller sizes than the original attacks where the behaviour is the same): huge clientInfo and capabilities on
 * `initialize`, session floods that must not evict anyone's live state, ownership with bearer auth, idle expiry.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../src/node.js';
import { HALF, heapMiB, initialize, MiB, nextId, ping, post, start } from './hardening.fixtures.js';

describe('sessions keep bounded copies of what the client declared', () => {
  let running: RunningServer;
  let url: string;
  beforeAll(async () => {
    ({ running, url } = await start({ maxSessionsPerCaller: 1000 }, {}, false));
  });
  afterAll(() => running.close(1000));

  it('does not keep a huge clientInfo.name nor huge capabilities per session', async () => {
    await initialize(url); // warm up the path, so that the first session's code is not counted
    const before = heapMiB();
    for (let i = 0; i < 12; i++) {
      const r = await initialize(url, undefined, {
        clientInfo: { name: HALF, version: HALF, extra: HALF },
        capabilities: { elicitation: {}, experimental: { blob: HALF, list: [HALF, HALF] } },
      });
      expect(r.status).toBe(200);
    }
    // Kept whole, 12 sessions hold 12 × 3 MiB; bounded, a few KiB each.
    expect(heapMiB() - before).toBeLessThan(8);
  });

  it('still serves a session whose clientInfo was cut short', async () => {
    const r = await initialize(url, undefined, { clientInfo: { name: MiB, version: 1 } });
    expect(r.status).toBe(200);
    expect((await ping(url, r.session!)).json.result).toEqual({});
  });
});

describe('session bounds: the caller who reaches one gets -32004 / 429, and no live session is evicted', () => {
  let running: RunningServer;
  let url: string;
  beforeAll(async () => {
    ({ running, url } = await start({ maxSessionsPerCaller: 3, maxSessions: 5, maxSubscriptions: 2 }));
  });
  afterAll(() => running.close(1000));

  it('refuses a caller past its own bound, keeps its sessions, and takes one again after a DELETE', async () => {
    const sessions: string[] = [];
    for (let i = 0; i < 3; i++) sessions.push((await initialize(url, 'a')).session!);
    const refused = await initialize(url, 'a');
    expect(refused.status).toBe(429);
    expect(refused.json.error.code).toBe(-32004);
    expect(refused.json.error.message).toMatch(/Too many sessions/);
    expect(refused.session).toBeNull();
    for (const s of sessions) expect((await ping(url, s, 'a')).status).toBe(200);
    const del = await fetch(url, {
      method: 'DELETE',
      headers: { authorization: 'Bearer a', 'mcp-session-id': sessions[0]! },
    });
    expect(del.status).toBe(200);
    expect((await initialize(url, 'a')).status).toBe(200);
  });

  it("does not evict another caller's live session when the server is full", async () => {
    // a holds 3 (the test above); b fills the rest of the 5 and then floods.
    const b1 = (await initialize(url, 'b')).session!;
    const b2 = (await initialize(url, 'b')).session!;
    for (let i = 0; i < 20; i++) {
      const r = await initialize(url, i % 2 ? 'b' : 'c');
      expect(r.status).toBe(429);
      expect(r.json.error.code).toBe(-32004);
    }
    expect((await ping(url, b1, 'b')).status).toBe(200);
    expect((await ping(url, b2, 'b')).status).toBe(200);
  });

  it('bounds resource subscriptions per session and the length of their URIs', async () => {
    const { running: r2, url: u2 } = await start(
      { maxSubscriptions: 2 },
      {
        resources: [{ uri: 'test://a', name: 'a', read: () => 'A' }],
      },
    );
    try {
      const s = (await initialize(u2, 'a')).session!;
      const sub = (uri: string) =>
        post(
          u2,
          { id: nextId(), method: 'resources/subscribe', params: { uri } },
          { token: 'a', session: s },
        );
      expect((await sub('test://1')).json.result).toEqual({});
      expect((await sub('test://2')).json.result).toEqual({});
      expect((await sub('test://1')).json.result).toEqual({});
      const third = await sub('test://3');
      expect(third.json.error.code).toBe(-32004);
      const long = await sub(`test://${'u'.repeat(5000)}`);
      expect(long.json.error.code).toBe(-32602);
    } finally {
      await r2.close(1000);
    }
  });
});

describe('sessions with bearer auth belong to their principal', () => {
  let running: RunningServer;
  let url: string;
  beforeAll(async () => {
    ({ running, url } = await start({}));
  });
  afterAll(() => running.close(1000));

  it('answers 404 to token B on the session of token A, for POST, GET and DELETE', async () => {
    const s = (await initialize(url, 'a')).session!;
    expect((await ping(url, s, 'b')).status).toBe(404);
    const get = await fetch(url, {
      headers: { authorization: 'Bearer b', 'mcp-session-id': s, accept: 'text/event-stream' },
    });
    expect(get.status).toBe(404);
    await get.body?.cancel();
    const del = await fetch(url, {
      method: 'DELETE',
      headers: { authorization: 'Bearer b', 'mcp-session-id': s },
    });
    expect(del.status).toBe(404);
    expect((await ping(url, s, 'a')).status).toBe(200);
  });
});

describe('idle sessions expire, freeing their place', () => {
  it('closes a session unused for idleMs, and its caller may open another', async () => {
    const { running, url } = await start({ idleMs: 150, maxSessionsPerCaller: 1 });
    try {
      const s = (await initialize(url, 'a')).session!;
      expect((await initialize(url, 'a')).status).toBe(429);
      await new Promise((r) => setTimeout(r, 500));
      expect((await ping(url, s, 'a')).status).toBe(404);
      expect((await initialize(url, 'a')).status).toBe(200);
    } finally {
      await running.close(1000);
    }
  });
});
