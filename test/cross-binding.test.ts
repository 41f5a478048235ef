/**
 * One table of cases, run over every binding, asserting that they agree (docs/architecture.md, "The outcome
 * model": the outcome model is the same on every wire). Each binding contributes one adapter that speaks its wire
 * with a real client and normalises the replies into a common shape (Webtools, which has no `_meta`, reads the
 * time from `Date`): MCP-lite over HTTP, gRPC, WebSocket and stdio, Webtools, and full MCP over WebSocket and over
 * the legacy HTTP+SSE transport and Streamable HTTP (`/mcp`) with the official SDK's clients. A
 * binding joins by adding its adapter to ADAPTERS. Each case states the expected transcript, so the bindings
 * cannot agree on something wrong.
 */
import { PassThrough } from 'node:stream';
import { Metadata, type ServiceError, status } from '@grpc/grpc-js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { WebSocketClientTransport } from '@modelcontextprotocol/sdk/client/websocket.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { createParser } from 'eventsource-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { serveMcpLiteStdio } from '../src/bindings/http/stdio.js';
import { bearerAuth } from '../src/core/auth.js';
import {
  createServer,
  elicit,
  failure,
  McpLiteError,
  needMoreResource,
  type RunningServer,
  serve,
  type ToolDefinition,
  type ToolServer,
} from '../src/index.js';
import {
  errorDetails,
  jsonToStruct,
  type McpLiteClient,
  makeClient,
  readStream,
  structToJson,
  toolRequest,
  unary,
} from './support/grpc-client.js';
import { connectWs, RefusedUpgrade } from './support/ws-client.js';

// ---- the common shape ----

/** The protocol-error classes every binding can express. */
type ErrorClass =
  | 'invalid_params'
  | 'tool_not_found'
  | 'promise_not_found'
  | 'internal'
  | 'deadline_exceeded'
  | 'unauthenticated'
  | 'cancelled'
  | 'other';

/** One reply, normalised: an outcome with its result fields, or a protocol error with its useful detail. */
type Reply =
  | {
      kind: 'result';
      response_type: string;
      /** The result fields (content, failure, elicitation, resource_request), volatile values masked. */
      fields: Record<string, unknown>;
      /** Which meta fields are present (their values are per call). */
      meta: {
        promise_token: boolean;
        estimated_completion: boolean;
        timestamp: boolean;
        server_version?: string;
      };
    }
  | { kind: 'error'; class: ErrorClass; detail: Record<string, unknown> };

/** A streamed call, normalised: the partials, then the final reply. */
interface StreamReply {
  partials: unknown[];
  final: Reply;
}

/** A tool as listed, normalised. */
interface ListedTool {
  name: string;
  type: string;
  description: string;
  inputSchema: unknown;
}

/** A call's normalised reply, plus the per-call values a follow-up call needs (masked in the reply). */
interface Called {
  reply: Reply;
  token?: string;
  state?: string;
}

/** What a case can do through a binding. */
interface Session {
  listTools(): Promise<ListedTool[]>;
  call(
    name: string,
    args?: Record<string, unknown>,
    elicitation?: { state: unknown; answers: unknown },
  ): Promise<Called>;
  stream(name: string, args?: Record<string, unknown>): Promise<StreamReply>;
  close(): void;
}

/** Where a binding's server listens, and the bearer token to send (if any). */
interface Endpoint {
  running: RunningServer;
  /** The tool server itself, for the transports that are not a listener (stdio). */
  server: ToolServer;
  token?: string;
}

/** A binding under test: opens a session with its own real client. */
interface BindingAdapter {
  name: string;
  /** Fixtures this binding cannot express (said why where it is declared). */
  skips?: FixtureName[];
  open(endpoint: Endpoint): Session;
}

/** Masks what differs per call (signed states, promise tokens) so transcripts compare. */
function mask(fields: Record<string, unknown>): Record<string, unknown> {
  const e = fields.elicitation as Record<string, unknown> | undefined;
  if (e && typeof e.state === 'string') return { ...fields, elicitation: { ...e, state: '<state>' } };
  return fields;
}

/** The detail worth comparing for each class (messages differ by design: gRPC names the tool in it). */
function errorDetail(cls: ErrorClass, data: Record<string, unknown>): Record<string, unknown> {
  if (cls === 'tool_not_found') {
    return {
      requested_tool: data.requested_tool,
      available_tools: data.available_tools,
      suggestion: data.suggestion,
    };
  }
  if (cls === 'invalid_params' && Array.isArray(data.errors)) {
    // Field names as a person reads them (core may quote them in its messages).
    return { fields: data.errors.map((e: { field: string }) => String(e.field)) };
  }
  return {};
}

// ---- MCP-lite JSON-RPC replies, as every JSON-RPC framing of MCP-lite carries them ----

/** A JSON-RPC result of MCP-lite (HTTP, WebSocket, stdio), normalised. */
function fromResult(result: Record<string, any>): Reply {
  const { _meta: meta, ...fields } = result;
  return {
    kind: 'result',
    response_type: meta?.response_type ?? 'answer',
    fields: mask(fields),
    meta: {
      promise_token: typeof meta?.promise_token === 'string',
      estimated_completion: typeof meta?.estimated_completion === 'string',
      timestamp: typeof meta?.timestamp === 'string' && !Number.isNaN(Date.parse(meta.timestamp)),
      ...(meta?.server_version !== undefined ? { server_version: meta.server_version } : {}),
    },
  };
}

