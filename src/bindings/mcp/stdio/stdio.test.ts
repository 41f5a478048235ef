/**
 * The stdio transport over real streams: line framing, the handshake order, bad lines, concurrent requests with
 * notifications, the stateless revision, subscriptions/listen and list_changed.
 */
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { jsonLines } from '../../../../test/support/json-lines.js';
import { reportProgress } from '../../../core/notices.js';
import { createServer } from '../../../create-server.js';
import { type McpStdioServer, serveMcpStdio } from './index.js';

const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
};

function connect(pageSize?: number) {
  const server = createServer({
    tools: [
      { name: 'echo', handler: (a) => a },
      {
        name: 'slow',
        handler: async (_a, ctx) => {
          await reportProgress(ctx, 1, { total: 2 });
          await new Promise((r) => setTimeout(r, 30));
          return 'done';
        },
      },
    ],
    promiseStore: false,
  });
  const input = new PassThrough();
  const output = new PassThrough();
  const { next } = jsonLines(output);
  const stdio = serveMcpStdio(server, { input, output, ...(pageSize ? { pageSize } : {}) });
  const send = (m: unknown) => input.write(`${typeof m === 'string' ? m : JSON.stringify(m)}\n`);
  return { server, stdio, send, next, input };
}

let open: McpStdioServer | undefined;
afterEach(() => open?.close());

describe('stdio', () => {
  it('answers garbage with -32700 and an id-less request before initialize with -32600', async () => {
    const c = connect();
    open = c.stdio;
    c.send('{not json');
    expect((await c.next((m) => m.error?.code === -32700)).id).toBeNull();
    c.send({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
    expect((await c.next((m) => m.id === 1)).error.code).toBe(-32600);
    c.send({ jsonrpc: '2.0', id: 2, method: 'ping' });
    expect((await c.next((m) => m.id === 2)).result).toEqual({});
  });

  it('handshakes once, then serves requests concurrently with progress', async () => {
    const c = connect();
    open = c.stdio;
    c.send({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {} },
    });
    expect((await c.next((m) => m.id === 1)).result.protocolVersion).toBe('2025-06-18');
    c.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    c.send({ jsonrpc: '2.0', id: 2, method: 'initialize', params: { protocolVersion: '2025-06-18' } });
    expect((await c.next((m) => m.id === 2)).error.code).toBe(-32600);
    c.send({
      jsonrpc: '2.0',
      id: 3,
      method: 'tools/call',
      params: { name: 'slow', _meta: { progressToken: 'p' } },
    });
    c.send({ jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'echo', arguments: { a: 1 } } });
    expect((await c.next((m) => m.id === 4)).result.structuredContent).toEqual({ a: 1 });
    expect((await c.next((m) => m.method === 'notifications/progress')).params).toEqual({
      progressToken: 'p',
      progress: 1,
      total: 2,
    });
    expect((await c.next((m) => m.id === 3)).result.content[0].text).toBe('done');
    c.send([{ jsonrpc: '2.0', id: 5, method: 'ping' }]);
    expect((await c.next((m) => m.error?.code === -32600)).id).toBeNull();
  });

  it('tells an initialized client about tool list changes', async () => {
    const c = connect();
    open = c.stdio;
    c.send({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {} },
    });
    await c.next((m) => m.id === 1);
    c.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    c.send({ jsonrpc: '2.0', id: 2, method: 'ping' });
    await c.next((m) => m.id === 2);
    c.server.catalog.add({ name: 'late', handler: () => 1 });
    expect(await c.next((m) => m.method === 'notifications/tools/list_changed')).toEqual({
      jsonrpc: '2.0',
      method: 'notifications/tools/list_changed',
    });
  });

  it('serves the stateless revision and subscriptions/listen', async () => {
    const c = connect(1);
    open = c.stdio;
    c.send({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: META } });
    const page1 = (await c.next((m) => m.id === 1)).result;
    expect(page1.tools).toHaveLength(1);
    expect(page1.resultType).toBe('complete');
    c.send({
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/list',
      params: { _meta: META, cursor: page1.nextCursor },
    });
    expect((await c.next((m) => m.id === 2)).result.tools[0].name).toBe('slow');
    c.send({
      jsonrpc: '2.0',
      id: 'sub',
      method: 'subscriptions/listen',
      params: { _meta: META, notifications: { toolsListChanged: true } },
    });
    const ack = await c.next((m) => m.method === 'notifications/subscriptions/acknowledged');
    expect(ack.params).toEqual({
      notifications: { toolsListChanged: true },
      _meta: { 'io.modelcontextprotocol/subscriptionId': 'sub' },
    });
    c.server.catalog.add({ name: 'late', handler: () => 1 });
    const changed = await c.next((m) => m.method === 'notifications/tools/list_changed');
    expect(changed.params._meta['io.modelcontextprotocol/subscriptionId']).toBe('sub');
    c.send({ jsonrpc: '2.0', id: 3, method: 'ping', params: { _meta: META } });
    expect((await c.next((m) => m.id === 3)).error.code).toBe(-32601);
  });

  it('ends when the input ends', async () => {
    const c = connect();
    c.input.end();
    await c.stdio.closed;
  });
});
