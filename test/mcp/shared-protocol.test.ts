/**
 * One MCP protocol object per server (`bindings/mcp/protocol.ts`): every MCP transport of a server takes the same
 * engine, tasks and session store. A task made over Streamable HTTP is resumed with `tasks/update` over WebSocket,
 * legacy SSE, stdio and the in-memory link (before, each had its own task registry and answered "cannot be resumed
 * here"); a request running on one Streamable HTTP binding is cancelled through another binding of the same server
 * (before, two bindings had two session stores and two flight maps).
 */
import { PassThrough } from 'node:stream';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { afterEach, describe, expect, it } from 'vitest';
import { listenNode, type NodeListening } from '../../src/adapters/node.js';
import { composeHandlers } from '../../src/bindings/common/compose.js';
import { createMcpBinding } from '../../src/bindings/mcp/index.js';
import { serveMcpStdio } from '../../src/bindings/mcp/stdio/index.js';
import { connect } from '../../src/client/index.js';
import { createServer, defineTool, elicit, type ToolHandler } from '../../src/index.js';
import { type RunningServer, serve } from '../../src/node.js';
import { connectWs } from '../support/ws-client.js';

const STATELESS_META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {
    elicitation: {},
    extensions: { 'io.modelcontextprotocol/tasks': {} },
  },
};

const askName: ToolHandler = (_a, ctx) =>
  ctx.elicitation
    ? `Hello, ${(ctx.elicitation.answers as { name?: string }).name}!`
    : elicit({
        message: 'What is your name?',
        schema: { type: 'object', required: ['name'], properties: { name: { type: 'string' } } },
      });

/** Resolves when the slow tool has started, and with the reason it was aborted. */
let started: () => void = () => {};
let aborted: (reason: unknown) => void = () => {};

function makeServer() {
  return createServer({
    mcpInlineWaitMs: 0,
    tools: [
      defineTool({ name: 'ask_task', longRunning: { estimatedMs: 50 }, handler: askName }),
      {
        name: 'slow',
        handler: (_a, ctx) =>
          new Promise((_resolve, reject) => {
            ctx.signal.addEventListener('abort', () => {
              aborted(ctx.signal.reason);
              reject(ctx.signal.reason);
            });
            started();
          }),
      },
    ],
  });
}

let nextId = 1;
const statelessMessage = (method: string, params: Record<string, unknown>) => ({
  jsonrpc: '2.0',
  id: nextId++,
  method,
  params: { ...params, _meta: STATELESS_META },
});

async function postStateless(base: string, method: string, params: Record<string, unknown>): Promise<any> {
  const name = method.startsWith('tasks/') ? params.taskId : params.name;
  const res = await fetch(`${base}/mcp`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': method,
      ...(typeof name === 'string' ? { 'mcp-name': name } : {}),
    },
    body: JSON.stringify(statelessMessage(method, params)),
  });
  return res.json();
}

