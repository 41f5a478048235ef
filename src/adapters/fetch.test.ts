import type { AddressInfo } from 'node:net';
import { serve as serveHono } from '@hono/node-server';
import { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  callMessage,
  expectStillServing,
  type JsonRpcResponse,
  postJson,
  postSse,
  rawPost,
  rawRequest,
  readSse,
  waitFor,
} from '../../test/support/http-harness.js';
import { createMcpLiteHttpBinding } from '../bindings/mcp-lite/http/index.js';
import { createServer, defineTool } from '../index.js';
import { toFetchHandler } from './fetch.js';

const LIMIT = 2048;
const probe = { aborted: false };

const tools = [
  defineTool({
    name: 'echo',
    description: 'Echoes its text',
    inputSchema: { type: 'object', required: ['text'], properties: { text: { type: 'string' } } },
    handler: ({ text }: { text: string }) => ({ text }),
  }),
  defineTool({
    name: 'story',
    description: 'Streams three parts',
    handler: async function* () {
      yield 'once';
      yield 'upon';
      yield 'a time';
      return 'the end';
    },
  }),
  defineTool({
    name: 'wait_abort',
    description: 'Streams once, then waits until aborted',
    handler: async (_args, ctx) => {
      ctx.signal.addEventListener('abort', () => {
        probe.aborted = true;
      });
      await ctx.partial('started');
      await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve));
      return 'never';
    },
  }),
];

const server = createServer({ tools });
const handler = toFetchHandler(createMcpLiteHttpBinding(server, { maxBodyBytes: LIMIT, heartbeatMs: 1000 }));
let httpServer: ReturnType<typeof serveHono>;
let origin: string;
let port: number;
let rpcUrl: string;

beforeAll(async () => {
  const app = new Hono();
  app.get('/health', (c) => c.text('ok'));
  app.all('/mcp-lite/v1/*', (c) => handler(c.req.raw));
  await new Promise<void>((resolve) => {
    httpServer = serveHono({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve());
  });
  port = (httpServer.address() as AddressInfo).port;
  origin = `http://127.0.0.1:${port}`;
  rpcUrl = `${origin}/mcp-lite/v1/rpc`;
});
afterAll(async () => {
  await new Promise((resolve) => httpServer.close(resolve));
  await server.close();
});

describe('the fetch adapter under Hono', () => {
  it('lists the tools', async () => {
    const res = await postJson(`${origin}/mcp-lite/v1/listtools`, {});
    expect(res.status).toBe(200);
    const body = (await res.json()) as { tools: Array<{ name: string }> };
    // No tool here can return a promise, so no redeem or cancel (issue 22, item 10).
    expect(body.tools.map((t) => t.name)).toEqual(['echo', 'story', 'wait_abort']);
  });

  it('calls a tool', async () => {
    const res = await postJson(rpcUrl, callMessage('echo', { text: 'via hono' }));
    expect(res.status).toBe(200);
    const body = (await res.json()) as JsonRpcResponse;
    expect(body.result.content).toEqual({ text: 'via hono' });
    expect(body.result._meta.response_type).toBe('answer');
  });

  it('answers a batch and a notification like the node adapter', async () => {
    const batch = await postJson(rpcUrl, [
      callMessage('echo', { text: 'a' }),
      { jsonrpc: '2.0', method: 'tools/list' },
    ]);
    expect(((await batch.json()) as JsonRpcResponse[]).length).toBe(1);
    const note = await postJson(rpcUrl, { jsonrpc: '2.0', method: 'tools/list' });
    expect(note.status).toBe(202);
    expect(await note.text()).toBe('');
  });

  it('streams partials and done over SSE', async () => {
    const res = await postSse(rpcUrl, callMessage('story', {}));
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    const events = (await readSse(res)).filter((e) => e.event !== 'heartbeat');
    expect(events.map((e) => e.event)).toEqual(['message', 'message', 'message', 'done']);
    expect(events.map((e) => e.data.partial ?? e.data.content)).toEqual([
      'once',
      'upon',
      'a time',
      'the end',
    ]);
    expect(events[3]!.data._meta.response_type).toBe('answer');
  });

  it('aborts the handler when the SSE client hangs up', async () => {
    probe.aborted = false;
    const res = await postSse(rpcUrl, callMessage('wait_abort', {}));
    const reader = res.body!.getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toContain('started');
    await reader.cancel();
    await waitFor(() => probe.aborted, 5000, 'the handler to be aborted');
    await expectStillServing(rpcUrl);
  });

  it('aborts the handler when the response body is cancelled, even if the runtime never aborts request.signal', async () => {
    probe.aborted = false;
    const request = new Request('http://127.0.0.1/mcp-lite/v1/rpc', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify(callMessage('wait_abort', {})),
    });
    const res = await handler(request);
    const reader = res.body!.getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toContain('started');
    await reader.cancel();
    await waitFor(() => probe.aborted, 5000, 'the handler to be aborted');
    expect(request.signal.aborted).toBe(false);
  });

  it('refuses an oversized body with 413', async () => {
    const res = await postJson(rpcUrl, callMessage('echo', { text: 'x'.repeat(LIMIT * 2) }));
    expect(res.status).toBe(413);
    expect(((await res.json()) as JsonRpcResponse).error!.code).toBe(-32600);
  });

  it('refuses a declared huge Content-Length with 413 without waiting for the body', async () => {
    const res = await rawRequest(
      port,
      rawPost(
        '/mcp-lite/v1/rpc',
        port,
        { 'content-type': 'application/json', 'content-length': 1024 ** 3 },
        '{',
      ),
    );
    expect(res.status).toBe(413);
  });

  it('refuses a streamed body that grows past the limit with 413', async () => {
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        // A little over the limit, in pieces, with no Content-Length (chunked).
        if (sent > LIMIT * 4) return controller.close();
        sent += 512;
        controller.enqueue(new Uint8Array(512).fill(32));
      },
    });
    const res = await fetch(rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
      duplex: 'half',
    } as RequestInit);
    expect(res.status).toBe(413);
  });

  it('answers 405 for GET', async () => {
    const res = await fetch(rpcUrl);
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('POST');
  });

  it('answers 404 for an unknown endpoint under the base path', async () => {
    const res = await postJson(`${origin}/mcp-lite/v1/unknown`, {});
    expect(res.status).toBe(404);
    expect(((await res.json()) as JsonRpcResponse).error!.code).toBe(-32601);
  });

  it('leaves other paths to the app (Hono answers 404, its own routes still work)', async () => {
    expect((await postJson(`${origin}/elsewhere`, {})).status).toBe(404);
    expect(await (await fetch(`${origin}/health`)).text()).toBe('ok');
  });

  it('answers a JSON 404 itself for paths outside the binding when mounted alone', async () => {
    const res = await handler(new Request('http://x/elsewhere', { method: 'POST', body: '{}' }));
    expect(res.status).toBe(404);
    expect(((await res.json()) as JsonRpcResponse).error!.code).toBe(-32601);
  });
});
