/**
 * MCP over WebSocket (`ws://…/mcp`, subprotocol `mcp`) with the official SDK's WebSocketClientTransport: listing,
 * calling, a promise redeemed, an elicitation, progress and a cancel that reaches the handler; many requests at
 * once on one connection; and the guards: auth, Host/Origin, size limit, malformed frames, a flood of connections
 * and a client that stops reading.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { WebSocketClientTransport } from '@modelcontextprotocol/sdk/client/websocket.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import WebSocket from 'ws';
import { bearerAuth } from '../../src/core/auth.js';
import { reportProgress } from '../../src/core/notices.js';
import { createServer, elicit, type ToolDefinition } from '../../src/index.js';
import { type RunningServer, serve } from '../../src/node.js';
import { connectWs, eventually, refusal, type WsTestClient } from '../support/ws-client.js';

/**
 * The SDK transport uses the global WebSocket, which Node 20 lacks: it gets the `ws` package's, dispatching each
 * message in a task of its own as browsers do. (With `ws`'s default synchronous dispatch, the SDK drops progress
 * notifications that arrive in the same TCP read as their response: it handles notifications a microtask late and
 * responses at once.) Node 22's own WebSocket is replaced the same way, so both runs test the same client.
 */
class BrowserLikeWebSocket extends WebSocket {
  constructor(url: string | URL, protocols?: string | string[]) {
    super(url, protocols, { allowSynchronousEvents: false });
  }
}
(globalThis as { WebSocket?: unknown }).WebSocket = BrowserLikeWebSocket;

const aborted: string[] = [];
const tools: ToolDefinition[] = [
  {
    name: 'echo',
    inputSchema: { type: 'object', required: ['message'], properties: { message: { type: 'string' } } },
    handler: (a: { message: string }) => ({ message: a.message }),
  },
  {
    name: 'slow',
    longRunning: { estimatedMs: 50 },
    handler: async () => {
      await new Promise((r) => setTimeout(r, 20));
      return { done: true };
    },
  },
  {
    name: 'ask',
    handler: (_a, ctx) =>
      ctx.elicitation
        ? { size: ctx.elicitation.answers.size }
        : elicit({
            message: 'Which size?',
            schema: { type: 'object', required: ['size'], properties: { size: { type: 'string' } } },
          }),
  },
  {
    name: 'steps',
    handler: async (_a, ctx) => {
      for (let i = 1; i <= 3; i++) await reportProgress(ctx, i, { total: 3, message: `step ${i}` });
      return 'finished';
    },
  },
  {
    name: 'wait',
    handler: (a: { tag?: string }, ctx) =>
      new Promise((_r, reject) => {
        void reportProgress(ctx, 1, { total: 2 });
        ctx.signal.addEventListener('abort', () => {
          aborted.push(a.tag ?? 'wait');
          reject(ctx.signal.reason);
        });
      }),
  },
  {
    name: 'delay',
    handler: async (a: { ms: number }) => {
      await new Promise((r) => setTimeout(r, a.ms));
      return a.ms;
    },
  },
  { name: 'big', handler: () => 'x'.repeat(256 * 1024) },
];

let running: RunningServer;
let url: string;

beforeAll(async () => {
  running = await serve(createServer({ tools, name: 'ws-test', version: '2.0.0', mcpInlineWaitMs: 0 }), {
    port: 0,
  });
  url = `${running.url.replace('http', 'ws')}/mcp`;
});
afterAll(() => running.close(1000));
afterEach(() => {
  aborted.length = 0;
});

async function sdkClient(capabilities: Record<string, unknown> = {}) {
  const client = new Client({ name: 'ws-interop', version: '1.0.0' }, { capabilities });
  await client.connect(new WebSocketClientTransport(new URL(url)));
  return client;
}

describe('official SDK client over WebSocket', () => {
  it('initializes, lists and calls', async () => {
    const client = await sdkClient();
    try {
      expect(client.getServerVersion()).toMatchObject({ name: 'ws-test', version: '2.0.0' });
      const { tools: listed } = await client.listTools();
      expect(listed.map((t) => t.name)).toEqual(expect.arrayContaining(['echo', 'redeem', 'ask']));
      const result = await client.callTool({ name: 'echo', arguments: { message: 'hi' } });
      expect(result.structuredContent).toEqual({ message: 'hi' });
      // Invalid arguments are the tool's error, a result the model reads (SEP-1303).
      const invalid = await client.callTool({ name: 'echo', arguments: {} });
      expect(invalid.isError).toBe(true);
      expect(JSON.stringify(invalid.content)).toMatch(/'message' is required/);
    } finally {
      await client.close();
    }
  });

  it('redeems a promise through tools/call', async () => {
    const client = await sdkClient();
    try {
      const started = (await client.callTool({ name: 'slow', arguments: {} })) as any;
      const token = started.structuredContent.promise_token as string;
      expect(token).toMatch(/^prom_/);
      const redeemed = (await client.callTool({
        name: 'redeem',
        arguments: { promise: token, wait_ms: 5000 },
      })) as any;
      expect(redeemed.structuredContent).toEqual({ done: true });
    } finally {
      await client.close();
    }
  });

  it('asks the client through elicitation/create and finishes with its answer', async () => {
    const client = await sdkClient({ elicitation: {} });
    const asked: string[] = [];
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      asked.push(request.params.message);
      return { action: 'accept', content: { size: 'M' } };
    });
    try {
      const result = await client.callTool({ name: 'ask', arguments: {} });
      expect(asked).toEqual(['Which size?']);
      expect(result.structuredContent).toEqual({ size: 'M' });
    } finally {
      await client.close();
    }
  });

  it('reports progress and cancels: the handler is aborted', async () => {
    const client = await sdkClient();
    try {
      const progress: number[] = [];
      const result = await client.callTool({ name: 'steps', arguments: {} }, undefined, {
        onprogress: (p) => progress.push(p.progress),
      });
      expect(progress).toEqual([1, 2, 3]);
      expect(result.structuredContent).toEqual({ result: 'finished' });
      const controller = new AbortController();
      const call = client.callTool({ name: 'wait', arguments: { tag: 'sdk' } }, undefined, {
        signal: controller.signal,
        onprogress: () => controller.abort('stop'),
      });
      await expect(call).rejects.toThrow();
      await vi.waitFor(() => expect(aborted).toEqual(['sdk']), { timeout: 60_000 });
    } finally {
      await client.close();
    }
  });

  it('runs many requests at once on one connection', async () => {
    const client = await sdkClient();
    try {
      const results = await Promise.all(
        Array.from({ length: 30 }, (_, i) =>
          client.callTool({ name: 'delay', arguments: { ms: 60 - i * 2 } }),
        ),
      );
      expect(results.map((r) => (r.structuredContent as any).result)).toEqual(
        Array.from({ length: 30 }, (_, i) => 60 - i * 2),
      );
    } finally {
      await client.close();
    }
  });
});

