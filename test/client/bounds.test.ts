/**
 * Issue 22 item 15: nothing the client reads is unbounded. Against servers whose answer never ends (a JSON body,
 * one SSE data line, an endless stream of partials, a stdio line, a gRPC message over the bound), every wire
 * stops at its bound with `payload_too_large` / `resource_exhausted` naming it, and the call's `timeout` covers
 * reading the body.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer as createHttpServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ConnectOptions, connect, McpLiteError } from '../../src/client/index.js';
import { createServer } from '../../src/index.js';
import { type RunningServer, serve } from '../../src/node.js';
import { clientTools } from '../support/client-fixture.js';

const MiB = 1024 * 1024;
let server: Server;
let base: string;

/** Writes `chunk` until the client goes away, with backpressure, so the server never runs ahead of the socket. */
function endless(res: ServerResponse, chunk: string) {
  const more = () => {
    while (!res.destroyed && res.write(chunk));
    if (!res.destroyed) res.once('drain', more);
  };
  more();
}

const KB64 = 'x'.repeat(64 * 1024);
/** A body that is never done: one byte every 20 ms. */
function trickle(_req: IncomingMessage, res: ServerResponse) {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.write('{');
  const t = setInterval(() => (res.destroyed ? clearInterval(t) : res.write(' ')), 20);
}
const routes: Record<string, (req: IncomingMessage, res: ServerResponse, body: string) => void> = {
  // MCP-lite HTTP
  '/endless/calltools': (_q, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write('{"jsonrpc":"2.0","id":1,"result":{"message":"');
    endless(res, KB64);
  },
  '/endless-line/calltools': (_q, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write('event: message\ndata: {"partial":"');
    endless(res, KB64);
  },
  '/partials/calltools': (_q, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    endless(res, 'event: message\ndata: {"partial":{"i":1}}\n\n'.repeat(1000));
  },
  '/trickle/calltools': trickle,
  '/trickle/listtools': trickle,
  // Webtools: endless metadata, and an endless SSE data line for a streamed execution
  '/webtools/endless/': (req, res) => {
    if (req.method === 'GET') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"actions":[],"description":"');
      endless(res, KB64);
    } else {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('event: message\ndata: {"partial":"');
      endless(res, KB64);
    }
  },
  // MCP 2026-07-28 (stateless): an endless JSON answer
  '/stateless/mcp': (_q, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write('{"jsonrpc":"2.0","id":1,"result":{"tools":[],"x":"');
    endless(res, KB64);
  },
  // MCP on a handshake revision (the SDK's transport): a handshake, then an endless SSE event for tools/call
  '/handshake/mcp': (req, res, body) => {
    if (req.method !== 'POST') return void res.writeHead(405).end();
    const msg = JSON.parse(body) as { id?: number; method: string; params?: { protocolVersion?: string } };
    if (msg.id === undefined) return void res.writeHead(202).end();
    if (msg.method === 'initialize') {
      res.writeHead(200, { 'content-type': 'application/json' });
      return void res.end(
        JSON.stringify({
          jsonrpc: '2.0',
          id: msg.id,
          result: {
            protocolVersion: msg.params?.protocolVersion,
            capabilities: { tools: {} },
            serverInfo: { name: 'endless', version: '1' },
          },
        }),
      );
    }
    if (msg.method === 'tools/list') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write(`{"jsonrpc":"2.0","id":${msg.id},"result":{"tools":[],"x":"`);
      return endless(res, KB64);
    }
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(`event: message\ndata: {"jsonrpc":"2.0","id":${msg.id},"result":{"x":"`);
    endless(res, KB64);
  },
};

