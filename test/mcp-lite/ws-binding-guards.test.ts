/**
 * The guards of MCP-lite over WebSocket through real connections: size limit and bad frames, auth, Host/Origin and
 * subprotocol, connection and in-flight bounds, a client that stops reading, keepalive, and shutdown.
 */
import { describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { eventually, refusal } from '../support/ws-client.js';
import { connect, live, start, useWsServers } from './ws-binding.fixtures.js';

useWsServers();

describe('MCP-lite over WebSocket', () => {
  it('closes a connection whose message is too large (1009), invalid UTF-8 (1007) or a bad frame (1002)', async () => {
    const url = await start({ maxBodyBytes: 1024 });
    const big = await connect(url);
    big.send(
      JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { pad: 'x'.repeat(2000) } }),
    );
    expect((await big.closed).code).toBe(1009);
    const utf8 = await connect(url);
    utf8.ws.send(Buffer.from([0x7b, 0xff, 0xfe, 0x7d]), { binary: false });
    expect((await utf8.closed).code).toBe(1007);
    const raw = await connect(url);
    // An unmasked frame from a client breaks RFC 6455 5.1.
    (raw.ws as any)._socket.write(Buffer.from([0x81, 0x02, 0x7b, 0x7d]));
    expect((await raw.closed).code).toBe(1002);
    // The server carries on.
    const ok = await connect(url);
    expect((await ok.request('tools/list')).result.tools.length).toBeGreaterThan(0);
  });

  it('requires the bearer token at the upgrade, and gives the call its principal', async () => {
    const url = await start({}, true);
    const none = await refusal(url);
    expect(none.status).toBe(401);
    expect(none.headers['www-authenticate']).toBe('Bearer realm="mcplite"');
    expect(none.json.error.code).toBe(-32002);
    const wrong = await refusal(url, { headers: { authorization: 'Bearer nope' } });
    expect(wrong.status).toBe(401);
    expect(wrong.headers['www-authenticate']).toContain('invalid_token');
    const c = await connect(url, { headers: { authorization: 'Bearer s3cret' } });
    expect((await c.request('tools/call', { name: 'whoami', arguments: {} })).result.content).toBe(
      'bearer-0',
    );
  });

  it('checks Host and Origin on a loopback bind, and the subprotocol', async () => {
    const url = await start();
    expect((await refusal(url, { headers: { host: 'evil.example' } })).status).toBe(403);
    expect((await refusal(url, { headers: { origin: 'http://evil.example' } })).status).toBe(403);
    const other = await refusal(url, { protocol: 'mcp' });
    expect(other.status).toBe(400);
    expect(other.json.error.message).toContain('mcp-lite');
    const bare = await connect(url, { protocol: null });
    expect(bare.ws.protocol).toBe('');
    expect((await bare.request('ping')).result).toEqual({});
    const local = await connect(url, { headers: { origin: `http://localhost:${live.running!.http.port}` } });
    expect((await local.request('ping')).result).toEqual({});
    // Not a WebSocket path: 404, and the HTTP server still serves.
    const elsewhere = await refusal(url.replace('/ws', '/nope'));
    expect(elsewhere.status).toBe(404);
  });

  it('bounds connections per caller and in all (a flood is refused with 429, the others keep working)', async () => {
    const url = await start({ ws: { maxConnectionsPerCaller: 3, maxConnections: 5 } });
    const first = await Promise.all([connect(url), connect(url), connect(url)]);
    const flood = await Promise.all(Array.from({ length: 10 }, () => refusal(url)));
    for (const r of flood) {
      expect(r.status).toBe(429);
      expect(r.json.error).toMatchObject({ code: -32004, message: expect.stringContaining('this caller') });
    }
    expect((await first[0]!.request('ping')).result).toEqual({});
    first[0]!.ws.close();
    await eventually(() => live.running!.ws!.connections === 2);
    const again = await connect(url);
    expect((await again.request('ping')).result).toEqual({});
  });

  it('bounds the calls in flight on one connection', async () => {
    const c = await connect(await start({ ws: { maxInFlight: 2 } }));
    c.send({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'wait', arguments: { tag: 'x' } },
    });
    c.send({
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { name: 'wait', arguments: { tag: 'y' } },
    });
    const third = await c.request('tools/call', { name: 'echo', arguments: { message: 'z' } }, 3);
    expect(third.error).toMatchObject({ code: -32004 });
    c.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1 } });
    await c.next((m) => m.id === 1);
    expect(
      (await c.request('tools/call', { name: 'echo', arguments: { message: 'z' } }, 4)).result,
    ).toBeDefined();
  });

  it('drops a client that stops reading instead of buffering for it', async () => {
    const url = await start({ ws: { maxQueuedBytes: 64 * 1024 } });
    const c = await connect(url);
    (c.ws as any)._socket.pause();
    const call = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'big' } });
    // Each answer is 256 KiB: the socket buffers fill, then what waits unread passes the bound.
    for (let i = 0; i < 200 && live.running!.ws!.connections > 0; i++) {
      c.ws.send(call);
      await new Promise((r) => setImmediate(r));
    }
    await eventually(() => live.running!.ws!.connections === 0);
    const other = await connect(url);
    expect((await other.request('ping')).result).toEqual({});
  });

  it('drops a connection that stops answering pings, and keeps one that answers', async () => {
    const url = await start({ ws: { keepAliveMs: 40 } });
    const silent = await connect(url, { autoPong: false });
    const alive = await connect(url);
    await eventually(() => live.running!.ws!.connections === 1);
    await new Promise((r) => setTimeout(r, 150));
    expect(alive.ws.readyState).toBe(WebSocket.OPEN);
    expect((await alive.request('ping')).result).toEqual({});
    silent.ws.terminate();
  });

  it('closes connections with 1001 when the server shuts down, after their calls finished', async () => {
    const url = await start();
    const c = await connect(url);
    const slow = c.request('tools/call', { name: 'delay', arguments: { ms: 50, tag: 'last' } });
    await new Promise((r) => setTimeout(r, 10));
    const closing = live.running!.close(2000);
    expect((await slow).result.content).toBe('last');
    expect((await c.closed).code).toBe(1001);
    await closing;
    live.running = undefined;
  });
});
