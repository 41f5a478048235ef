/**
 * The wires of the cross-binding middleware suite (test/cross-binding/middleware.test.ts): one small real client per
 * binding and transport, each sending the header `x-probe: <wire>` where its transport has headers, and reporting a
 * call's answer or the wire's own native error untranslated (HTTP status with JSON-RPC code, gRPC status, Webtools
 * code), so that the test states what each wire answers rather than what a normaliser made of it.
 */

import { PassThrough } from 'node:stream';
import { Metadata, type ServiceError } from '@grpc/grpc-js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { serveMcpStdio } from '../../src/bindings/mcp/stdio/index.js';
import { serveMcpLiteStdio } from '../../src/bindings/mcp-lite/stdio/index.js';
import type { ToolServer } from '../../src/index.js';
import type { RunningServer } from '../../src/node.js';
import { makeClient, structToJson, toolRequest, unary } from './grpc-client.js';
import { jsonLines } from './json-lines.js';
import { connectWs } from './ws-client.js';

/** A call as a wire answered it: the tool's answer, or the wire's native error. */
export type WireReply = { answer: unknown } | { native: Record<string, unknown> };

/** One open connection (or endpoint) of a wire. */
export interface WireSession {
  /** The names of the listed tools, in listing order. */
  list(): Promise<string[]>;
  call(name: string, args: Record<string, unknown>): Promise<WireReply>;
  close(): void;
}

/** A binding or transport under test. */
export interface Wire {
  /** The wire's name here (sent as `x-probe` where the transport carries headers). */
  name: string;
  /** The `op.caller.binding` (and `ctx.binding`) core must see for it. */
  binding: string;
  /** False for stdio, whose operations carry no headers at all. */
  hasHeaders: boolean;
  open(running: RunningServer, server: ToolServer): Promise<WireSession>;
}

const probe = (wire: string) => ({ 'x-probe': wire });
let nextId = 1;
const rpc = (method: string, params?: unknown) => ({
  jsonrpc: '2.0',
  id: nextId++,
  method,
  ...(params ? { params } : {}),
});

/** A JSON-RPC response of MCP-lite (`result.content` is the answer) or its error, as sent. */
function liteReply(message: any, status?: number): WireReply {
  if (message.error) return { native: { ...(status ? { status } : {}), code: message.error.code } };
  return { answer: message.result.content };
}

/** A JSON-RPC response of MCP (the object answer is `structuredContent`) or its error, as sent. */
function mcpReply(message: any, status?: number): WireReply {
  if (message.error) return { native: { ...(status ? { status } : {}), code: message.error.code } };
  return { answer: message.result.structuredContent };
}

/** MCP-lite HTTP's listing and JSON calls, sending `x-probe: <name>`. */
function liteHttpSession(url: string, name: string): WireSession {
  const headers = { 'content-type': 'application/json', ...probe(name) };
  return {
    async list() {
      const res = await fetch(`${url}/mcp-lite/v1/tools`, { method: 'POST', headers, body: '{}' });
      return ((await res.json()) as { tools: Array<{ name: string }> }).tools.map((t) => t.name);
    },
    async call(name, args) {
      const res = await fetch(`${url}/mcp-lite/v1/rpc`, {
        method: 'POST',
        headers,
        body: JSON.stringify(rpc('tools/call', { name, arguments: args })),
      });
      return liteReply(await res.json(), res.status);
    },
    close() {},
  };
}

const mcpLiteHttp: Wire = {
  name: 'mcp-lite-http',
  binding: 'http',
  hasHeaders: true,
  open: async ({ url }) => liteHttpSession(url, 'mcp-lite-http'),
};

/** MCP-lite HTTP's SSE: a tools/call with `Accept: text/event-stream`, answered by a `done` or `error` event. */
const mcpLiteSse: Wire = {
  ...mcpLiteHttp,
  name: 'mcp-lite-http-sse',
  async open(running) {
    const plain = liteHttpSession(running.url, 'mcp-lite-http-sse');
    const headers = {
      'content-type': 'application/json',
      accept: 'text/event-stream',
      ...probe('mcp-lite-http-sse'),
    };
    return {
      list: plain.list,
      async call(name, args) {
        const res = await fetch(`${running.url}/mcp-lite/v1/rpc`, {
          method: 'POST',
          headers,
          body: JSON.stringify(rpc('tools/call', { name, arguments: args })),
        });
        const text = await res.text();
        if (!res.headers.get('content-type')?.startsWith('text/event-stream')) {
          return liteReply(JSON.parse(text), res.status);
        }
        const events = text
          .split('\n\n')
          .filter((e) => e.startsWith('event:'))
          .map((e) => {
            const [head, data] = e.split('\n');
            return { event: head!.slice('event: '.length), data: JSON.parse(data!.slice('data: '.length)) };
          });
        const last = events.at(-1)!;
        if (last.event === 'error')
          return { native: { status: res.status, event: 'error', code: last.data.code } };
        return { answer: last.data.content };
      },
      close() {},
    };
  },
};