/** A JSON-RPC error of MCP-lite, normalised. */
function fromError(error: { code: number; data?: any }): Reply {
  const data = error.data ?? {};
  let cls: ErrorClass;
  switch (error.code) {
    case -32601:
      cls = data.requested_tool !== undefined ? 'tool_not_found' : 'other';
      break;
    case -32602:
      cls = data.reason === 'unknown' ? 'promise_not_found' : 'invalid_params';
      break;
    case -32603:
      cls = 'internal';
      break;
    case -32001:
      cls = 'deadline_exceeded';
      break;
    case -32002:
      cls = 'unauthenticated';
      break;
    case -32800:
      cls = 'cancelled';
      break;
    default:
      cls = 'other';
  }
  return { kind: 'error', class: cls, detail: errorDetail(cls, data) };
}

// ---- adapter: MCP-lite HTTP (fetch, JSON-RPC, SSE) ----

let nextId = 1;

const httpAdapter: BindingAdapter = {
  name: 'mcp-lite-http',
  open({ running, token }) {
    const base = `${running.url}/mcp-lite/v1/`;
    const headers = (accept?: string): Record<string, string> => ({
      'content-type': 'application/json',
      ...(accept ? { accept } : {}),
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    });
    const callBody = (name: string, args?: Record<string, unknown>, elicitation?: unknown) =>
      JSON.stringify({
        jsonrpc: '2.0',
        id: nextId++,
        method: 'tools/call',
        params: { name, ...(args ? { arguments: args } : {}), ...(elicitation ? { elicitation } : {}) },
      });

    return {
      async listTools() {
        const res = await fetch(`${base}tools`, { method: 'POST', headers: headers(), body: '{}' });
        const body = (await res.json()) as { tools: any[] };
        return body.tools.map((t) => ({
          name: t.name,
          type: t['@type'] ?? '',
          description: t.description,
          inputSchema: t.inputSchema,
        }));
      },
      async call(name, args, elicitation) {
        const res = await fetch(`${base}rpc`, {
          method: 'POST',
          headers: headers(),
          body: callBody(name, args, elicitation),
        });
        if (res.status === 401) return { reply: { kind: 'error', class: 'unauthenticated', detail: {} } };
        const body = (await res.json()) as { result?: any; error?: any };
        if (body.error) return { reply: fromError(body.error) };
        return {
          reply: fromResult(body.result),
          token: body.result._meta?.promise_token,
          state: body.result.elicitation?.state,
        };
      },
      async stream(name, args) {
        const res = await fetch(`${base}rpc`, {
          method: 'POST',
          headers: headers('text/event-stream'),
          body: callBody(name, args),
        });
        if (res.status === 401)
          return { partials: [], final: { kind: 'error', class: 'unauthenticated', detail: {} } };
        expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
        const partials: unknown[] = [];
        let final: Reply | undefined;
        const parser = createParser({
          onEvent: (e) => {
            const data = JSON.parse(e.data);
            if (e.event === 'message') partials.push(data.partial);
            else if (e.event === 'done') final = fromResult(data);
            else if (e.event === 'error') final = fromError(data);
          },
        });
        const decoder = new TextDecoder();
        for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
          parser.feed(decoder.decode(chunk, { stream: true }));
        }
        if (!final) throw new Error('the SSE stream ended without done or error');
        return { partials, final };
      },
      close() {},
    };
  },
};

// ---- adapter: MCP-lite gRPC (a client built from proto/mcplite.proto at run time) ----

const GRPC_CLASS: Partial<Record<number, ErrorClass>> = {
  [status.INVALID_ARGUMENT]: 'invalid_params',
  [status.INTERNAL]: 'internal',
  [status.DEADLINE_EXCEEDED]: 'deadline_exceeded',
  [status.UNAUTHENTICATED]: 'unauthenticated',
  [status.CANCELLED]: 'cancelled',
};

const grpcAdapter: BindingAdapter = {
  name: 'mcp-lite-grpc',
  open({ running, token }) {
    const client: McpLiteClient = makeClient(running.grpc!.address, 'full');
    const metadata = () => {
      const md = new Metadata();
      if (token) md.set('authorization', `Bearer ${token}`);
      return md;
    };
    const fromResponse = (response: any): Reply => ({
      kind: 'result',
      response_type: String(response.meta.response_type).toLowerCase().replace(/_/g, '-'),
      fields: mask(structToJson(response.result)),
      meta: {
        promise_token: response.meta.promise_token !== '',
        estimated_completion: response.meta.estimated_completion !== '0',
        timestamp: Number(response.meta.timestamp) > 0,
        ...(response.meta.server_version !== '' ? { server_version: response.meta.server_version } : {}),
      },
    });
    const fromError = (error: ServiceError): Reply => {
      const info = errorDetails(error)?.errorInfo;
      const data: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(info?.metadata ?? {})) {
        try {
          data[k] = k === 'errors' || k === 'available_tools' ? JSON.parse(v) : v;
        } catch {
          data[k] = v;
        }
      }
      let cls: ErrorClass = GRPC_CLASS[error.code] ?? 'other';
      if (error.code === status.NOT_FOUND) {
        cls = info?.reason === 'PROMISE_NOT_FOUND' ? 'promise_not_found' : 'tool_not_found';
      }
      return { kind: 'error', class: cls, detail: errorDetail(cls, data) };
    };
    return {
      async listTools() {
        const { response } = await unary(client, 'GetTools', {}, { metadata: metadata() });
        return response.tools.map((t: any) => ({
          name: t.name,
          type: t.type,
          description: t.description,
          inputSchema: structToJson(t.input_schema),
        }));
      },
      async call(name, args, elicitation) {
        const extra = elicitation
          ? {
              elicitation: {
                state: elicitation.state,
                answers: jsonToStruct(elicitation.answers as Record<string, unknown>),
              },
            }
          : {};
        const { response, error } = await unary(client, 'CallTool', toolRequest(name, args, extra), {
          metadata: metadata(),
        });
        if (error) return { reply: fromError(error) };
        const fields = structToJson(response.result) as { elicitation?: { state?: string } };
        return {
          reply: fromResponse(response),
          token: response.meta.promise_token || undefined,
          state: fields.elicitation?.state,
        };
      },
      async stream(name, args) {
        const { messages, error } = await readStream(client, toolRequest(name, args), {
          metadata: metadata(),
        });
        const partials = messages.filter((m) => m.partial).map((m) => structToJson(m.result).partial);
        const finals = messages.filter((m) => !m.partial);
        if (error) return { partials, final: fromError(error) };
        expect(finals).toHaveLength(1);
        expect(messages.at(-1).partial).toBe(false);
        return { partials, final: fromResponse(finals[0]) };
      },
      close() {
        client.close();
      },
    };
  },
};

