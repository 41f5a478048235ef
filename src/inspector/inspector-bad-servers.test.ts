/**
 * The inspector's MCP-lite HTTP target against real servers that answer badly: a listing that is not JSON, a
 * stream that ends without a result, an oversized answer, and a server that is down.
 */
import { createServer as createHttpServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listenNode, type NodeListening } from '../adapters/node.js';
import { createInspector } from './index.js';
import { events, send } from './inspector.fixtures.js';
import { createMcpLiteHttpTarget } from './targets/mcp-lite-http.js';
import { fetchTransport } from './targets/transport.js';

describe('inspector API against servers that answer badly', () => {
  let bad: Server;
  let badBase: string;
  const listeners: NodeListening[] = [];

  beforeAll(async () => {
    // A real server that speaks no MCP-lite: garbage, an endless body, a stream without a result.
    bad = createHttpServer((req, res) => {
      if (req.url?.endsWith('listtools')) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('this is not json');
      } else if (req.headers.accept?.includes('text/event-stream')) {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.end('event: message\ndata: {"partial":1}\n\n');
      } else {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ jsonrpc: '2.0', id: 1, result: { content: 'x'.repeat(5000) } }));
      }
    });
    await new Promise<void>((r) => bad.listen(0, '127.0.0.1', r));
    badBase = `http://127.0.0.1:${(bad.address() as AddressInfo).port}/mcp-lite/v1/`;
  });

  afterAll(async () => {
    for (const l of listeners) await l.close();
    await new Promise((r) => bad.close(r));
  });

  async function inspect(base: string, maxResponseBytes?: number) {
    const inspector = createInspector({
      target: createMcpLiteHttpTarget({
        transport: fetchTransport(base),
        target: base,
        ...(maxResponseBytes ? { maxResponseBytes } : {}),
      }),
    });
    const listening = await listenNode(inspector.handler, { port: 0 });
    listeners.push(listening);
    const port = (listening.server.address() as AddressInfo).port;
    const headers = { 'x-mcplite-inspector': inspector.token, 'content-type': 'application/json' };
    return {
      tools: () => send(port, 'GET', '/inspector/api/tools', headers),
      call: async (stream: boolean) =>
        events(
          (await send(port, 'POST', '/inspector/api/call', headers, JSON.stringify({ tool: 't', stream })))
            .body,
        ).at(-1)!.data,
    };
  }

  it('reports a listing that is not JSON, a stream with no result and an oversized answer as errors', async () => {
    const i = await inspect(badBase, 1000);
    const tools = await i.tools();
    expect(tools.status).toBe(502);
    expect(JSON.parse(tools.body).exchange.response.body).toBe('this is not json');
    expect((await i.call(true)).outcome.error.message).toMatch(/ended without a result/);
    expect((await i.call(false)).outcome.error.message).toMatch(/larger than 1000 bytes/);
  });

  it('reports a server that is down', async () => {
    const i = await inspect('http://127.0.0.1:1/mcp-lite/v1/');
    const tools = JSON.parse((await i.tools()).body);
    expect(tools.error.message).toMatch(/^Request failed/);
    expect((await i.call(false)).outcome.error.code).toBe('transport');
  });
});