const GRPC_STATUS_NAMES: Record<number, string> = { 5: 'NOT_FOUND', 7: 'PERMISSION_DENIED' };

const grpc: Wire = {
  name: 'grpc',
  binding: 'grpc',
  hasHeaders: true,
  async open({ grpc }) {
    const client = makeClient(grpc!.address, 'full');
    const metadata = () => {
      const md = new Metadata();
      md.set('x-probe', 'grpc');
      return md;
    };
    return {
      async list() {
        const { response } = await unary(client, 'GetTools', {}, { metadata: metadata() });
        return response.tools.map((t: { name: string }) => t.name);
      },
      async call(name, args) {
        const { response, error } = await unary(client, 'CallTool', toolRequest(name, args), {
          metadata: metadata(),
        });
        if (error) {
          const code = (error as ServiceError).code;
          return { native: { status: GRPC_STATUS_NAMES[code] ?? code } };
        }
        return { answer: structToJson(response.result).content };
      },
      close: () => client.close(),
    };
  },
};

const webtools: Wire = {
  name: 'webtools',
  binding: 'webtools',
  hasHeaders: true,
  async open({ url }) {
    const base = `${url}/webtools/mcplite/`;
    const headers = { 'content-type': 'application/json', ...probe('webtools') };
    return {
      async list() {
        const res = await fetch(base, { headers });
        return ((await res.json()) as { actions: Array<{ name: string }> }).actions.map((a) => a.name);
      },
      async call(name, args) {
        const res = await fetch(base, {
          method: 'POST',
          headers,
          body: JSON.stringify({ action: name, request: args }),
        });
        const body = (await res.json()) as { status: string; data?: unknown; error?: { code: string } };
        if (body.status === 'ok') return { answer: body.data };
        return { native: { status: res.status, code: body.error?.code } };
      },
      close() {},
    };
  },
};

/** A JSON-RPC channel (a WebSocket or stdio pipes) as request/response. */
interface Channel {
  request(method: string, params?: unknown): Promise<any>;
  notify(method: string): void;
  close(): void;
}

function wsChannel(url: string, protocol: string, wire: string): Promise<Channel> {
  return connectWs(url, { protocol, headers: probe(wire) }).then((c) => ({
    request: (method, params) => c.request(method, params),
    notify: (method) => c.send({ jsonrpc: '2.0', method }),
    close: () => c.ws.close(),
  }));
}

function stdioChannel(serveOn: (input: PassThrough, output: PassThrough) => { close(): unknown }): Channel {
  const input = new PassThrough();
  const output = new PassThrough();
  const served = serveOn(input, output);
  const lines = jsonLines(output);
  return {
    request(method, params) {
      const message = rpc(method, params);
      input.write(`${JSON.stringify(message)}\n`);
      return lines.next((m) => m.id === message.id);
    },
    notify: (method) => input.write(`${JSON.stringify({ jsonrpc: '2.0', method })}\n`),
    close() {
      input.end();
      served.close();
    },
  };
}

function liteChannelSession(channel: Channel): WireSession {
  return {
    async list() {
      return (await channel.request('tools/list')).result.tools.map((t: { name: string }) => t.name);
    },
    async call(name, args) {
      return liteReply(await channel.request('tools/call', { name, arguments: args }));
    },
    close: () => channel.close(),
  };
}

async function mcpChannelSession(channel: Channel): Promise<WireSession> {
  await channel.request('initialize', {
    protocolVersion: '2025-06-18',
    capabilities: {},
    clientInfo: { name: 'middleware-suite', version: '1.0.0' },
  });
  channel.notify('notifications/initialized');
  return {
    async list() {
      return (await channel.request('tools/list')).result.tools.map((t: { name: string }) => t.name);
    },
    async call(name, args) {
      return mcpReply(await channel.request('tools/call', { name, arguments: args }));
    },
    close: () => channel.close(),
  };
}

const mcpLiteWs: Wire = {
  name: 'mcp-lite-ws',
  binding: 'ws',
  hasHeaders: true,
  async open({ url }) {
    return liteChannelSession(
      await wsChannel(`${url.replace('http', 'ws')}/mcp-lite/v1/ws`, 'mcp-lite', 'mcp-lite-ws'),
    );
  },
};