// ---- adapters: MCP-lite over WebSocket and over stdio (one JSON-RPC channel each, many messages) ----

/** A connection that carries MCP-lite JSON-RPC messages both ways, as WebSocket and stdio both do. */
interface MessageChannel {
  send(message: unknown): void;
  /** Resolves with the first message (not yet taken) that satisfies `match`. */
  next(match: (m: any) => boolean): Promise<any>;
  /** Every message received so far and not taken. */
  received: any[];
  close(): void;
}

/** A session over a channel; `opened` rejects with the reply for a connection the server refused. */
function channelSession(opened: Promise<MessageChannel>): Session {
  const request = async (method: string, params: Record<string, unknown>) => {
    const channel = await opened;
    const id = nextId++;
    channel.send({ jsonrpc: '2.0', id, method, params });
    return { channel, id, message: await channel.next((m) => m.id === id) };
  };
  const refused = (err: unknown): Reply => {
    if (err instanceof RefusedUpgrade && err.status === 401) {
      return { kind: 'error', class: 'unauthenticated', detail: {} };
    }
    throw err;
  };
  const callParams = (name: string, args?: Record<string, unknown>, elicitation?: unknown) => ({
    name,
    ...(args ? { arguments: args } : {}),
    ...(elicitation ? { elicitation } : {}),
  });
  void opened.catch(() => {});
  return {
    async listTools() {
      const { message } = await request('tools/list', {});
      return message.result.tools.map((t: any) => ({
        name: t.name,
        type: t['@type'] ?? '',
        description: t.description,
        inputSchema: t.inputSchema,
      }));
    },
    async call(name, args, elicitation) {
      try {
        const { message } = await request('tools/call', callParams(name, args, elicitation));
        if (message.error) return { reply: fromError(message.error) };
        return {
          reply: fromResult(message.result),
          token: message.result._meta?.promise_token,
          state: message.result.elicitation?.state,
        };
      } catch (err) {
        return { reply: refused(err) };
      }
    },
    async stream(name, args) {
      try {
        const { channel, id, message } = await request('tools/call', {
          ...callParams(name, args),
          stream: true,
        });
        const partials: unknown[] = [];
        for (let i = 0; i < channel.received.length; i++) {
          const m = channel.received[i];
          if (m.method === 'notifications/partial' && m.params.id === id) {
            partials.push(m.params.partial);
            channel.received.splice(i--, 1);
          }
        }
        return { partials, final: message.error ? fromError(message.error) : fromResult(message.result) };
      } catch (err) {
        return { partials: [], final: refused(err) };
      }
    },
    close() {
      void opened.then(
        (c) => c.close(),
        () => {},
      );
    },
  };
}

const wsAdapter: BindingAdapter = {
  name: 'mcp-lite-ws',
  open({ running, token }) {
    const url = `${running.url.replace('http', 'ws')}/mcp-lite/v1/ws`;
    const opened = connectWs(url, token ? { headers: { authorization: `Bearer ${token}` } } : {});
    return channelSession(
      opened.then((c) => ({ send: c.send, next: c.next, received: c.received, close: () => c.ws.close() })),
    );
  },
};

const stdioAdapter: BindingAdapter = {
  name: 'mcp-lite-stdio',
  // stdio has no bearer token: whoever holds the pipe is the caller, so the unauthenticated case is not its.
  skips: ['guarded'],
  open({ server }) {
    const input = new PassThrough();
    const output = new PassThrough();
    const stdio = serveMcpLiteStdio(server, { input, output });
    const received: any[] = [];
    const waiters: Array<() => void> = [];
    let buffered = '';
    output.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      for (let i = buffered.indexOf('\n'); i >= 0; i = buffered.indexOf('\n')) {
        received.push(JSON.parse(buffered.slice(0, i)));
        buffered = buffered.slice(i + 1);
        for (const w of waiters.splice(0)) w();
      }
    });
    const next = async (match: (m: any) => boolean) => {
      for (;;) {
        const i = received.findIndex(match);
        if (i >= 0) return received.splice(i, 1)[0];
        await new Promise<void>((r) => waiters.push(r));
      }
    };
    return channelSession(
      Promise.resolve({
        send: (m: unknown) => input.write(`${JSON.stringify(m)}\n`),
        next,
        received,
        close: () => {
          input.end();
          stdio.close();
        },
      }),
    );
  },
};

// ---- adapters: MCP over WebSocket, legacy HTTP+SSE and Streamable HTTP, with the official SDK's clients ----
//
// Every case applies to MCP. Its CallToolResult carries the outcome in mcplite's `_meta` extensions
// (docs/mcp.md): `mcplite/promise`, `mcplite/elicitation`, `mcplite/failure`, `mcplite/resource-request`; an
// answer is `structuredContent` (a value that is not an object under `{ result }`). The SDK client declares no
// elicitation capability, so an elicitation comes back as a result and is answered by calling again with
// `params.elicitation`, as on MCP-lite (the `elicitation/create` round trip is tested in test/mcp-ws.test.ts and
// test/legacy-sse.test.ts). Partials are `notifications/progress` messages (text; JSON for a value that is not a
// string). What MCP's result lacks is filled as the Webtools adapter fills it: the server version is the one
// `initialize` gave, and the result's arrival stands in for the response time MCP does not send.

