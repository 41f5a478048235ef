/**
 * The cross-binding suite's MCP-lite adapters (test/cross-binding-*.test.ts): HTTP (JSON-RPC and SSE), gRPC,
 * WebSocket and stdio, each speaking its wire with a real client and normalising the replies into the common
 * shape (test/support/cross-binding-shape.ts).
 */
import { PassThrough } from 'node:stream';
import { Metadata, type ServiceError, status } from '@grpc/grpc-js';
import { createParser } from 'eventsource-parser';
import { expect } from 'vitest';
import { serveMcpLiteStdio } from '../../src/bindings/mcp-lite/stdio/index.js';
import {
  type BindingAdapter,
  type ErrorClass,
  errorDetail,
  fromError,
  fromResult,
  mask,
  nextRpcId,
  type Reply,
  type Session,
} from './cross-binding-shape.js';
import {
  errorDetails,
  jsonToStruct,
  type McpLiteClient,
  makeClient,
  readStream,
  structToJson,
  toolRequest,
  unary,
} from './grpc-client.js';
import { jsonLines } from './json-lines.js';
import { connectWs, RefusedUpgrade } from './ws-client.js';

// ---- adapter: MCP-lite HTTP (fetch, JSON-RPC, SSE) ----

/** MCP-lite over HTTP: JSON-RPC with fetch, streams as SSE. */
export const httpAdapter: BindingAdapter = {
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
        id: nextRpcId(),
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

/** MCP-lite over gRPC, with a client built from proto/mcplite.proto. */
export const grpcAdapter: BindingAdapter = {
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
                answers: jsonToStruct((elicitation.answers ?? {}) as Record<string, unknown>),
                ...(elicitation.action ? { action: elicitation.action } : {}),
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
    const id = nextRpcId();
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

/** MCP-lite JSON-RPC over WebSocket. */
export const wsAdapter: BindingAdapter = {
  name: 'mcp-lite-ws',
  open({ running, token }) {
    const url = `${running.url.replace('http', 'ws')}/mcp-lite/v1/ws`;
    const opened = connectWs(url, token ? { headers: { authorization: `Bearer ${token}` } } : {});
    return channelSession(
      opened.then((c) => ({ send: c.send, next: c.next, received: c.received, close: () => c.ws.close() })),
    );
  },
};

/** MCP-lite JSON-RPC over stdio (in-process pipes). */
export const stdioAdapter: BindingAdapter = {
  name: 'mcp-lite-stdio',
  // stdio has no bearer token: whoever holds the pipe is the caller, so the unauthenticated case is not its.
  skips: ['guarded'],
  open({ server }) {
    const input = new PassThrough();
    const output = new PassThrough();
    const stdio = serveMcpLiteStdio(server, { input, output });
    const { messages: received, next } = jsonLines(output);
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