const mcpLiteStdio: Wire = {
  name: 'mcp-lite-stdio',
  binding: 'stdio',
  hasHeaders: false,
  async open(_running, server) {
    return liteChannelSession(stdioChannel((input, output) => serveMcpLiteStdio(server, { input, output })));
  },
};

const mcpWs: Wire = {
  name: 'mcp-ws',
  binding: 'mcp',
  hasHeaders: true,
  async open({ url }) {
    return mcpChannelSession(await wsChannel(`${url.replace('http', 'ws')}/mcp`, 'mcp', 'mcp-ws'));
  },
};

const mcpStdio: Wire = {
  name: 'mcp-stdio',
  binding: 'mcp',
  hasHeaders: false,
  async open(_running, server) {
    return mcpChannelSession(stdioChannel((input, output) => serveMcpStdio(server, { input, output })));
  },
};

/** The official SDK's client over one of its transports; an error is what the SDK threw (its `code`). */
async function sdkSession(
  transport: StreamableHTTPClientTransport | SSEClientTransport,
): Promise<WireSession> {
  const client = new Client({ name: 'middleware-suite', version: '1.0.0' });
  await client.connect(transport);
  return {
    async list() {
      return (await client.listTools()).tools.map((t) => t.name);
    },
    async call(name, args) {
      try {
        const result = await client.callTool({ name, arguments: args });
        return { answer: result.structuredContent };
      } catch (err) {
        return { native: { code: (err as { code?: unknown }).code } };
      }
    },
    close: () => void client.close(),
  };
}

const mcpStreamableHttp: Wire = {
  name: 'mcp-streamable-http',
  binding: 'mcp',
  hasHeaders: true,
  open: ({ url }) =>
    sdkSession(
      new StreamableHTTPClientTransport(new URL(`${url}/mcp`), {
        requestInit: { headers: probe('mcp-streamable-http') },
      }),
    ),
};

const mcpLegacySse: Wire = {
  name: 'mcp-legacy-sse',
  binding: 'mcp',
  hasHeaders: true,
  open: ({ url }) =>
    sdkSession(
      new SSEClientTransport(new URL(`${url}/sse`), {
        // The stream's GET (whose headers the session's operations carry) and every POST send the probe.
        eventSourceInit: {
          fetch: (input, init) =>
            fetch(input, { ...init, headers: { ...init?.headers, ...probe('mcp-legacy-sse') } }),
        },
        requestInit: { headers: probe('mcp-legacy-sse') },
      }),
    ),
};

/** The draft-seed dialect over Streamable HTTP: a draft `initialize` makes a draft session; `tools/invoke` calls. */
const draft: Wire = {
  name: 'draft',
  binding: 'draft',
  hasHeaders: true,
  async open({ url }) {
    const post = (body: unknown, session?: string) =>
      fetch(`${url}/mcp`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...probe('draft'),
          ...(session ? { 'mcp-session-id': session } : {}),
        },
        body: JSON.stringify(body),
      });
    const init = await post(
      rpc('initialize', { mcpVersion: '2025-06-18', clientCapabilities: { supportsProgress: false } }),
    );
    const session = init.headers.get('mcp-session-id')!;
    await init.text();
    await (await post({ jsonrpc: '2.0', method: 'initialized', params: {} }, session)).text();
    return {
      async list() {
        const res = await post(rpc('tools/list'), session);
        // The draft's listing is the array itself (section 4.1).
        return ((await res.json()) as any).result.map((t: { name: string }) => t.name);
      },
      async call(name, args) {
        const res = await post(rpc('tools/invoke', { name, arguments: args }), session);
        const message = (await res.json()) as any;
        if (message.error) return { native: { status: res.status, code: message.error.code } };
        // The draft's result (section 5.1): `{ status: 'success', output }`.
        return { answer: message.result.output };
      },
      close() {},
    };
  },
};

/** Every binding and transport: MCP-lite HTTP and its SSE, gRPC, Webtools, MCP-lite over WebSocket and stdio, MCP
 * over Streamable HTTP, WebSocket, stdio and legacy SSE, and the draft dialect. */
export const WIRES: Wire[] = [
  mcpLiteHttp,
  mcpLiteSse,
  grpc,
  webtools,
  mcpLiteWs,
  mcpLiteStdio,
  mcpStreamableHttp,
  mcpWs,
  mcpStdio,
  mcpLegacySse,
  draft,
];