/**
 * The SDK's WebSocketClientTransport uses the global WebSocket, which Node 20 lacks: it gets the `ws` package's,
 * dispatching each message in a task of its own as browsers do (test/mcp-ws.test.ts says why). The browser API
 * sends no headers, so the bearer token of the socket being opened is handed to it through `wsHeaders`.
 */
let wsHeaders: Record<string, string> = {};
class BrowserLikeWebSocket extends WebSocket {
  constructor(url: string | URL, protocols?: string | string[]) {
    super(url, protocols, { allowSynchronousEvents: false, headers: wsHeaders });
  }
}
(globalThis as { WebSocket?: unknown }).WebSocket = BrowserLikeWebSocket;

/** The SDK's WebSocket transport, with the bearer token on its upgrade request (the socket is made in `start`). */
class BearerWebSocketTransport extends WebSocketClientTransport {
  constructor(
    url: URL,
    private readonly token: string | undefined,
  ) {
    super(url);
  }
  override start(): Promise<void> {
    wsHeaders = this.token ? { authorization: `Bearer ${this.token}` } : {};
    try {
      return super.start();
    } finally {
      wsHeaders = {};
    }
  }
}

/** An MCP JSON-RPC error (thrown by the SDK client), normalised as MCP's tables code it (docs/architecture.md). */
function fromMcpError(err: unknown): Reply {
  if (!(err instanceof McpError)) throw err;
  const data = (err.data ?? {}) as Record<string, any>;
  let cls: ErrorClass;
  switch (err.code) {
    case -32602:
      // MCP answers an unknown tool and an unknown promise as invalid params; the data tells them apart.
      cls =
        data.requested_tool !== undefined
          ? 'tool_not_found'
          : data.reason === 'unknown'
            ? 'promise_not_found'
            : 'invalid_params';
      break;
    case -32603:
      cls = 'internal';
      break;
    case -32001:
      cls = 'deadline_exceeded';
      break;
    case -32002:
      cls = 'unauthenticated';
      break;
    case -32800:
      cls = 'cancelled';
      break;
    default:
      cls = 'other';
  }
  return { kind: 'error', class: cls, detail: errorDetail(cls, data) };
}

/** A connection the server refused (401 on the upgrade or on the SSE stream), normalised. */
function refusedConnection(err: unknown): Reply {
  const code = (err as { code?: unknown }).code;
  if (code === 401 || /\b401\b/.test(String((err as Error | undefined)?.message))) {
    return { kind: 'error', class: 'unauthenticated', detail: {} };
  }
  throw err;
}

/** An MCP CallToolResult, normalised (see above). */
function fromCallToolResult(result: Record<string, any>, serverVersion: string | undefined): Called {
  const ext = (result._meta ?? {}) as Record<string, any>;
  const text = ((result.content ?? []) as Array<{ type: string; text?: string }>)
    .filter((b) => b.type === 'text')
    .map((b) => b.text)
    .join('\n');
  const meta = {
    promise_token: false,
    estimated_completion: false,
    timestamp: true,
    ...(serverVersion !== undefined ? { server_version: serverVersion } : {}),
  };
  const promise = ext['mcplite/promise'];
  if (promise) {
    expect(promise.status).toBe('pending');
    expect(Date.parse(promise.estimated_completion)).not.toBeNaN();
    return {
      reply: {
        kind: 'result',
        response_type: 'promise',
        fields: {},
        meta: {
          ...meta,
          promise_token: typeof promise.promise_token === 'string',
          estimated_completion: typeof promise.estimated_completion === 'string',
        },
      },
      token: promise.promise_token,
    };
  }
  const elicitation = ext['mcplite/elicitation'];
  if (elicitation) {
    return {
      reply: { kind: 'result', response_type: 'elicitation', fields: mask({ elicitation }), meta },
      state: elicitation.state,
    };
  }
  const resourceRequest = ext['mcplite/resource-request'];
  if (resourceRequest) {
    expect(result.isError).toBe(true);
    return {
      reply: {
        kind: 'result',
        response_type: 'request-for-more-resource',
        fields: { resource_request: resourceRequest },
        meta,
      },
    };
  }
  if (result.isError) {
    const failure = { message: text, ...(ext['mcplite/failure'] ?? {}) };
    return { reply: { kind: 'result', response_type: 'failure', fields: { failure }, meta } };
  }
  const structured = result.structuredContent as Record<string, unknown> | undefined;
  const keys = structured ? Object.keys(structured) : [];
  // `{ result }` wraps a value that is not an object; an object that has a lone `result` key is its own text.
  const wrapped = keys.length === 1 && keys[0] === 'result' && text !== JSON.stringify(structured);
  const content = structured === undefined ? text : wrapped ? structured.result : structured;
  return { reply: { kind: 'result', response_type: 'answer', fields: { content }, meta } };
}

/** A partial as MCP carries it: a progress message, the value's JSON unless it is a string. */
function fromProgressMessage(message: unknown): unknown {
  if (typeof message !== 'string') return message;
  try {
    return JSON.parse(message);
  } catch {
    return message;
  }
}

