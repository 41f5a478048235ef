/**
 * MCP-lite over WebSocket through real connections (the `ws` client on 127.0.0.1): the HTTP binding's answers,
 * many calls in flight on one connection, partials as notifications, cancellation, batches and malformed messages.
 * The guards are in ws-binding-guards.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { eventually } from '../support/ws-client.js';
import { aborted, connect, gates, live, start, useWsServers } from './ws-binding.fixtures.js';

useWsServers();

describe('MCP-lite over WebSocket', () => {
  it('answers tools/list and tools/call exactly as the HTTP binding does', async () => {
    const url = await start();
    const c = await connect(url);
    expect(c.ws.protocol).toBe('mcp-lite');
    const listed = await c.request('tools/list', {}, 1);
    const call = { name: 'echo', arguments: { message: 'hi' } };
    const called = await c.request('tools/call', call, 2);
    const overHttp = async (method: string, params: unknown, id: number) =>
      (await fetch(`${live.running!.url}/mcp-lite/v1/rpc`, {
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
});
