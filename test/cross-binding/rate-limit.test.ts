/**
 * Per-caller rate limiting (core, token bucket) seen through every binding, each with its native error:
 * MCP-lite HTTP JSON-RPC -32029 with HTTP 429 + Retry-After, MCP -32029 with HTTP 429, MCP-lite gRPC
 * RESOURCE_EXHAUSTED, Webtools RATE_LIMIT 429 + Retry-After. Real servers on loopback ports, real clients.
 */
import { status } from '@grpc/grpc-js';
import { afterEach, describe, expect, it } from 'vitest';
import { bearerAuth, createServer } from '../../src/index.js';
import { type RunningServer, serve } from '../../src/node.js';
import { MemoryRateLimitStore } from '../../src/stores/memory-rate-limit.js';
import { makeClient, toolRequest, unary } from '../support/grpc-client.js';

const tools = [{ name: 'echo', handler: (args: Record<string, unknown>) => args }];
// A bucket of 2 that refills every 5 s: the third call in a test is always refused.
const LIMIT = { requestsPerSecond: 0.2, burst: 2 };

const running: RunningServer[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((r) => r.close(1000)));
});

async function start(options: Partial<Parameters<typeof createServer>[0]> = {}): Promise<RunningServer> {
  const r = await serve(createServer({ tools, rateLimit: LIMIT, ...options }), { port: 0, grpcPort: 0 });
  running.push(r);
  return r;
}

function postJson(url: string, body: unknown, headers: Record<string, string> = {}) {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
}

const rpcCall = (id: number) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name: 'echo', arguments: { n: id } },
});