/** A binding adapter over an SDK client transport (one connection per session). */
function mcpSdkAdapter(name: string, transportFor: (endpoint: Endpoint) => Transport): BindingAdapter {
  return {
    name,
    open(endpoint) {
      const client = new Client({ name: 'cross-binding', version: '1.0.0' });
      // Every progress message the transport received, read before the SDK sees it (the SDK hands notifications
      // to their handler a microtask late and may settle the response first: test/legacy-sse.test.ts).
      const progress: unknown[] = [];
      const opened = (async () => {
        const transport = transportFor(endpoint);
        await client.connect(transport);
        const deliver = transport.onmessage!;
        transport.onmessage = (message, extra) => {
          if ('method' in message && message.method === 'notifications/progress') {
            progress.push((message.params as { message?: unknown }).message);
          }
          deliver(message, extra);
        };
        return client;
      })();
      void opened.catch(() => {});
      const version = () => client.getServerVersion()?.version;
      const call = async (
        toolName: string,
        args?: Record<string, unknown>,
        extra?: Record<string, unknown>,
      ) => {
        const c = await opened;
        const params = { name: toolName, ...(args ? { arguments: args } : {}), ...extra };
        return c.callTool(params as Parameters<Client['callTool']>[0], undefined, {
          onprogress: () => {},
        });
      };
      return {
        async listTools() {
          const { tools: listed } = await (await opened).listTools();
          const all = listed.map((t) => ({
            name: t.name,
            type: (t._meta?.['mcplite/type'] as string | undefined) ?? '',
            description: t.description ?? '',
            inputSchema: t.inputSchema,
          }));
          // MCP lists the server's own tools (redeem, cancel) after the catalog's, by design (mcp/engine.ts):
          // put back in core's order, which is no part of what the case compares.
          return [...all.filter((t) => t.type === 'system'), ...all.filter((t) => t.type !== 'system')];
        },
        async call(toolName, args, elicitation) {
          try {
            await opened;
          } catch (err) {
            return { reply: refusedConnection(err) };
          }
          try {
            const result = await call(toolName, args, elicitation ? { elicitation } : undefined);
            return fromCallToolResult(result, version());
          } catch (err) {
            return { reply: fromMcpError(err) };
          }
        },
        async stream(toolName, args) {
          try {
            await opened;
          } catch (err) {
            return { partials: [], final: refusedConnection(err) };
          }
          progress.length = 0;
          let final: Reply;
          try {
            final = fromCallToolResult(await call(toolName, args), version()).reply;
          } catch (err) {
            final = fromMcpError(err);
          }
          return { partials: progress.splice(0).map(fromProgressMessage), final };
        },
        close() {
          void opened.then(
            (c) => c.close(),
            () => {},
          );
        },
      };
    },
  };
}

const mcpWsAdapter = mcpSdkAdapter(
  'mcp-ws',
  ({ running, token }) =>
    new BearerWebSocketTransport(new URL(`${running.url.replace('http', 'ws')}/mcp`), token),
);

const mcpLegacySseAdapter = mcpSdkAdapter(
  'mcp-legacy-sse',
  ({ running, token }) =>
    new SSEClientTransport(
      new URL(`${running.url}/sse`),
      token ? { requestInit: { headers: { authorization: `Bearer ${token}` } } } : undefined,
    ),
);

const mcpStreamableHttpAdapter = mcpSdkAdapter(
  'mcp-streamable-http',
  ({ running, token }) =>
    new StreamableHTTPClientTransport(
      new URL(`${running.url}/mcp`),
      token ? { requestInit: { headers: { authorization: `Bearer ${token}` } } } : undefined,
    ),
);

// ---- adapter: Webtools (fetch: GET metadata, POST execute, SSE) ----

const WEBTOOLS_CLASS: Partial<Record<string, ErrorClass>> = {
  SCHEMA_ERROR: 'invalid_params',
  ACTION_NOT_FOUND: 'tool_not_found',
  PROMISE_NOT_FOUND: 'promise_not_found',
  INTERNAL_ERROR: 'internal',
  TIMEOUT: 'deadline_exceeded',
  UNAUTHENTICATED: 'unauthenticated',
  CANCELLED: 'cancelled',
};

