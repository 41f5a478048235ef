/**
 * The inspector's targets against real servers that answer badly: a listing that is not JSON, a stream that ends
 * without a result, an oversized answer, prompts of the wrong shape, a server that is down, and answers that never
 * end (issue 22, item 15).
 */
import { createServer as createHttpServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listenNode, type NodeListening } from '../../src/adapters/node.js';
import { createInspector, type InspectorTarget } from '../../src/inspector/index.js';
import { inspectorTarget } from '../../src/inspector/targets/index.js';
import { createMcpLiteHttpTarget } from '../../src/inspector/targets/mcp-lite-http.js';
import { fetchTransport } from '../../src/inspector/targets/transport.js';
import { events, send } from './inspector.fixtures.js';

describe('inspector API against servers that answer badly', () => {
  let bad: Server;
  let badBase: string;
  const listeners: NodeListening[] = [];

  beforeAll(async () => {
    // A real server that speaks no MCP-lite: garbage, an endless body, a stream without a result.
    bad = createHttpServer((req, res) => {
      if (req.url?.endsWith('prompts')) {
        // Neither a listing nor a rendering: `prompts` is no array, and there are no `messages`.
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ prompts: 'x'.repeat(100) }));
      } else if (req.url?.endsWith('listtools')) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('this is not json');
      } else if (req.headers.accept?.includes('text/event-stream')) {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.end('event: message\ndata: {"partial":1}\n\n');
      } else if (req.headers['x-kind'] === 'unknown') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ jsonrpc: '2.0', id: 1, result: { _meta: { response_type: 'teleport' } } }));
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
      prompts: () => send(port, 'GET', '/inspector/api/prompts', headers),
      prompt: () =>
        send(port, 'POST', '/inspector/api/prompt', headers, JSON.stringify({ name: 'p', arguments: {} })),
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

  it('reports a prompt listing without a prompts array and a rendering without messages as errors', async () => {
    const i = await inspect(badBase);
    const listed = await i.prompts();
    expect(listed.status).toBe(502);
    expect(JSON.parse(listed.body).error.message).toMatch(/no "prompts" array/);
    const rendered = await i.prompt();
    expect(rendered.status).toBe(502);
    expect(JSON.parse(rendered.body)).toMatchObject({
      error: { message: expect.stringMatching(/no "messages" array/) },
      exchange: { response: { status: 200 } },
    });
  });

  it('shows a result of an unknown outcome kind as a protocol error, as the client reads it', async () => {
    const inspector = createInspector({
      target: createMcpLiteHttpTarget({
        transport: fetchTransport(badBase),
        target: badBase,
        headers: { 'x-kind': 'unknown' },
      }),
    });
    const listening = await listenNode(inspector.handler, { port: 0 });
    listeners.push(listening);
    const port = (listening.server.address() as AddressInfo).port;
    const headers = { 'x-mcplite-inspector': inspector.token, 'content-type': 'application/json' };
    const reply = await send(
      port,
      'POST',
      '/inspector/api/call',
      headers,
      JSON.stringify({ tool: 't', stream: false }),
    );
    const { outcome } = events(reply.body).at(-1)!.data;
    expect(outcome).toEqual({
      type: 'error',
      error: {
        code: 'protocol',
        message: expect.stringMatching(/outcome kind this client does not know: teleport/),
      },
    });
  });

  it('reports a server that is down', async () => {
    const i = await inspect('http://127.0.0.1:1/mcp-lite/v1/');
    const tools = JSON.parse((await i.tools()).body);
    expect(tools.error.message).toMatch(/^Request failed/);
    expect((await i.call(false)).outcome.error.code).toBe('transport');
  });
});

describe('inspector against servers whose answers never end (read up to 16 MiB, then a clear error)', () => {
  const MIB = 1024 * 1024;
  // Past this a server stops by itself, so that a reader without a bound fails the test instead of running on.
  const GIVE_UP = 96 * MIB;
  let endless: Server;
  let base: string;
  let sent = 0;
  const listeners: NodeListening[] = [];

  /** Writes `chunk` for as long as the reader takes it (respecting backpressure), counting what went out. */
  function pour(res: ServerResponse, head: string, chunk: string): void {
    sent = 0;
    res.write(head);
    const pump = () => {
      while (!res.destroyed && sent < GIVE_UP) {
        sent += chunk.length;
        if (!res.write(chunk)) {
          res.once('drain', pump);
          return;
        }
      }
      res.end();
    };
    pump();
  }

  beforeAll(async () => {
    const filler = 'x'.repeat(64 * 1024);
    endless = createHttpServer((req, res) => {
      const url = req.url ?? '';
      if (url.startsWith('/mcp-lite/v1/') && req.headers.accept?.includes('text/event-stream')) {
        // Partials without end: each one small, the stream endless.
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        pour(res, '', `event: message\ndata: {"partial":"${filler}"}\n\n`);
      } else if (url.startsWith('/mcp-lite/v1/')) {
        // One SSE event that never ends (the parser would keep all of it).
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        pour(res, 'event: done\ndata: "', filler);
      } else if (url.startsWith('/webtools/big/')) {
        // Webtools metadata, and every answer, as one JSON body without end (issue 22: 4.7 GB were read).
        res.writeHead(200, { 'content-type': 'application/json' });
        pour(res, '{"actions":[{"name":"t","description":"', filler);
      } else {
        res.writeHead(404).end();
      }
    });
    await new Promise<void>((r) => endless.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(endless.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    for (const l of listeners) await l.close();
    endless.closeAllConnections();
    await new Promise((r) => endless.close(r));
  });

  async function inspect(target: InspectorTarget) {
    const inspector = createInspector({ target });
    const listening = await listenNode(inspector.handler, { port: 0 });
    listeners.push(listening);
    const port = (listening.server.address() as AddressInfo).port;
    const headers = { 'x-mcplite-inspector': inspector.token, 'content-type': 'application/json' };
    return {
      tools: async () => JSON.parse((await send(port, 'GET', '/inspector/api/tools', headers)).body),
      call: async (stream: boolean) =>
        events(
          (await send(port, 'POST', '/inspector/api/call', headers, JSON.stringify({ tool: 't', stream })))
            .body,
        ).at(-1)!.data,
    };
  }

  it('stops an MCP-lite HTTP stream at 16 MiB, endless partials or one endless event alike', async () => {
    const target = await inspectorTarget(`${base}/mcp-lite/v1/`);
    const i = await inspect(target);
    for (const stream of [true, false]) {
      const { outcome } = await i.call(stream);
      expect(outcome.type).toBe('error');
      expect(outcome.error).toMatchObject({ code: 'payload_too_large' });
      expect(outcome.error.message).toMatch(/larger than 16 MiB, the most the inspector reads/);
      // The server was cut off near the cap (what socket buffers held aside), far from where it gives up.
      expect(sent).toBeLessThan(32 * MIB);
    }
    await target.close();
  });

  it('stops a Webtools target (through the client) at 16 MiB, listing and calling', async () => {
    const target = await inspectorTarget(`${base}/webtools/big/`);
    expect(target.binding).toBe('webtools');
    const i = await inspect(target);
    const listing = await i.tools();
    expect(listing.error).toMatchObject({ code: 'payload_too_large' });
    expect(sent).toBeLessThan(32 * MIB);
    const { outcome } = await i.call(false);
    expect(outcome.error).toMatchObject({ code: 'payload_too_large' });
    expect(sent).toBeLessThan(32 * MIB);
    await target.close();
  });
});