describe('rate limit on every binding', () => {
  it('MCP-lite HTTP: -32029 with HTTP 429 and Retry-After once the burst is spent', async () => {
    const r = await start();
    const url = `${r.url}/mcp-lite/v1/rpc`;
    const replies = [];
    for (let id = 1; id <= 3; id++) replies.push(await postJson(url, rpcCall(id)));
    expect(replies.map((x) => x.status)).toEqual([200, 200, 429]);
    const limited = (await replies[2]!.json()) as any;
    expect(limited).toMatchObject({ jsonrpc: '2.0', id: 3, error: { code: -32029 } });
    expect(limited.error.data.retryAfterMs).toBeGreaterThan(0);
    expect(Number(replies[2]!.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    // Inside a batch the refusal is answered in place, like any other error of a member.
    const batch = await postJson(url, [rpcCall(4), rpcCall(5)]);
    expect(batch.status).toBe(200);
    const members = (await batch.json()) as any[];
    expect(members.map((m) => m.error?.code)).toEqual([-32029, -32029]);
    // Listing is not a call: it stays available to a limited caller.
    const listed = await postJson(`${r.url}/mcp-lite/v1/tools`, {});
    expect(listed.status).toBe(200);
  });

  it('MCP (Streamable HTTP, stateless revision): -32029 with HTTP 429', async () => {
    const r = await start();
    const call = (id: number) =>
      fetch(`${r.url}/mcp`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2026-07-28',
          'mcp-method': 'tools/call',
          'mcp-name': 'echo',
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id,
          method: 'tools/call',
          params: {
            name: 'echo',
            arguments: {},
            _meta: {
              'io.modelcontextprotocol/protocolVersion': '2026-07-28',
              'io.modelcontextprotocol/clientCapabilities': {},
            },
          },
        }),
      });
    const replies = [];
    for (let id = 1; id <= 3; id++) replies.push(await call(id));
    expect(replies.map((x) => x.status)).toEqual([200, 200, 429]);
    expect(await replies[2]!.json()).toMatchObject({
      id: 3,
      error: { code: -32029, data: { retryAfterMs: expect.any(Number) } },
    });
    expect(Number(replies[2]!.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  });

  it('MCP-lite gRPC: RESOURCE_EXHAUSTED', async () => {
    const r = await start();
    const client = makeClient(r.grpc!.address, 'full');
    try {
      const outcomes = [];
      for (let i = 0; i < 3; i++) outcomes.push(await unary(client, 'CallTool', toolRequest('echo', { i })));
      expect(outcomes.map((o) => o.error?.code ?? status.OK)).toEqual([
        status.OK,
        status.OK,
        status.RESOURCE_EXHAUSTED,
      ]);
      expect(outcomes[2]!.error!.details).toContain('Rate limit');
    } finally {
      client.close();
    }
  });

  it('Webtools: RATE_LIMIT 429 with Retry-After', async () => {
    const r = await start();
    const url = `${r.url}/webtools/mcplite/`;
    const replies = [];
    for (let i = 0; i < 3; i++) replies.push(await postJson(url, { action: 'echo', request: { i } }));
    expect(replies.map((x) => x.status)).toEqual([200, 200, 429]);
    expect(await replies[2]!.json()).toMatchObject({ status: 'error', error: { code: 'RATE_LIMIT' } });
    expect(Number(replies[2]!.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  });

  it('one caller, one bucket: a burst spent over HTTP is spent on Webtools and gRPC too', async () => {
    const r = await start();
    for (let id = 1; id <= 2; id++)
      expect((await postJson(`${r.url}/mcp-lite/v1/rpc`, rpcCall(id))).status).toBe(200);
    expect((await postJson(`${r.url}/webtools/mcplite/`, { action: 'echo', request: {} })).status).toBe(429);
    const client = makeClient(r.grpc!.address, 'full');
    try {
      expect((await unary(client, 'CallTool', toolRequest('echo', {}))).error?.code).toBe(
        status.RESOURCE_EXHAUSTED,
      );
    } finally {
      client.close();
    }
  });

  it('with auth, each principal has its own bucket', async () => {
    const r = await start({ authenticate: bearerAuth(['alice', 'bob']) });
    const as = (token: string, id: number) =>
      postJson(`${r.url}/mcp-lite/v1/rpc`, rpcCall(id), { authorization: `Bearer ${token}` });
    const alice = [await as('alice', 1), await as('alice', 2), await as('alice', 3)].map((x) => x.status);
    expect(alice).toEqual([200, 200, 429]);
    expect((await as('bob', 4)).status).toBe(200);
  });
});

describe('MemoryRateLimitStore', () => {
  it('refills at the rate, holds at most the burst, and tells how long to wait', () => {
    const store = new MemoryRateLimitStore();
    const t0 = 1_000_000;
    expect([store.take('a', 2, 2, t0), store.take('a', 2, 2, t0)]).toEqual([0, 0]);
    expect(store.take('a', 2, 2, t0)).toBe(500);
    expect(store.take('a', 2, 2, t0 + 500)).toBe(0);
    // A long idle time refills to the burst, no further.
    expect([0, 0, 500]).toEqual([
      store.take('a', 2, 2, t0 + 60_000),
      store.take('a', 2, 2, t0 + 60_000),
      store.take('a', 2, 2, t0 + 60_000),
    ]);
  });

  it('is bounded: refilled buckets make room, live ones are never evicted', () => {
    const store = new MemoryRateLimitStore({ maxCallers: 2 });
    const t0 = 1_000_000;
    expect(store.take('a', 1, 1, t0)).toBe(0);
    expect(store.take('b', 1, 1, t0)).toBe(0);
    // Both buckets are empty (live): a third caller waits rather than resetting someone else's bucket.
    expect(store.take('c', 1, 1, t0)).toBeGreaterThan(0);
    expect(store.size).toBe(2);
    expect(store.take('a', 1, 1, t0)).toBeGreaterThan(0);
    // Once they have refilled, they are the same as no bucket, and make room.
    expect(store.take('c', 1, 1, t0 + 1000)).toBe(0);
    expect(store.size).toBeLessThanOrEqual(2);
  });

  it('refuses nonsense limits at definition time', () => {
    expect(() => createServer({ tools, rateLimit: 0 })).toThrow(/requestsPerSecond/);
    expect(() => createServer({ tools, rateLimit: Number.NaN })).toThrow(/requestsPerSecond/);
  });
});