const webtoolsAdapter: BindingAdapter = {
  name: 'webtools',
  open({ running, token }) {
    // Without a declaration the whole catalog is one webtool named after the server ("mcplite").
    const url = `${running.url}/webtools/mcplite/`;
    const headers = (accept?: string): Record<string, string> => ({
      'content-type': 'application/json',
      ...(accept ? { accept } : {}),
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    });
    // Webtools replies carry no `_meta`: the server version is the implicit webtool's version (the server's),
    // read from its metadata, and the time is the response's Date header.
    let version: Promise<string> | undefined;
    const webtoolVersion = () => {
      version ??= fetch(url, { headers: headers() }).then(async (r) => (await r.json()).version);
      return version;
    };
    const meta = async (date: string | null, promise = false) => ({
      promise_token: promise,
      estimated_completion: promise,
      timestamp: date !== null && !Number.isNaN(Date.parse(date)),
      server_version: await webtoolVersion(),
    });
    const fromEnvelope = async (body: any, date: string | null): Promise<Called> => {
      switch (body.status) {
        case 'ok':
          return {
            reply: {
              kind: 'result',
              response_type: 'answer',
              fields: { content: body.data },
              meta: await meta(date),
            },
          };
        case 'pending':
          expect(body.redeem).toEqual({ action: 'redeem', request: { promise: body.promise } });
          expect(Date.parse(body.estimated_completion)).not.toBeNaN();
          return {
            reply: { kind: 'result', response_type: 'promise', fields: {}, meta: await meta(date, true) },
            token: body.promise,
          };
        case 'input_required':
          return {
            reply: {
              kind: 'result',
              response_type: 'elicitation',
              fields: mask({ elicitation: body.input }),
              meta: await meta(date),
            },
            state: body.input.state,
          };
        default: {
          const { code, message, details } = body.error;
          if (code === 'RESOURCE_REQUIRED') {
            return {
              reply: {
                kind: 'result',
                response_type: 'request-for-more-resource',
                fields: { resource_request: { ...details, message } },
                meta: await meta(date),
              },
            };
          }
          const cls = WEBTOOLS_CLASS[code];
          if (cls === undefined) {
            // Not a protocol error: the tool's own failure (TOOL_ERROR when the tool gave no code).
            const failure = {
              message,
              ...(code !== 'TOOL_ERROR' ? { code } : {}),
              ...(details !== undefined ? { details } : {}),
            };
            return {
              reply: {
                kind: 'result',
                response_type: 'failure',
                fields: { failure },
                meta: await meta(date),
              },
            };
          }
          const data = details ?? {};
          const detail =
            cls === 'tool_not_found'
              ? errorDetail(cls, {
                  requested_tool: data.requested_action,
                  available_tools: data.available_actions,
                  suggestion: data.suggestion,
                })
              : errorDetail(cls, data);
          return { reply: { kind: 'error', class: cls, detail } };
        }
      }
    };
    const body = (action: string, request?: Record<string, unknown>, elicitation?: unknown) =>
      JSON.stringify({ action, request: request ?? {}, ...(elicitation ? { elicitation } : {}) });
    return {
      async listTools() {
        const res = await fetch(url, { headers: headers() });
        const metadata = (await res.json()) as { actions: any[] };
        return metadata.actions.map((a) => ({
          name: a.name,
          type: a['@type'] ?? '',
          description: a.description,
          inputSchema: a.requestSchema,
        }));
      },
      async call(name, args, elicitation) {
        const res = await fetch(url, {
          method: 'POST',
          headers: headers(),
          body: body(name, args, elicitation),
        });
        expect(res.headers.get('content-type')).toMatch(/^application\/json/);
        return fromEnvelope(await res.json(), res.headers.get('date'));
      },
      async stream(name, args) {
        const res = await fetch(url, {
          method: 'POST',
          headers: headers('text/event-stream'),
          body: body(name, args),
        });
        if (res.status === 401) {
          return { partials: [], final: (await fromEnvelope(await res.json(), null)).reply };
        }
        expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
        const partials: unknown[] = [];
        let final: unknown;
        const parser = createParser({
          onEvent: (e) => {
            const data = JSON.parse(e.data);
            if (e.event === 'message') partials.push(data.partial);
            else if (e.event === 'done' || e.event === 'error') final = data;
          },
        });
        const decoder = new TextDecoder();
        for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
          parser.feed(decoder.decode(chunk, { stream: true }));
        }
        if (!final) throw new Error('the SSE stream ended without done or error');
        return { partials, final: (await fromEnvelope(final, res.headers.get('date'))).reply };
      },
      close() {},
    };
  },
};

/** Every binding in the suite. A new binding adds its adapter here. */
const ADAPTERS: BindingAdapter[] = [
  httpAdapter,
  grpcAdapter,
  webtoolsAdapter,
  wsAdapter,
  stdioAdapter,
  mcpWsAdapter,
  mcpLegacySseAdapter,
  mcpStreamableHttpAdapter,
];

// ---- the tools and the servers (one ToolServer per fixture, served over every binding at once) ----

const VERSION = '9.9.9';

const SIZE_SCHEMA = {
  type: 'object',
  required: ['size'],
  properties: { size: { type: 'string', enum: ['S', 'M', 'L'] } },
};
const COLOUR_SCHEMA = { type: 'object', required: ['colour'], properties: { colour: { type: 'string' } } };

const tools: ToolDefinition[] = [
  {
    name: 'echo',
    '@type': 'query',
    description: 'Echoes the message',
    inputSchema: {
      type: 'object',
      required: ['message'],
      properties: { message: { type: 'string' }, times: { type: 'integer', minimum: 1 } },
    },
    handler: (args: { message: string; times?: number }) => ({ echo: args.message, times: args.times ?? 1 }),
  },
  { name: 'list', description: 'A list answer', handler: () => ['a', 1, null, { b: [true, 2.5] }] },
  { name: 'text', description: 'A string answer', handler: () => 'plain text' },
  {
    name: 'fail',
    description: 'Fails',
    handler: () => failure('Out of stock', { code: 'OOS', details: { sku: 'x1' } }),
  },
  {
    name: 'ask',
    description: 'Elicits a size',
    handler: (_args, ctx) =>
      ctx.elicitation
        ? { size: ctx.elicitation.answers.size, step: (ctx.elicitation.context as { step: number }).step }
        : elicit({
            message: 'Which size?',
            schema: {
              type: 'object',
              required: ['size'],
              properties: { size: { type: 'string', enum: ['S', 'M', 'L'] } },
            },
            context: { step: 1 },
          }),
  },
  {
    name: 'ask_two',
    description: 'Elicits a size and a colour in one round',
    handler: (_args, ctx) =>
      ctx.elicitation
        ? ctx.elicitation.answers
        : elicit({
            requests: {
              size: { message: 'Which size?', schema: SIZE_SCHEMA },
              colour: { message: 'Which colour?', schema: COLOUR_SCHEMA },
            },
          }),
  },
  {
    name: 'more',
    description: 'Needs more budget',
    handler: () =>
      needMoreResource({ resource: 'cost', requested: 5, granted: 1, unit: 'usd', message: 'Costs 5 USD' }),
  },
  {
    name: 'slow',
    description: 'Long-running',
    longRunning: { estimatedMs: 100 },
    handler: async () => {
      await new Promise((r) => setTimeout(r, 20));
      return { done: true };
    },
  },
  {
    name: 'report',
    description: 'Streams',
    handler: async function* () {
      yield 'part one';
      yield { part: 2 };
      return { pages: 2 };
    },
  },
  {
    name: 'report_fail',
    description: 'Streams, then fails',
    handler: async (_args, ctx) => {
      await ctx.partial('begun');
      return failure('Printer jammed');
    },
  },
  {
    name: 'report_boom',
    description: 'Streams, then throws',
    handler: async (_args, ctx) => {
      await ctx.partial('begun');
      throw new Error('secret internals');
    },
  },
  {
    name: 'boom',
    description: 'Throws',
    handler: () => {
      throw new Error('secret internals');
    },
  },
  {
    name: 'upstream',
    description: 'Times out upstream',
    handler: () => {
      throw new McpLiteError('deadline_exceeded', 'The upstream timed out');
    },
  },
];

