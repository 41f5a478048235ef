import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  StreamableHTTPClientTransport,
  StreamableHTTPError,
} from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport as SdkTransport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  ElicitRequestSchema,
  McpError,
  ResultSchema,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { APPS_CAPABILITY, APPS_EXTENSION } from '../core/apps/ui.js';
import type { McpLiteError } from '../core/errors.js';
import { listToolPages } from './catalog-wire.js';
import { elicitationRace } from './elicitation-race.js';
import type { HttpFetch } from './http-fetch.js';
import { promiseToolCalls } from './http-transport.js';
import type { ClientLimits } from './limits.js';
import { boundedSdkFetch } from './mcp-sdk-bounds.js';
import { sdkCatalog } from './mcp-sdk-catalog.js';
import { MCP_SESSION_KEY, SessionJar } from './session-jar.js';
import type { Transport, WireContext, WireOutcome } from './transport.js';
import type { ConnectOptions, ToolInfo } from './types.js';
import { abortError, fromHttpStatus, fromJsonRpcError, isRecord, toClientError } from './wire-errors.js';

/**
 * Where the MCP server is: a Streamable HTTP URL, or an SDK transport already linked to it (the in-process server
 * of `connect(server)`, `in-memory.ts`). A server over stdio is the client's own transport (`mcp-stdio-transport.ts`).
 */
export type McpEndpoint = { url: string } | { transport: SdkTransport };

// The SDK's own per-request timeout; the client's deadline (signal) is what really bounds a call.
const NO_TIMEOUT = 2_147_483_647;

/**
 * MCP on a handshake revision (initialize, then requests), through the official SDK's Client over Streamable
 * HTTP (or an in-process link), so any MCP server works. The client declares elicitation: a server's `elicitation/create` during a
 * call ends that call's wait with an elicitation outcome, whose answer is the reply to the server's request.
 * What the SDK reads is bounded by `limits` (`mcp-sdk-bounds.ts`); `signal` bounds the handshake.
 */
