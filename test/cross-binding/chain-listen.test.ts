/**
 * MCP's `subscriptions/listen` (the 2026-07-28 revision) walks the middleware chain like every operation, under its
 * own name and with the notifications asked for as its arguments: a middleware sees it, and one that refuses it
 * refuses the stream, over Streamable HTTP (an SSE stream) and over a connection (WebSocket).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { McpLiteError } from '../../src/core/errors.js';
import type { Middleware } from '../../src/core/operation.js';
import { createServer } from '../../src/index.js';
import { type RunningServer, serve } from '../../src/node.js';
import { connectWs } from '../support/ws-client.js';

const STATELESS_META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
};

const seen: Array<{ method: string; arguments: unknown; binding: string }> = [];
let refuse = false;
const audit: Middleware = (op, next) => {
  seen.push({ method: op.method, arguments: op.arguments, binding: op.caller.binding });
  if (refuse && op.method === 'subscriptions/listen')
    throw new McpLiteError('forbidden', 'No listening here');
  return next();
};

let running: RunningServer;
beforeAll(async () => {
  const server = createServer({
    tools: [{ name: 'echo', handler: (a) => a }],
    middleware: [audit],
  });
  running = await serve(server, { port: 0, grpc: false });
});
afterAll(async () => {
  await running.close(500);
});

const listenMessage = (id: number) => ({
  jsonrpc: '2.0',
  id,
  method: 'subscriptions/listen',
  params: { notifications: { toolsListChanged: true }, _meta: STATELESS_META },
});

function postListen(signal: AbortSignal): Promise<Response> {
  return fetch(`${running.url}/mcp`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'subscriptions/listen',
    },
    body: JSON.stringify(listenMessage(1)),
    signal,
  });
}

describe('subscriptions/listen walks the chain', () => {
  it('over Streamable HTTP: seen by a middleware, and refused by one', async () => {
    seen.length = 0;
    refuse = false;
    const controller = new AbortController();
    const open = await postListen(controller.signal);
    expect(open.headers.get('content-type')).toContain('text/event-stream');
    const first = new TextDecoder().decode((await open.body!.getReader().read()).value);
    expect(first).toContain('notifications/subscriptions/acknowledged');
    controller.abort();
    expect(seen).toEqual([
      { method: 'subscriptions/listen', arguments: { toolsListChanged: true }, binding: 'mcp' },
    ]);

    refuse = true;
    const refused = await postListen(new AbortController().signal);
    expect(refused.status).toBe(403);
    expect(await refused.json()).toMatchObject({ id: 1, error: { message: 'No listening here' } });
    refuse = false;
  });

  it('over WebSocket: seen by a middleware, and refused by one', async () => {
    seen.length = 0;
    const ws = await connectWs(`${running.url.replace('http', 'ws')}/mcp`, { protocol: 'mcp' });
    try {
      refuse = true;
      ws.send(listenMessage(7));
      const refused = await ws.next((m) => m.id === 7);
      expect(refused.error).toMatchObject({ message: 'No listening here' });
      refuse = false;
      ws.send(listenMessage(8));
      const ack = await ws.next((m) => m.method === 'notifications/subscriptions/acknowledged');
      expect(ack.params).toMatchObject({ notifications: { toolsListChanged: true } });
      expect(seen.map((s) => [s.method, s.binding])).toEqual([
        ['subscriptions/listen', 'mcp'],
        ['subscriptions/listen', 'mcp'],
      ]);
    } finally {
      ws.ws.close();
    }
  });
});