type FixtureName = 'open' | 'guarded' | 'guarded-with-token';

const fixtures = new Map<FixtureName, Endpoint>();
const closers: Array<() => Promise<void>> = [];

beforeAll(async () => {
  const open = createServer({ tools, version: VERSION });
  const openRunning = await serve(open, { port: 0, grpcPort: 0 });
  const guarded = createServer({ tools, version: VERSION, authenticate: bearerAuth(['t0ken']) });
  const guardedRunning = await serve(guarded, { port: 0, grpcPort: 0 });
  fixtures.set('open', { running: openRunning, server: open });
  fixtures.set('guarded', { running: guardedRunning, server: guarded });
  fixtures.set('guarded-with-token', { running: guardedRunning, server: guarded, token: 't0ken' });
  closers.push(
    () => openRunning.close(1000),
    () => guardedRunning.close(1000),
  );
});

afterAll(async () => {
  await Promise.all(closers.map((c) => c()));
});

// ---- the table ----

const META = { promise_token: false, estimated_completion: false, timestamp: true, server_version: VERSION };
const answer = (content: unknown): Reply => ({
  kind: 'result',
  response_type: 'answer',
  fields: { content },
  meta: META,
});

/** The listing as core makes it, normalised like the adapters' (a throwaway server, closed at once). */
function coreListing(): ListedTool[] {
  const reference = createServer({ tools, version: VERSION });
  const listed = reference.listTools().tools.map((t) => ({
    name: t.name,
    type: t['@type'] ?? '',
    description: t.description,
    inputSchema: t.inputSchema,
  }));
  void reference.close();
  return listed;
}

interface Case {
  name: string;
  fixture?: FixtureName;
  /** Runs the case through one binding's session and returns its transcript. */
  run(s: Session): Promise<unknown>;
  expected: unknown;
}