/** Makes a task over Streamable HTTP and waits (bounded polling) until it asks for input; its id and request key. */
async function taskAskingForInput(base: string): Promise<{ taskId: string; key: string }> {
  const created = (await postStateless(base, 'tools/call', { name: 'ask_task', arguments: {} })).result;
  expect(created.resultType).toBe('task');
  for (let i = 0; i < 150; i++) {
    const task = (await postStateless(base, 'tasks/get', { taskId: created.taskId })).result;
    if (task?.status === 'input_required')
      return { taskId: created.taskId, key: Object.keys(task.inputRequests)[0]! };
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error('the task never asked for input');
}

async function completedOver(base: string, taskId: string): Promise<any> {
  for (let i = 0; i < 150; i++) {
    const task = (await postStateless(base, 'tasks/get', { taskId })).result;
    if (task?.status === 'completed') return task;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error('the task never completed');
}

const update = (taskId: string, key: string) => ({
  taskId,
  inputResponses: { [key]: { action: 'accept', content: { name: 'Ada' } } },
});

let running: RunningServer | undefined;
let listening: NodeListening | undefined;

afterEach(async () => {
  await running?.close();
  await listening?.close();
  running = undefined;
  listening = undefined;
});

describe('one MCP protocol object per server', () => {
  it('resumes over WebSocket, legacy SSE, stdio and in memory a task made over Streamable HTTP', async () => {
    const server = makeServer();
    running = await serve(server, { port: 0, grpc: false });
    const base = running.url;

    // WebSocket at /mcp.
    const ws = await connectWs(`${base.replace('http', 'ws')}/mcp`, { protocol: 'mcp' });
    try {
      const t = await taskAskingForInput(base);
      const ack = await ws.request('tasks/update', { ...update(t.taskId, t.key), _meta: STATELESS_META });
      expect(ack.error).toBeUndefined();
      expect((await completedOver(base, t.taskId)).result.content[0].text).toBe('Hello, Ada!');
    } finally {
      ws.ws.close();
    }

    // Legacy HTTP+SSE, through the official SDK's client.
    const sse = new Client({ name: 'shared-protocol', version: '1.0.0' });
    await sse.connect(new SSEClientTransport(new URL(`${base}/sse`)));
    try {
      const t = await taskAskingForInput(base);
      const { z } = await import('zod');
      const ack = await sse.request(
        { method: 'tasks/update', params: { ...update(t.taskId, t.key), _meta: STATELESS_META } },
        z.object({}).passthrough(),
      );
      expect(ack).toBeDefined();
      expect((await completedOver(base, t.taskId)).result.content[0].text).toBe('Hello, Ada!');
    } finally {
      await sse.close();
    }

    // stdio, in this process, over a pair of streams.
    const input = new PassThrough();
    const output = new PassThrough();
    const stdio = serveMcpStdio(server, { input, output });
    try {
      const t = await taskAskingForInput(base);
      const line = new Promise<any>((resolve) => {
        let text = '';
        output.on('data', (chunk: Buffer) => {
          text += chunk.toString();
          const end = text.indexOf('\n');
          if (end >= 0) resolve(JSON.parse(text.slice(0, end)));
        });
      });
      input.write(`${JSON.stringify(statelessMessage('tasks/update', update(t.taskId, t.key)))}\n`);
      expect((await line).error).toBeUndefined();
      expect((await completedOver(base, t.taskId)).result.content[0].text).toBe('Hello, Ada!');
    } finally {
      input.end();
      await stdio.closed;
    }

    // The in-memory link (`connect(server)`) answers with the same engine as the sockets.
    const inMemory = await connect(server);
    try {
      expect((await inMemory.listTools()).map((t) => t.name)).toEqual(
        expect.arrayContaining(['ask_task', 'slow']),
      );
    } finally {
      await inMemory.close();
    }
  });

  it('cancels through one Streamable HTTP binding a call running on another of the same server', async () => {
    const server = makeServer();
    const a = createMcpBinding(server, { path: '/a' });
    const b = createMcpBinding(server, { path: '/b' });
    listening = await listenNode(composeHandlers(a, b), { port: 0 });
    const base = listening.url;
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const init = await fetch(`${base}/a`, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
      }),
    });
    const session = init.headers.get('mcp-session-id')!;
    expect(session).toBeTruthy();
    const inSession = { ...headers, 'mcp-session-id': session, 'mcp-protocol-version': '2025-06-18' };
    await fetch(`${base}/a`, {
      method: 'POST',
      headers: inSession,
      body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
    });
    const running = new Promise<void>((r) => {
      started = r;
    });
    const reason = new Promise<unknown>((r) => {
      aborted = r;
    });
    const call = fetch(`${base}/a`, {
      method: 'POST',
      headers: inSession,
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 7,
        method: 'tools/call',
        params: { name: 'slow', arguments: {} },
      }),
    });
    await running;
    const cancel = await fetch(`${base}/b`, {
      method: 'POST',
      headers: inSession,
      body: JSON.stringify({
        jsonrpc: '2.0',
        method: 'notifications/cancelled',
        params: { requestId: 7, reason: 'changed my mind' },
      }),
    });
    expect(cancel.status).toBe(202);
    expect(String(await reason)).toContain('changed my mind');
    await (await call).text();
    a.close();
    b.close();
  });
});
