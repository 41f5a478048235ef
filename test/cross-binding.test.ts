/**
 * One table of cases, run over every binding, asserting that they agree (docs/architecture.md, "The outcome model": the outcome model is
 * the same on every wire). Each binding contributes one adapter that speaks its wire with a real client and
 * normalises the replies into a common shape (Webtools, which has no `_meta`, reads the time from `Date`); a later
 * binding (MCP) joins by adding its adapter to
 * ADAPTERS. Each case states the expected transcript, so the bindings cannot agree on something wrong.
 */
import { PassThrough } from 'node:stream';
import { Metadata, type ServiceError, status } from '@grpc/grpc-js';
import { createParser } from 'eventsource-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
const ADAPTERS: BindingAdapter[] = [httpAdapter, grpcAdapter, webtoolsAdapter, wsAdapter, stdioAdapter];

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