describe('MCP over WebSocket: hostile input', () => {
  const clients: WsTestClient[] = [];
  afterEach(() => {
    for (const c of clients.splice(0)) c.ws.terminate();
  });
  const connect = async (options: Parameters<typeof connectWs>[1] = {}) => {
    const c = await connectWs(url, { protocol: 'mcp', ...options });
    clients.push(c);
    return c;
  };

  it('answers malformed and out-of-order messages with errors and carries on', async () => {
    const c = await connect();
    c.send('{oops');
    expect((await c.next((m) => m.error)).error.code).toBe(-32700);
    c.send({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
    expect((await c.next((m) => m.id === 1)).error).toMatchObject({
      code: -32600,
      message: expect.stringContaining('initialize'),
    });
    c.ws.send(Buffer.from('{}'), { binary: true });
    expect((await c.next((m) => m.error)).error.code).toBe(-32700);
    const init = await c.request('initialize', {
      protocolVersion: '2025-06-18',
      capabilities: {},
      clientInfo: { name: 'raw', version: '0' },
    });
    expect(init.result.protocolVersion).toBe('2025-06-18');
    c.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    expect((await c.request('tools/list')).result.tools.length).toBeGreaterThan(0);
  });

  it('closes on an oversized message (1009) or a bad frame (1002); other connections are untouched', async () => {
    const small = await serve(createServer({ tools }), { port: 0, maxBodyBytes: 512 });
    try {
      const smallUrl = `${small.url.replace('http', 'ws')}/mcp`;
      const big = await connectWs(smallUrl, { protocol: 'mcp' });
      const other = await connectWs(smallUrl, { protocol: 'mcp' });
      big.send({ jsonrpc: '2.0', id: 1, method: 'ping', params: { pad: 'x'.repeat(1000) } });
      expect((await big.closed).code).toBe(1009);
      (other.ws as any)._socket.write(Buffer.from([0x81, 0x02, 0x7b, 0x7d]));
      expect((await other.closed).code).toBe(1002);
      const ok = await connectWs(smallUrl, { protocol: 'mcp' });
      expect((await ok.request('ping')).result).toEqual({});
      ok.ws.close();
    } finally {
      await small.close(500);
    }
  });

  it('checks auth, Host and Origin at the upgrade, and bounds connections per caller', async () => {
    const guarded = await serve(createServer({ tools, authenticate: bearerAuth(['tok']) }), {
      port: 0,
      mcpWs: { maxConnectionsPerCaller: 2 },
    });
    try {
      const gUrl = `${guarded.url.replace('http', 'ws')}/mcp`;
      expect((await refusal(gUrl, { protocol: 'mcp' })).status).toBe(401);
      expect(
        (
          await refusal(gUrl, {
            protocol: 'mcp',
            headers: { authorization: 'Bearer tok', host: 'evil.example' },
          })
        ).status,
      ).toBe(403);
      const auth = { protocol: 'mcp', headers: { authorization: 'Bearer tok' } };
      const open = [await connectWs(gUrl, auth), await connectWs(gUrl, auth)];
      const flood = await Promise.all(Array.from({ length: 5 }, () => refusal(gUrl, auth)));
      for (const r of flood) expect(r.status).toBe(429);
      expect((await open[0]!.request('ping')).result).toEqual({});
      for (const o of open) o.ws.close();
    } finally {
      await guarded.close(500);
    }
  });

  it('drops a client that stops reading (the bound under its deprecated name, still honoured)', async () => {
    const tight = await serve(createServer({ tools }), { port: 0, mcpWs: { maxBufferedBytes: 64 * 1024 } });
    try {
      const tUrl = `${tight.url.replace('http', 'ws')}/mcp`;
      const c = await connectWs(tUrl, { protocol: 'mcp' });
      await c.request('initialize', {
        protocolVersion: '2025-06-18',
        capabilities: {},
        clientInfo: { name: 'r', version: '0' },
      });
      (c.ws as any)._socket.pause();
      for (let i = 0; i < 200 && tight.mcpWs!.connections > 0; i++) {
        c.send({ jsonrpc: '2.0', id: i + 10, method: 'tools/call', params: { name: 'big', arguments: {} } });
        await new Promise((r) => setImmediate(r));
      }
      await eventually(() => tight.mcpWs!.connections === 0);
      c.ws.terminate();
    } finally {
      await tight.close(500);
    }
  });
});