const CASES: Case[] = [
  {
    name: 'answer (object)',
    run: async (s) => (await s.call('echo', { message: 'hi', times: 2 })).reply,
    expected: answer({ echo: 'hi', times: 2 }),
  },
  {
    name: 'answer (list)',
    run: async (s) => (await s.call('list', {})).reply,
    expected: answer(['a', 1, null, { b: [true, 2.5] }]),
  },
  { name: 'answer (string)', run: async (s) => (await s.call('text')).reply, expected: answer('plain text') },
  {
    name: 'failure',
    run: async (s) => (await s.call('fail', {})).reply,
    expected: {
      kind: 'result',
      response_type: 'failure',
      fields: { failure: { message: 'Out of stock', code: 'OOS', details: { sku: 'x1' } } },
      meta: META,
    },
  },
  {
    name: 'promise, then redeem',
    async run(s) {
      const promised = await s.call('slow', {});
      expect(promised.token).toBeTypeOf('string');
      const redeemed = await s.call('redeem', { promise: promised.token, wait_ms: 5000 });
      return [promised.reply, redeemed.reply];
    },
    expected: [
      {
        kind: 'result',
        response_type: 'promise',
        fields: {},
        meta: { ...META, promise_token: true, estimated_completion: true },
      },
      answer({ done: true }),
    ],
  },
  {
    name: 'elicitation, then the answer',
    async run(s) {
      const asked = await s.call('ask', {});
      expect(asked.state).toBeTypeOf('string');
      const answered = await s.call('ask', {}, { state: asked.state, answers: { size: 'M' } });
      const refused = await s.call('ask', {}, { state: asked.state, answers: { size: 'XXL' } });
      const forged = await s.call('ask', {}, { state: `${asked.state}x`, answers: { size: 'S' } });
      return [asked.reply, answered.reply, refused.reply, forged.reply];
    },
    expected: [
      {
        kind: 'result',
        response_type: 'elicitation',
        fields: {
          elicitation: {
            message: 'Which size?',
            requested_schema: {
              type: 'object',
              required: ['size'],
              properties: { size: { type: 'string', enum: ['S', 'M', 'L'] } },
            },
            state: '<state>',
          },
        },
        meta: META,
      },
      answer({ size: 'M', step: 1 }),
      { kind: 'error', class: 'invalid_params', detail: { fields: ['size'] } },
      { kind: 'error', class: 'invalid_params', detail: {} },
    ],
  },
  {
    name: 'multi-request elicitation: partial answer, the rest asked again, then the answer',
    async run(s) {
      const asked = await s.call('ask_two', {});
      const partial = await s.call('ask_two', {}, { state: asked.state, answers: { size: { size: 'M' } } });
      const done = await s.call(
        'ask_two',
        {},
        { state: partial.state, answers: { colour: { colour: 'red' } } },
      );
      const refused = await s.call('ask_two', {}, { state: asked.state, answers: { size: { size: 'XXL' } } });
      return [asked.reply, partial.reply, done.reply, refused.reply];
    },
    expected: [
      {
        kind: 'result',
        response_type: 'elicitation',
        fields: {
          elicitation: {
            message: 'Which size? Which colour?',
            requested_schema: { type: 'object', properties: { size: SIZE_SCHEMA, colour: COLOUR_SCHEMA } },
            state: '<state>',
            requests: {
              size: { message: 'Which size?', requested_schema: SIZE_SCHEMA },
              colour: { message: 'Which colour?', requested_schema: COLOUR_SCHEMA },
            },
          },
        },
        meta: META,
      },
      {
        kind: 'result',
        response_type: 'elicitation',
        fields: {
          elicitation: {
            message: 'Which colour?',
            requested_schema: { type: 'object', properties: { colour: COLOUR_SCHEMA } },
            state: '<state>',
            requests: { colour: { message: 'Which colour?', requested_schema: COLOUR_SCHEMA } },
          },
        },
        meta: META,
      },
      answer({ size: { size: 'M' }, colour: { colour: 'red' } }),
      { kind: 'error', class: 'invalid_params', detail: { fields: ['size.size'] } },
    ],
  },
  {
    name: 'request-for-more-resource',
    run: async (s) => (await s.call('more', {})).reply,
    expected: {
      kind: 'result',
      response_type: 'request-for-more-resource',
      fields: {
        resource_request: { resource: 'cost', requested: 5, granted: 1, unit: 'usd', message: 'Costs 5 USD' },
      },
      meta: META,
    },
  },
  {
    name: 'stream: partials, then the final answer with meta',
    run: (s) => s.stream('report', {}),
    expected: { partials: ['part one', { part: 2 }], final: answer({ pages: 2 }) },
  },
  {
    name: 'stream: partials, then a failure',
    run: (s) => s.stream('report_fail', {}),
    expected: {
      partials: ['begun'],
      final: {
        kind: 'result',
        response_type: 'failure',
        fields: { failure: { message: 'Printer jammed' } },
        meta: META,
      },
    },
  },
  {
    name: 'stream: partials, then an internal error',
    run: (s) => s.stream('report_boom', {}),
    expected: { partials: ['begun'], final: { kind: 'error', class: 'internal', detail: {} } },
  },
  {
    name: 'stream: a protocol error before anything',
    run: (s) => s.stream('echo', {}),
    expected: {
      partials: [],
      final: { kind: 'error', class: 'invalid_params', detail: { fields: ['message'] } },
    },
  },
  {
    name: 'error: invalid params (missing required, wrong type)',
    run: async (s) => [
      (await s.call('echo', { times: 2 })).reply,
      (await s.call('echo', { message: 'x', times: 'two' })).reply,
      (await s.call('echo')).reply,
    ],
    expected: [
      { kind: 'error', class: 'invalid_params', detail: { fields: ['message'] } },
      { kind: 'error', class: 'invalid_params', detail: { fields: ['times'] } },
      { kind: 'error', class: 'invalid_params', detail: { fields: ['message'] } },
    ],
  },
  {
    name: 'error: unknown tool, with the available tools and a suggestion',
    run: async (s) => (await s.call('ecko', { message: 'hi' })).reply,
    expected: {
      kind: 'error',
      class: 'tool_not_found',
      detail: {
        requested_tool: 'ecko',
        available_tools: ['redeem', 'cancel', ...tools.map((t) => t.name)],
        suggestion: "Did you mean 'echo'?",
      },
    },
  },
  {
    name: 'error: unknown and malformed promise tokens',
    run: async (s) => [
      (await s.call('redeem', { promise: `prom_${'Q'.repeat(32)}` })).reply,
      (await s.call('redeem', { promise: '!' })).reply,
    ],
    expected: [
      { kind: 'error', class: 'promise_not_found', detail: {} },
      { kind: 'error', class: 'invalid_params', detail: {} },
    ],
  },
  {
    name: 'error: internal, without leaked detail',
    run: async (s) => (await s.call('boom', {})).reply,
    expected: { kind: 'error', class: 'internal', detail: {} },
  },
  {
    name: 'error: deadline exceeded (reported by the tool)',
    run: async (s) => (await s.call('upstream', {})).reply,
    expected: { kind: 'error', class: 'deadline_exceeded', detail: {} },
  },
  {
    name: 'error: unauthenticated without a token',
    fixture: 'guarded',
    run: async (s) => [(await s.call('echo', { message: 'hi' })).reply, (await s.stream('report', {})).final],
    expected: [
      { kind: 'error', class: 'unauthenticated', detail: {} },
      { kind: 'error', class: 'unauthenticated', detail: {} },
    ],
  },
  {
    name: 'auth: the same call with the token',
    fixture: 'guarded-with-token',
    run: async (s) => (await s.call('echo', { message: 'hi' })).reply,
    expected: answer({ echo: 'hi', times: 1 }),
  },
  {
    name: 'tool discovery: every tool, with its type, description and input schema',
    run: (s) => s.listTools(),
    // What core lists is the truth each binding must carry faithfully.
    expected: coreListing(),
  },
];

describe.each(CASES)('$name', (c) => {
  it('every binding gives the expected transcript, so they all agree', async () => {
    const endpoint = fixtures.get(c.fixture ?? 'open')!;
    const transcripts: Array<{ binding: string; transcript: unknown }> = [];
    for (const adapter of ADAPTERS) {
      if (adapter.skips?.includes(c.fixture ?? 'open')) continue;
      const session = adapter.open(endpoint);
      try {
        transcripts.push({ binding: adapter.name, transcript: await c.run(session) });
      } finally {
        session.close();
      }
    }
    for (const t of transcripts)
      expect({ binding: t.binding, transcript: t.transcript }).toEqual({
        binding: t.binding,
        transcript: c.expected,
      });
    const [first, ...rest] = transcripts;
    for (const t of rest) expect(t.transcript).toEqual(first!.transcript);
  });
});
