/**
 * The cross-binding suite's full-MCP adapters (test/cross-binding-*.test.ts): MCP over WebSocket, legacy
 * HTTP+SSE and Streamable HTTP, with the official SDK's clients.
 *
 * Every case applies to MCP. Its CallToolResult carries the outcome in mcplite's `_meta` extensions
 * (docs/mcp.md): `mcplite/promise`, `mcplite/elicitation`, `mcplite/failure`, `mcplite/resource-request`, and
 * `mcplite/error` for a tool execution error (invalid arguments, a failing handler: isError results); an
 * answer is `structuredContent` (a value that is not an object under `{ result }`). The SDK client declares no
 * elicitation capability, so an elicitation comes back as a result and is answered by calling again with
 * `params.elicitation`, as on MCP-lite (the `elicitation/create` round trip is tested in test/mcp/ws.test.ts and
 * test/mcp/legacy-sse.test.ts). Partials are `notifications/progress` messages (text; JSON for a value that is not a
 * string). What MCP's result lacks is filled as the Webtools adapter fills it: the server version is the one
 * `initialize` gave, and the result's arrival stands in for the response time MCP does not send.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { WebSocketClientTransport } from '@modelcontextprotocol/sdk/client/websocket.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { expect } from 'vitest';
import WebSocket from 'ws';
import {
  type BindingAdapter,
  type Called,
  type Endpoint,
  type ErrorClass,
  errorDetail,
  mask,
  type Reply,
  sharedErrorClass,
} from './cross-binding-shape.js';

/**
 * The SDK's WebSocketClientTransport uses the global WebSocket, which Node 20 lacks: it gets the `ws` package's,
 * dispatching each message in a task of its own as browsers do (test/mcp/ws.test.ts says why). The browser API
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
    default:
      cls = sharedErrorClass(err.code);
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
  const toolError = ext['mcplite/error'];
  if (toolError) {
    // A tool execution error (invalid arguments, a failing handler) is a result on MCP (SEP-1303), the same error
    // as on the other wires in `_meta`.
    expect(result.isError).toBe(true);
    const cls = toolError.code as ErrorClass;
    return { reply: { kind: 'error', class: cls, detail: errorDetail(cls, toolError.data ?? {}) } };
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
      // to their handler a microtask late and may settle the response first: test/mcp/legacy-sse.test.ts).
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
          // MCP lists the server's own tools (redeem, cancel) after the catalog's, by design (mcp/methods.ts):
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

/** Full MCP over WebSocket (`/mcp`), with the SDK's WebSocket client transport. */
export const mcpWsAdapter = mcpSdkAdapter(
  'mcp-ws',
  ({ running, token }) =>
    new BearerWebSocketTransport(new URL(`${running.url.replace('http', 'ws')}/mcp`), token),
);

/** Full MCP over the legacy HTTP+SSE transport (`/sse`), with the SDK's SSE client transport. */
export const mcpLegacySseAdapter = mcpSdkAdapter(
  'mcp-legacy-sse',
  ({ running, token }) =>
    new SSEClientTransport(
      new URL(`${running.url}/sse`),
      token ? { requestInit: { headers: { authorization: `Bearer ${token}` } } } : undefined,
    ),
);

/** Full MCP over Streamable HTTP (`/mcp`), with the SDK's Streamable HTTP client transport. */
export const mcpStreamableHttpAdapter = mcpSdkAdapter(
  'mcp-streamable-http',
  ({ running, token }) =>
    new StreamableHTTPClientTransport(
      new URL(`${running.url}/mcp`),
      token ? { requestInit: { headers: { authorization: `Bearer ${token}` } } } : undefined,
    ),
);
