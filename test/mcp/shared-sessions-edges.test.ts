/**
 * MCP sessions shared between two replicas through Redis (`RedisSessionStore`), their ends and their limits: two
 * `serve()` instances on different ports, each with its own store over the same Redis and prefix (and the same
 * secret), used by one client over raw HTTP so that each request goes to the replica the test chooses. DELETE on B
 * ends the session on A; the per-caller bound holds across replicas; the legacy HTTP+SSE transport's POST lands on
 * the other replica; a store whose Redis is down answers 503 at once. Sessions, elicitation and streams across
 * replicas are in mcp-shared-sessions-streams.test.ts. Needs a real Redis at REDIS_URL (skipped, with a warning,
 * without one; the Redis-down test runs either way).
 */
import { describe, expect, it } from 'vitest';
import { serve } from '../../src/node.js';
import { RedisSessionStore } from '../../src/stores/redis/session-store.js';
import {
  closeReplica,
  describeShared,
  getStream,
  initialize,
  makeServer,
  openSession,
  post,
  replica,
  request,
  SseReader,
} from '../support/shared-sessions.js';

describeShared('test/mcp/shared-sessions-edges.test.ts', 'edges', ({ a, b, prefixOf }) => {
  const boundPrefix = prefixOf('bound');

  it('ends on A a session deleted on B, with its GET stream', async () => {
    const session = await openSession(a.url);
    const stream = new SseReader(await getStream(a.url, session));
    const del = await fetch(`${b.url}/mcp`, { method: 'DELETE', headers: { 'mcp-session-id': session } });
    expect(del.status).toBe(200);
    expect(await stream.ended()).toBe(true);
    const ping = await post(a.url, request('ping'), session);
    expect(ping.status).toBe(404);
    await ping.text();
    const again = await fetch(`${a.url}/mcp`, { method: 'DELETE', headers: { 'mcp-session-id': session } });
    expect(again.status).toBe(404);
  });

  it('keeps the per-caller bound across replicas (429 on either), and frees it on DELETE', async () => {
    const c = await replica(boundPrefix, { maxSessionsPerCaller: 2 });
    const d = await replica(boundPrefix, { maxSessionsPerCaller: 2 });
    try {
      const s1 = await openSession(c.url);
      await openSession(d.url);
      for (const r of [c, d]) {
        const refused = await initialize(r.url);
        expect(refused.status).toBe(429);
        expect((await refused.json()).error.code).toBe(-32004);
      }
      const del = await fetch(`${d.url}/mcp`, { method: 'DELETE', headers: { 'mcp-session-id': s1 } });
      expect(del.status).toBe(200);
      await openSession(c.url);
    } finally {
      await closeReplica(c);
      await closeReplica(d);
    }
  });

  it("carries a legacy HTTP+SSE client's POST on B to its stream on A", async () => {
    const res = await fetch(`${a.url}/sse`, { headers: { accept: 'text/event-stream' } });
    expect(res.status).toBe(200);
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let text = '';
    while (!text.includes('event: endpoint')) text += decoder.decode((await reader.read()).value);
    const endpoint = /data: (\S+)/.exec(text.slice(text.indexOf('event: endpoint')))![1]!;
    const posted = await fetch(`${b.url}${endpoint}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'ping' }),
    });
    expect(posted.status).toBe(202);
    while (!text.includes('"id":7')) text += decoder.decode((await reader.read()).value);
    expect(text).toContain('"result":{}');
    await reader.cancel();
  });
});

describe('a session store whose Redis is down', () => {
  it('answers the calls that need a session 503 at once, and serves stateless requests', async () => {
    // Nothing listens on port 1: every connection is refused.
    const store = new RedisSessionStore({ url: 'redis://127.0.0.1:1', prefix: 'mcplite-test-down:' });
    const running = await serve(makeServer(), { port: 0, sessionStore: store });
    try {
      const started = Date.now();
      const init = await initialize(running.url);
      expect(init.status).toBe(503);
      const body = await init.json();
      expect(body.error).toMatchObject({ code: -32603, data: { reason: 'unavailable' } });
      expect(body.error.message).toContain('The state store (Redis) is unavailable');
      const named = await post(running.url, request('ping'), 'a-session-id');
      expect(named.status).toBe(503);
      await named.text();
      expect(Date.now() - started).toBeLessThan(3000);

      const stateless = await post(running.url, request('tools/call', { name: 'echo', arguments: { y: 2 } }));
      expect(stateless.status).toBe(200);
      expect((await stateless.json()).result.structuredContent).toEqual({ y: 2 });
    } finally {
      await running.close(200);
      await store.close();
    }
  });
});
