/**
 * MCP-lite over WebSocket through real connections (the `ws` client on 127.0.0.1): the HTTP binding's answers,
 * many calls in flight on one connection, partials as notifications, cancellation, batches, and the guards: auth,
 * Host/Origin, subprotocol, size limit, bad frames, connection bounds, keepalive and a client that stops reading.
 */
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { connectWs, eventually, refusal, type WsTestClient } from '../../../test/support/ws-client.js';
import { bearerAuth } from '../../core/auth.js';
import { createServer } from '../../create-server.js';
import { type RunningServer, type ServeOptions, serve } from '../../serve.js';

const aborted: string[] = [];
/** Calls of `gate` waiting to be let through, by tag. */
const gates = new Map<string, () => void>();

const tools = [
  {
    name: 'echo',
    inputSchema: { type: 'object', required: ['message'], properties: { message: { type: 'string' } } },
    handler: (args: { message: string }) => ({ message: args.message }),
  },
  {
    name: 'delay',
    description: 'Answers after `ms` milliseconds',
    handler: async (args: { ms: number; tag: string }) => {
      await new Promise((r) => setTimeout(r, args.ms));
      return args.tag;
    },
  },
  {
    name: 'gate',
    description: 'Answers its tag once the test lets it through',
    handler: (args: { tag: string }) =>
      new Promise((resolve) => gates.set(args.tag, () => resolve(args.tag))),
  },
  {
    name: 'report',
    handler: async function* () {
      yield 'one';
      yield { two: 2 };
      return 'done';
    },
  },
  {
    name: 'wait',
    description: 'Runs until aborted',
    handler: (args: { tag: string }, ctx: { signal: AbortSignal }) =>
      new Promise((_resolve, reject) => {
        ctx.signal.addEventListener('abort', () => {
          aborted.push(args.tag);
          reject(ctx.signal.reason);
        });
      }),
  },
  {
    name: 'whoami',
    handler: (_a: unknown, ctx: { principal?: { id: string } }) => ctx.principal?.id ?? null,
  },
  { name: 'big', handler: () => 'x'.repeat(256 * 1024) },
];

let running: RunningServer | undefined;
const clients: WsTestClient[] = [];

afterEach(async () => {
  for (const c of clients.splice(0)) c.ws.terminate();
  await running?.close(500);
  running = undefined;
  aborted.length = 0;
  gates.clear();
});

async function start(options: ServeOptions = {}, auth = false): Promise<string> {
  const server = createServer({
    tools,
    version: '1.2.3',
    promiseStore: false,
    ...(auth ? { authenticate: bearerAuth(['s3cret']) } : {}),
  });
  running = await serve(server, { port: 0, ...options });
  return `${running.url.replace('http', 'ws')}/mcp-lite/v1/ws`;
}

async function connect(url: string, options?: Parameters<typeof connectWs>[1]): Promise<WsTestClient> {
  const c = await connectWs(url, options);
  clients.push(c);
  return c;
}

