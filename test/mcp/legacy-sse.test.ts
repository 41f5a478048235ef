/**
 * MCP's legacy HTTP+SSE transport (2024-11-05) with the official SDK's SSEClientTransport: listing, calling, a
 * promise redeemed, an elicitation, progress and a cancel that reaches the handler; then the guards over raw HTTP:
 * the endpoint event, malformed and oversized posts, unknown and foreign sessions, a flood of streams and a client
 * that stops reading.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { bearerAuth } from '../../src/core/auth.js';
import { reportProgress } from '../../src/core/notices.js';
import { createServer, elicit, type ToolDefinition } from '../../src/index.js';
import { type RunningServer, serve } from '../../src/node.js';

const aborted: string[] = [];
const tools: ToolDefinition[] = [
  { name: 'echo', handler: (a: { message: string }) => ({ message: a.message }) },
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
      for (let i = 1; i <= 3; i++) await reportProgress(ctx, i, { total: 3 });
      return 'finished';
    },
  },
  {
    name: 'wait',
    handler: (_a, ctx) =>
      new Promise((_r, reject) => {
        void reportProgress(ctx, 1, { total: 2 });
        const stop = () => {
          aborted.push('wait');
          reject(ctx.signal.reason);
        };
        if (ctx.signal.aborted) stop();
        else ctx.signal.addEventListener('abort', stop);
      }),
  },
  { name: 'big', handler: () => 'x'.repeat(64 * 1024) },
];

let running: RunningServer;

beforeAll(async () => {
  running = await serve(createServer({ tools, name: 'sse-test', version: '3.0.0', mcpInlineWaitMs: 0 }), {
    port: 0,
    maxBodyBytes: 64 * 1024,
    legacySse: { maxSessionsPerCaller: 4, maxQueuedMessages: 8 },
  });
});
afterAll(() => running.close(1000));

/**
 * The SDK client, plus every progress notification its transport received. (The SDK hands a notification to its
 * handler a microtask after reading it but settles a response at once, so `onprogress` misses progress that the
 * `eventsource` package delivers in the same chunk as the response: what reached the client is checked here.)
 */
async function sdkClient(capabilities: Record<string, unknown> = {}) {
  const client = new Client({ name: 'sse-interop', version: '1.0.0' }, { capabilities });
  const transport = new SSEClientTransport(new URL(`${running.url}/sse`));
  await client.connect(transport);
  const progress: Array<{ progressToken: unknown; progress: number }> = [];
  const onProgress: Array<() => void> = [];
  const deliver = transport.onmessage!;
  transport.onmessage = (message) => {
    if ('method' in message && message.method === 'notifications/progress') {
      progress.push(message.params as { progressToken: unknown; progress: number });
      for (const f of onProgress.splice(0)) f();
    }
    deliver(message);
  };
  return { client, progress, nextProgress: () => new Promise<void>((r) => onProgress.push(r)) };
}

describe('official SDK client over legacy HTTP+SSE', () => {
  it('lists, calls, redeems a promise, answers an elicitation, sees progress and cancels', async () => {
    const { client, progress, nextProgress } = await sdkClient({ elicitation: {} });
    client.setRequestHandler(ElicitRequestSchema, async () => ({ action: 'accept', content: { size: 'L' } }));
    try {
      expect(client.getServerVersion()).toMatchObject({ name: 'sse-test', version: '3.0.0' });
      const { tools: listed } = await client.listTools();
      expect(listed.map((t) => t.name)).toEqual(expect.arrayContaining(['echo', 'redeem', 'ask']));
      expect(
        (await client.callTool({ name: 'echo', arguments: { message: 'hi' } })).structuredContent,
      ).toEqual({
        message: 'hi',
      });
      const started = (await client.callTool({ name: 'slow', arguments: {} })) as any;
      const redeemed = (await client.callTool({
        name: 'redeem',
        arguments: { promise: started.structuredContent.promise_token, wait_ms: 5000 },
      })) as any;
      expect(redeemed.structuredContent).toEqual({ done: true });
      expect((await client.callTool({ name: 'ask', arguments: {} })).structuredContent).toEqual({
        size: 'L',
      });
      await client.callTool({ name: 'steps', arguments: {} }, undefined, { onprogress: () => {} });
      expect(progress.map((p) => p.progress)).toEqual([1, 2, 3]);
      const controller = new AbortController();
      const inFlight = nextProgress();
      const call = client.callTool({ name: 'wait', arguments: {} }, undefined, {
        signal: controller.signal,
        onprogress: () => {},
      });
      await inFlight;
      controller.abort('stop');
      await expect(call).rejects.toThrow();
      await vi.waitFor(() => expect(aborted).toEqual(['wait']), { timeout: 60_000 });
    } finally {
      await client.close();
    }
  });
});