export async function mcpSdkTransport(
  endpoint: McpEndpoint,
  options: ConnectOptions,
  headers: Record<string, string>,
  limits: ClientLimits,
  signal?: AbortSignal,
  send?: HttpFetch,
): Promise<Transport> {
  const client = new Client(options.clientInfo ?? { name: 'mcplite', version: '0' }, {
    // MCP Apps: the tools' views and app-only tools come listed; the adapters keep the latter from a model.
    capabilities: { elicitation: {}, extensions: { [APPS_EXTENSION]: { ...APPS_CAPABILITY } } },
  });
  const elicitations = elicitationRace((err, signal) => toClientError(sdkError(err), signal));

  client.setRequestHandler(
    ElicitRequestSchema,
    (request) =>
      new Promise((resolve) =>
        elicitations.offer({
          params: request.params as Record<string, unknown>,
          respond: (r) => resolve(r as never),
        }),
      ),
  );
  const toolsChanged = new Set<() => void>();
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
    for (const listener of toolsChanged) listener();
  });
  // The requests in flight (calls, listings, the handshake): a bound the server breaks on a stream the SDK
  // reads for several of them ends them all, as the SDK itself would only wait.
  const inFlight = new Set<(err: McpLiteError) => void>();
  let denied: McpLiteError | undefined;
  const hooks = {
    onBoundExceeded: (err: McpLiteError) => {
      for (const fail of inFlight) fail(err);
    },
    onDenied: (err: McpLiteError) => {
      denied = err;
    },
  };
  const sdkError = (err: unknown): unknown => {
    // The SDK keeps only a 401/403's status: the error with its challenge was taken from the response.
    if (err instanceof StreamableHTTPError && (err.code === 401 || err.code === 403))
      return denied?.data?.http_status === err.code ? denied : fromHttpStatus(err.code, '');
    return fromSdkError(err);
  };
  const transport =
    'transport' in endpoint
      ? endpoint.transport
      : new StreamableHTTPClientTransport(new URL(endpoint.url), {
          requestInit: { headers },
          fetch: boundedSdkFetch(limits, hooks, send),
        });
  try {
    await tracked({ ...(signal ? { signal } : {}) }, (sdkSignal) =>
      client.connect(transport, { signal: sdkSignal }),
    );
  } catch (err) {
    await client.close().catch(() => {});
    throw toClientError(sdkError(err), signal);
  }

  /**
   * Runs one SDK request under its own signal: the caller's, which a bound broken on the connection also aborts
   * (with that error as the reason, which `abortError` then gives back).
   */
  async function tracked<T>(ctx: WireContext, run: (signal: AbortSignal) => Promise<T>): Promise<T> {
    // The call's own signal, when the client gave its scope's `fail` with it: no second controller per request.
    const { signal, fail: failCall } = ctx;
    if (signal && failCall) {
      inFlight.add(failCall);
      try {
        return await run(signal);
      } catch (err) {
        throw signal.aborted ? abortError(signal) : err;
      } finally {
        inFlight.delete(failCall);
      }
    }
    const local = new AbortController();
    const onAbort = () => local.abort(ctx.signal?.reason);
    if (ctx.signal?.aborted) local.abort(ctx.signal.reason);
    else ctx.signal?.addEventListener('abort', onAbort, { once: true });
    const fail = (err: McpLiteError) => local.abort(err);
    inFlight.add(fail);
    try {
      return await run(local.signal);
    } catch (err) {
      throw local.signal.aborted ? abortError(local.signal) : err;
    } finally {
      inFlight.delete(fail);
      ctx.signal?.removeEventListener('abort', onAbort);
    }
  }

  // The SDK hands notifications to their handlers a turn later than responses, so a progress notification
  // that arrives in the same chunk as its response would be dropped (its handler already gone). Progress is
  // taken here instead, synchronously, under tokens of our own.
  const sinks = new Map<string, (value: unknown) => void>();
  let nextToken = 1;
  const wire = transport as { onmessage?: (message: unknown, extra?: unknown) => void };
  const deliver = wire.onmessage;
  wire.onmessage = (message: unknown, extra?: unknown) => {
    const m = message as { method?: string; params?: Record<string, unknown> };
    const sink =
      m.method === 'notifications/progress' ? sinks.get(String(m.params?.progressToken)) : undefined;
    if (sink) {
      const { progressToken: _t, ...progress } = m.params ?? {};
      try {
        sink(progress);
      } catch {
        // A partial bound reached: the sink has aborted its call already; the wire itself is fine.
      }
    } else deliver?.(message, extra);
  };

  // The caller session an mcplite server gave this connection (`_meta["mcplite/session"]`), sent back (SessionJar).
  const jar = new SessionJar(options.keepSession !== false);
  const keepSession = <T>(result: T): T => {
    const meta = isRecord(result) && isRecord(result._meta) ? result._meta : undefined;
    jar.keep(meta?.[MCP_SESSION_KEY]);
    return result;
  };

  function call(name: string, args: Record<string, unknown>, ctx: WireContext): Promise<WireOutcome> {
    if (ctx.signal?.aborted) return Promise.reject(abortError(ctx.signal));
    const token = ctx.onPartial ? `mcplite-${nextToken++}` : undefined;
    if (token && ctx.onPartial) sinks.set(token, ctx.onPartial);
    const pending = tracked(
      ctx,
      (signal) =>
        client
          .callTool(
            {
              name,
              arguments: args,
              ...(token || ctx.trace || jar.token !== undefined
                ? {
                    _meta: jar.into(
                      { ...ctx.trace, ...(token ? { progressToken: token } : {}) },
                      MCP_SESSION_KEY,
                    ),
                  }
                : {}),
            },
            undefined,
            { timeout: NO_TIMEOUT, signal },
          )
          .then(keepSession) as Promise<Record<string, unknown>>,
    );
    if (token) void pending.finally(() => sinks.delete(token)).catch(() => {});
    return elicitations.race(pending, ctx);
  }

  const catalog = sdkCatalog(client, tracked, sdkError, limits);

  return {
    binding: 'mcp',
    canWait: true,
    listResources: catalog.listResources,
    listResourceTemplates: catalog.listResourceTemplates,
    readResource: catalog.readResource,
    listPrompts: catalog.listPrompts,
    getPrompt: catalog.getPrompt,
    onResourcesChanged: catalog.onResourcesChanged,
    onPromptsChanged: catalog.onPromptsChanged,
    async listTools(ctx): Promise<ToolInfo[]> {
      try {
        return await listToolPages((params) =>
          tracked(ctx, (signal) =>
            client.listTools(params, { signal }).catch((err: unknown) => {
              // One malformed tool (an input schema that is not an object's) fails the SDK's check of the whole
              // page: read that page as it came, so that a caller (the gateway) leaves out only that tool.
              if (!isSchemaError(err)) throw err;
              return client.request({ method: 'tools/list', params }, ResultSchema, { signal });
            }),
          ),
        );
      } catch (err) {
        throw toClientError(sdkError(err), ctx.signal);
      }
    },
    call,
    // A promise's redeem and cancel are not streamed: their partials, if any, are the original call's.
    ...promiseToolCalls((name, args, ctx) => call(name, args, { ...ctx, onPartial: undefined })),
    onToolsChanged(listener) {
      toolsChanged.add(listener);
    },
    async close() {
      elicitations.clear();
      toolsChanged.clear();
      catalog.clear();
      await client.close();
    },
  };
}

/** The SDK's McpError as a JSON-RPC error (its message carries a "MCP error <code>: " prefix). */
function fromSdkError(err: unknown): unknown {
  if (err instanceof McpError) {
    return fromJsonRpcError({
      code: err.code,
      message: err.message.replace(/^MCP error -?\d+: /, ''),
      data: err.data,
    });
  }
  return err;
}

/** Whether the SDK refused a reply for its shape (a zod error), not the peer or the wire. */
function isSchemaError(err: unknown): boolean {
  return err instanceof Error && (err.name === 'ZodError' || err.name === '$ZodError');
}