describe('MCP-lite over WebSocket', () => {
  it('answers tools/list and tools/call exactly as the HTTP binding does', async () => {
    const url = await start();
    const c = await connect(url);
    expect(c.ws.protocol).toBe('mcp-lite');
    const listed = await c.request('tools/list', {}, 1);
    const call = { name: 'echo', arguments: { message: 'hi' } };
    const called = await c.request('tools/call', call, 2);
    const overHttp = async (method: string, params: unknown, id: number) =>
      (await fetch(`${running!.url}/mcp-lite/v1/rpc`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id, method, params }),
      }).then((r) => r.json())) as any;
    expect(listed).toEqual(await overHttp('tools/list', {}, 1));
    const http = await overHttp('tools/call', call, 2);
    const masked = (m: any) => ({
      ...m,
      result: { ...m.result, _meta: { ...m.result._meta, timestamp: 't', processing_time_ms: 0 } },
    });
    expect(masked(called)).toEqual(masked(http));
    expect(called.result).toMatchObject({
      content: { message: 'hi' },
      _meta: { response_type: 'answer', server_version: '1.2.3' },
    });
  });

  it('runs many calls at once on one connection and answers each as it finishes', async () => {
    const c = await connect(await start());
    const n = 40;
    const replies = Array.from({ length: n }, (_, i) =>
      c.request('tools/call', { name: 'gate', arguments: { tag: `t${i}` } }),
    );
    // Every call is running at the same time: none has been answered, yet each has reached its handler.
    await eventually(() => gates.size === n);
    const order: string[] = [];
    for (let i = n - 1; i >= 0; i--) {
      gates.get(`t${i}`)!();
      order.push((await replies[i]!).result.content);
    }
    expect(order).toEqual(Array.from({ length: n }, (_, i) => `t${n - 1 - i}`));
  });

  it('sends the partials of a streamed call as notifications before its response', async () => {
    const c = await connect(await start());
    const reply = await c.request('tools/call', { name: 'report', arguments: {}, stream: true }, 's1');
    expect(reply.result).toMatchObject({ content: 'done', _meta: { response_type: 'answer' } });
    const partials = c.received.filter((m) => m.method === 'notifications/partial');
    expect(partials).toEqual([
      { jsonrpc: '2.0', method: 'notifications/partial', params: { id: 's1', partial: 'one' } },
      { jsonrpc: '2.0', method: 'notifications/partial', params: { id: 's1', partial: { two: 2 } } },
    ]);
    // Without `stream`, the partials are the answer (as over HTTP without SSE), and no notification is sent.
    c.received.length = 0;
    const whole = await c.request('tools/call', { name: 'report', arguments: {} });
    expect(whole.result.content).toBe('done');
    expect(c.received).toEqual([]);
  });

  it('cancels a call on notifications/cancelled, and every call when the connection closes', async () => {
    const url = await start();
    const c = await connect(url);
    const cancelled = c.request('tools/call', { name: 'wait', arguments: { tag: 'a' } }, 'w1');
    // Messages are taken in order, so the call is running when the cancel arrives.
    c.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'w1' } });
    expect((await cancelled).error).toMatchObject({ code: -32800 });
    expect(aborted).toEqual(['a']);
    const d = await connect(url);
    d.send({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'wait', arguments: { tag: 'b' } },
    });
    d.send({
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { name: 'wait', arguments: { tag: 'c' } },
    });
    await new Promise((r) => setTimeout(r, 30));
    d.ws.close();
    await eventually(() => aborted.length === 3);
    expect(aborted.sort()).toEqual(['a', 'b', 'c']);
  });

  it('answers ping, batches, and refuses an id already in flight', async () => {
    const c = await connect(await start());
    expect(await c.request('ping', undefined, 'p')).toEqual({ jsonrpc: '2.0', id: 'p', result: {} });
    c.send([
      {
        jsonrpc: '2.0',
        id: 'b1',
        method: 'tools/call',
        params: { name: 'echo', arguments: { message: 'x' } },
      },
      { jsonrpc: '2.0', method: 'tools/list' },
      { jsonrpc: '2.0', id: 'b2', method: 'nope' },
    ]);
    const batch = await c.next((m) => Array.isArray(m));
    expect(batch.map((m: any) => m.id)).toEqual(['b1', 'b2']);
    expect(batch[1].error.code).toBe(-32601);
    c.send({
      jsonrpc: '2.0',
      id: 'same',
      method: 'tools/call',
      params: { name: 'wait', arguments: { tag: 'd' } },
    });
    const again = await c.request('tools/call', { name: 'echo', arguments: { message: 'x' } }, 'same');
    expect(again.error).toMatchObject({ code: -32600, message: expect.stringContaining('in flight') });
  });

  it('answers malformed messages with JSON-RPC errors and carries on', async () => {
    const c = await connect(await start());
    c.send('{not json');
    expect((await c.next((m) => m.error)).error.code).toBe(-32700);
    c.send('[]');
    expect((await c.next((m) => m.error)).error.code).toBe(-32600);
    c.send({ jsonrpc: '1.0', id: 5, method: 'tools/list' });
    expect(await c.next((m) => m.error)).toMatchObject({ id: 5, error: { code: -32600 } });
    c.send('['.repeat(1000) + ']'.repeat(1000));
    expect((await c.next((m) => m.error)).error.code).toBe(-32700);
    c.ws.send(Buffer.from('{"jsonrpc":"2.0","id":1,"method":"tools/list"}'), { binary: true });
    expect((await c.next((m) => m.error)).error).toMatchObject({
      code: -32700,
      message: expect.stringContaining('text frame'),
    });
    c.send({
      jsonrpc: '2.0',
      id: 6,
      method: 'tools/call',
      params: { name: 'echo', arguments: { message: 7 } },
    });
    expect((await c.next((m) => m.id === 6)).error.code).toBe(-32602);
    expect(
      (await c.request('tools/call', { name: 'echo', arguments: { message: 'ok' } })).result.content,
    ).toEqual({ message: 'ok' });
  });

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
    const local = await connect(url, { headers: { origin: `http://localhost:${running!.http.port}` } });
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
    await eventually(() => running!.ws!.connections === 2);
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
    const url = await start({ ws: { maxBufferedBytes: 64 * 1024 } });
    const c = await connect(url);
    (c.ws as any)._socket.pause();
    const call = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'big' } });
    // Each answer is 256 KiB: the socket buffers fill, then what waits unread passes the bound.
    for (let i = 0; i < 200 && running!.ws!.connections > 0; i++) {
      c.ws.send(call);
      await new Promise((r) => setImmediate(r));
    }
    await eventually(() => running!.ws!.connections === 0);
    const other = await connect(url);
    expect((await other.request('ping')).result).toEqual({});
  });

  it('drops a connection that stops answering pings, and keeps one that answers', async () => {
    const url = await start({ ws: { keepAliveMs: 40 } });
    const silent = await connect(url, { autoPong: false });
    const alive = await connect(url);
    await eventually(() => running!.ws!.connections === 1);
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
    const closing = running!.close(2000);
    expect((await slow).result.content).toBe('last');
    expect((await c.closed).code).toBe(1001);
    await closing;
    running = undefined;
  });
});