/** Opens a raw stream; resolves with its session's message URL and a reader of what follows. */
async function openStream(headers: Record<string, string> = {}) {
  const controller = new AbortController();
  const res = await fetch(`${running.url}/sse`, {
    headers: { accept: 'text/event-stream', ...headers },
    signal: controller.signal,
  });
  if (res.status !== 200) return { res, close: () => controller.abort() };
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let buffered = '';
  const nextEvent = async (): Promise<{ event: string; data: string }> => {
    for (;;) {
      const end = buffered.indexOf('\n\n');
      if (end >= 0) {
        const block = buffered.slice(0, end);
        buffered = buffered.slice(end + 2);
        if (block.startsWith(':')) continue;
        const event = /^event: (.*)$/m.exec(block)?.[1] ?? 'message';
        const data = /^data: (.*)$/m.exec(block)?.[1] ?? '';
        return { event, data };
      }
      const { value, done } = await reader.read();
      if (done) throw new Error('the stream ended');
      buffered += decoder.decode(value, { stream: true });
    }
  };
  const endpoint = await nextEvent();
  return { res, endpoint, nextEvent, close: () => controller.abort() };
}

const post = (path: string, body: string, headers: Record<string, string> = {}) =>
  fetch(`${running.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body,
  });

describe('legacy HTTP+SSE: the wire and hostile input', () => {
  it('sends the endpoint event, answers on the stream, and refuses bad posts with errors', async () => {
    const s = await openStream();
    try {
      expect(s.endpoint!.event).toBe('endpoint');
      expect(s.endpoint!.data).toMatch(/^\/messages\?sessionId=[0-9a-f]{32}$/);
      const path = s.endpoint!.data;
      const init = {
        protocolVersion: '2024-11-05',
        capabilities: {},
        clientInfo: { name: 'raw', version: '0' },
      };
      const r = await post(
        path,
        JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: init }),
      );
      expect(r.status).toBe(202);
      expect(JSON.parse((await s.nextEvent!()).data).result.protocolVersion).toBe('2024-11-05');
      const bad = await post(path, '{nope');
      expect(bad.status).toBe(400);
      expect(((await bad.json()) as any).error.code).toBe(-32700);
      const big = await post(path, JSON.stringify({ pad: 'x'.repeat(100_000) }));
      expect(big.status).toBe(413);
      const unknown = await post('/messages?sessionId=feedface', '{}');
      expect(unknown.status).toBe(404);
      expect(((await unknown.json()) as any).error.code).toBe(-32001);
      expect((await post('/messages', '{}')).status).toBe(404);
      expect((await fetch(`${running.url}/sse`, { method: 'POST' })).status).toBe(405);
      // The session still works.
      await post(path, JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'ping' }));
      expect(JSON.parse((await s.nextEvent!()).data)).toEqual({ jsonrpc: '2.0', id: 2, result: {} });
    } finally {
      s.close();
    }
  });

  it('bounds the streams per caller (429) and frees a slot when a stream closes', async () => {
    const streams = await Promise.all(Array.from({ length: 4 }, () => openStream()));
    try {
      const flood = await Promise.all(Array.from({ length: 5 }, () => openStream()));
      for (const f of flood) {
        expect(f.res.status).toBe(429);
        expect(((await f.res.json()) as any).error.code).toBe(-32004);
      }
      streams[0]!.close();
      await vi.waitFor(() => expect(running.legacySse!.sessions).toBe(3), { timeout: 60_000 });
      const again = await openStream();
      expect(again.res.status).toBe(200);
      again.close();
    } finally {
      for (const s of streams) s.close();
    }
  });

  it('ends the session of a client that stops reading its stream', async () => {
    await vi.waitFor(() => expect(running.legacySse!.sessions).toBe(0), { timeout: 60_000 });
    const s = await openStream();
    const path = s.endpoint!.data;
    const init = {
      protocolVersion: '2024-11-05',
      capabilities: {},
      clientInfo: { name: 'raw', version: '0' },
    };
    await post(path, JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: init }));
    // Nothing is read from now on; each answer is 64 KiB.
    for (let i = 0; i < 40; i++) {
      const r = await post(
        path,
        JSON.stringify({ jsonrpc: '2.0', id: i + 2, method: 'tools/call', params: { name: 'big' } }),
      );
      if (r.status === 404) break;
    }
    await vi.waitFor(() => expect((async () => (await post(path, '{}')).status)()).resolves.toBe(404), {
      timeout: 60_000,
    });
    s.close();
  });

  it('keeps a session to the principal that opened it', async () => {
    const guarded = await serve(createServer({ tools, authenticate: bearerAuth(['a', 'b']) }), { port: 0 });
    try {
      expect((await fetch(`${guarded.url}/sse`)).status).toBe(401);
      const controller = new AbortController();
      const res = await fetch(`${guarded.url}/sse`, {
        headers: { authorization: 'Bearer a' },
        signal: controller.signal,
      });
      const first = new TextDecoder().decode((await res.body!.getReader().read()).value);
      const path = /data: (\S+)/.exec(first)![1]!;
      const asOther = await fetch(`${guarded.url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: 'Bearer b' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
      });
      expect(asOther.status).toBe(404);
      const asOwner = await fetch(`${guarded.url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: 'Bearer a' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
      });
      expect(asOwner.status).toBe(202);
      controller.abort();
    } finally {
      await guarded.close(500);
    }
  });
});