beforeAll(async () => {
  server = createHttpServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => {
      body += c.toString();
    });
    req.on('end', () => {
      const route = routes[(req.url ?? '').split('?')[0]!];
      if (route) route(req, res, body);
      else res.writeHead(404).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

async function failure(
  target: string,
  options: ConnectOptions,
  run: (client: Awaited<ReturnType<typeof connect>>) => Promise<unknown>,
): Promise<McpLiteError> {
  const client = await connect(target, options);
  try {
    const err = await run(client).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(McpLiteError);
    return err as McpLiteError;
  } finally {
    await client.close();
  }
}

const echo =
  (stream = false) =>
  (client: Awaited<ReturnType<typeof connect>>) =>
    client.call('echo', { message: 'x' }, { timeout: 15_000, ...(stream ? { onPartial: () => {} } : {}) });

describe('MCP-lite HTTP', () => {
  const lite = { binding: 'mcp-lite-http' } as const;

  it('a JSON body that never ends stops at the default 16 MiB', async () => {
    const err = await failure(`${base}/endless/`, lite, echo());
    expect(err.code).toBe('payload_too_large');
    expect(err.data).toMatchObject({ bound: 'maxResponseBytes', limit: 16 * MiB });
    expect(err.message).toContain('maxResponseBytes');
  });

  it('one SSE data line that never ends stops at maxResponseBytes', async () => {
    const err = await failure(`${base}/endless-line/`, { ...lite, maxResponseBytes: MiB }, echo(true));
    expect(err.code).toBe('payload_too_large');
    expect(err.data).toMatchObject({ bound: 'maxResponseBytes', limit: MiB });
  });

  it('an endless stream of partials stops at maxPartials', async () => {
    let seen = 0;
    const err = await failure(`${base}/partials/`, { ...lite, maxPartials: 100 }, (client) =>
      client.call('echo', {}, { onPartial: () => void seen++ }),
    );
    expect(err.code).toBe('resource_exhausted');
    expect(err.data).toMatchObject({ bound: 'maxPartials', limit: 100 });
    expect(seen).toBe(100);
  });

  it('an endless stream of partials stops at maxStreamBytes', async () => {
    const err = await failure(
      `${base}/partials/`,
      { ...lite, maxStreamBytes: 256 * 1024, maxPartials: 1e9 },
      echo(true),
    );
    expect(err.code).toBe('payload_too_large');
    expect(err.data).toMatchObject({ bound: 'maxStreamBytes', limit: 256 * 1024 });
  });

  it('the timeout covers reading a body that trickles for ever', async () => {
    const started = Date.now();
    const err = await failure(`${base}/trickle/`, lite, (client) =>
      client.call('echo', { message: 'x' }, { timeout: 500 }),
    );
    expect(err.code).toBe('deadline_exceeded');
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('the client-wide timeout covers listing too', async () => {
    const started = Date.now();
    const err = await failure(`${base}/trickle/`, { ...lite, timeout: 500 }, (client) => client.listTools());
    expect(err.code).toBe('deadline_exceeded');
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});

describe('Webtools', () => {
  const webtools = { binding: 'webtools', maxResponseBytes: MiB } as const;

  it('endless metadata stops at maxResponseBytes', async () => {
    const err = await failure(`${base}/webtools/endless/`, webtools, (c) => c.listTools());
    expect(err.code).toBe('payload_too_large');
    expect(err.data).toMatchObject({ bound: 'maxResponseBytes' });
  });

  it('an endless SSE data line stops at maxResponseBytes', async () => {
    const err = await failure(`${base}/webtools/endless/`, webtools, echo(true));
    expect(err.code).toBe('payload_too_large');
  });
});

describe('MCP', () => {
  it('stateless: an endless JSON answer stops at maxResponseBytes', async () => {
    const err = await failure(
      `${base}/stateless/mcp`,
      { binding: 'mcp', mcpRevision: 'stateless', maxResponseBytes: MiB },
      (c) => c.listTools(),
    );
    expect(err.code).toBe('payload_too_large');
    expect(err.data).toMatchObject({ bound: 'maxResponseBytes', limit: MiB });
  });

  it('handshake (SDK transport): an endless SSE event stops at maxResponseBytes', async () => {
    const err = await failure(
      `${base}/handshake/mcp`,
      { binding: 'mcp', mcpRevision: 'handshake', maxResponseBytes: MiB },
      echo(),
    );
    expect(err.code).toBe('payload_too_large');
    expect(err.data).toMatchObject({ bound: 'maxResponseBytes', limit: MiB });
  });

  it('handshake (SDK transport): an endless JSON answer stops at maxResponseBytes', async () => {
    const err = await failure(
      `${base}/handshake/mcp`,
      { binding: 'mcp', mcpRevision: 'handshake', maxResponseBytes: MiB },
      (c) => c.listTools({ signal: AbortSignal.timeout(15_000) }),
    );
    expect(err.code).toBe('payload_too_large');
  });

  it('stdio: a line that never ends stops at maxResponseBytes', async () => {
    const script = fileURLToPath(new URL('../support/endless-stdio-server.mjs', import.meta.url));
    const err = await failure(
      `${process.execPath} ${script}`,
      { stderr: 'ignore', maxResponseBytes: MiB },
      echo(),
    );
    expect(err.code).toBe('payload_too_large');
    expect(err.data).toMatchObject({ bound: 'maxResponseBytes', limit: MiB });
  });
});

describe('gRPC', () => {
  let running: RunningServer;
  beforeAll(async () => {
    const big = {
      name: 'big',
      description: 'Answers 2 MiB of text',
      handler: () => ({ text: 'x'.repeat(2 * MiB) }),
    };
    running = await serve(createServer({ name: 'bounds', version: '1.0.0', tools: [...clientTools, big] }), {
      port: 0,
      grpcPort: 0,
    });
  });
  afterAll(async () => {
    await running.close(500);
  });

  it('a message over maxResponseBytes is refused', async () => {
    const err = await failure(`grpc://127.0.0.1:${running.grpc!.port}`, { maxResponseBytes: MiB }, (c) =>
      c.call('big', {}),
    );
    expect(err.code).toBe('payload_too_large');
    expect(err.data).toMatchObject({ bound: 'maxResponseBytes', limit: MiB });
  });

  it('partials past maxPartials end the stream', async () => {
    let seen = 0;
    const err = await failure(`grpc://127.0.0.1:${running.grpc!.port}`, { maxPartials: 5 }, (c) =>
      c.call('count', { n: 50 }, { onPartial: () => void seen++ }),
    );
    expect(err.code).toBe('resource_exhausted');
    expect(err.data).toMatchObject({ bound: 'maxPartials', limit: 5 });
    expect(seen).toBe(5);
  });
});
