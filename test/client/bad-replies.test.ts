/**
 * The client facing servers that answer badly: whatever comes back (not JSON, the wrong shape, a stream cut
 * short, an HTML error page, a hang past the deadline), the caller gets an McpLiteError with a useful code, and
 * nothing crashes or hangs.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, McpLiteError } from '../../src/client/index.js';

let server: Server;
let base: string;
/** What the fake answers, by path. */
const replies: Record<string, (res: import('node:http').ServerResponse) => void> = {
  '/garbage/calltools': (res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{not json'),
  '/shape/calltools': (res) => res.writeHead(200, { 'content-type': 'application/json' }).end('[1,2,3]'),
  '/html/calltools': (res) => res.writeHead(502, { 'content-type': 'text/html' }).end('<h1>Bad gateway</h1>'),
  '/cut/calltools': (res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.end('event: message\ndata: {"partial": 1}\n\n');
  },
  '/hang/calltools': () => {},
  // A result whose outcome kind is none of the five (a newer or broken server): never to be read as an answer.
  '/kind/calltools': (res) =>
    res.writeHead(200, { 'content-type': 'application/json' }).end(
      JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        result: { content: 'looks like an answer', _meta: { response_type: 'teleport\u001b[31m' } },
      }),
    ),
  '/mcp': (res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"jsonrpc":"2.0","id":1}'),
};

beforeAll(async () => {
  server = createServer((req, res) => {
    req.resume();
    const path = req.url ?? '';
    const key = Object.keys(replies).find((k) => path === k);
    if (key) replies[key]!(res);
    else res.writeHead(404).end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

const call = async (path: string, options: { timeout?: number; stream?: boolean } = {}) => {
  const client = await connect(`${base}${path}`, { binding: 'mcp-lite-http' });
  return client
    .call(
      'echo',
      { message: 'x' },
      {
        ...(options.timeout ? { timeout: options.timeout } : {}),
        ...(options.stream ? { onPartial: () => {} } : {}),
      },
    )
    .catch((err) => err);
};

describe('bad replies', () => {
  it('a body that is not JSON', async () => {
    const err = await call('/garbage/');
    expect(err).toBeInstanceOf(McpLiteError);
    expect(err.code).toBe('invalid_request');
  });

  it('JSON of the wrong shape', async () => {
    const err = await call('/shape/');
    expect(err).toBeInstanceOf(McpLiteError);
  });

  it('an HTML error page with a 5xx status', async () => {
    const err = await call('/html/');
    expect(err).toBeInstanceOf(McpLiteError);
    expect(err.code).toBe('internal');
    expect(err.data.http_status).toBe(502);
  });

  it('an SSE stream that ends without its result', async () => {
    const err = await call('/cut/', { stream: true });
    expect(err).toBeInstanceOf(McpLiteError);
    expect(err.code).toBe('unavailable');
  });

  it('a server that never answers, past the deadline', async () => {
    const err = await call('/hang/', { timeout: 200 });
    expect(err).toBeInstanceOf(McpLiteError);
    expect(err.code).toBe('deadline_exceeded');
  });

  it('an MCP reply without result or error', async () => {
    const client = await connect(`${base}/mcp`, { binding: 'mcp', mcpRevision: 'stateless' });
    const err = await client.listTools().catch((e) => e);
    expect(err).toBeInstanceOf(McpLiteError);
  });

  it('a result whose outcome kind is none of the five is refused, naming the kind, not taken for an answer', async () => {
    const err = await call('/kind/');
    expect(err).toBeInstanceOf(McpLiteError);
    expect(err.code).toBe('internal');
    expect(err.message).toMatch(/outcome kind this client does not know: teleport\\x1b\[31m/);
  });
});
