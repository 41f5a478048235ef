import type { Server } from 'node:http';
import { type ListenOptions, listenNode, type NodeListening } from './adapters/node.js';
import { composeHandlers } from './bindings/common/compose.js';
import { Readiness } from './bindings/common/health.js';
import { type HostGuardOptions, isLoopbackHost, withHostGuard } from './bindings/common/host-guard.js';
import { createProtectedResourceHandler } from './bindings/common/protected-resource.js';
import type { GrpcListening } from './bindings/grpc/listen.js';
import { createMcpBinding, type McpBindingOptions, type McpHandler } from './bindings/mcp/index.js';
import {
  createLegacySseBinding,
  type LegacySseHandler,
  type LegacySseOptions,
} from './bindings/mcp/legacy-sse/index.js';
import { createMcpWsBinding, type McpWsOptions } from './bindings/mcp/ws/index.js';
import { normaliseBase } from './bindings/mcp-lite/http/base-path.js';
import { createHttpBinding, type HttpBindingOptions } from './bindings/mcp-lite/http/index.js';
import {
  createMcpLiteWsBinding,
  type McpLiteWsOptions,
  type WsEndpoint,
} from './bindings/mcp-lite/ws/index.js';
import { createWebtoolsBinding } from './bindings/webtools/index.js';
import type { NeutralHandler } from './core/http.js';
import type { ToolServer } from './core/server.js';
import type { SessionStateStore } from './core/session-state.js';
import type { Inspector, InspectorOptions } from './inspector/index.js';
import { loadOptional, MissingPeerError } from './optional-peers.js';
import { followReadiness, type OpsOptions, opsHandlers } from './serve-ops.js';

/** Options of `serve`: where to listen, the HTTP binding's options and the local-bind protection. */
export interface ServeOptions extends ListenOptions, HttpBindingOptions, HostGuardOptions, OpsOptions {
  /**
   * Check Host and Origin against the allowed lists (DNS-rebinding protection). Default: on when bound to a
   * loopback address, off otherwise.
   */
  dnsRebindingProtection?: boolean;
  /** More neutral handlers to serve on the same port (tried after the MCP-lite HTTP binding). */
  extraHandlers?: NeutralHandler[];
  /**
   * Also serve the MCP-lite gRPC binding (with reflection and health) on this port; 0 picks a free one.
   * Default: no gRPC (the CLI passes 50051). `maxBodyBytes` bounds its request messages (not its responses).
   */
  grpcPort?: number | false;
  /** Address the gRPC listener binds. Default: `host`. */
  grpcHost?: string;
  /** Where the full MCP binding (Streamable HTTP) lives; `false` turns it off. Default `/mcp`. */
  mcpPath?: string | false;
  /** Options of the MCP binding (sessions, page size, caching hints…). */
  mcp?: Omit<McpBindingOptions, 'path'>;
  /** Where MCP-lite over WebSocket lives; `false` turns it off. Default `<basePath>ws` (`/mcp-lite/v1/ws`). */
  wsPath?: string | false;
  /** Options of MCP-lite over WebSocket (message and buffer bounds, keepalive, connection bounds…). */
  ws?: Omit<McpLiteWsOptions, 'path'>;
  /**
   * MCP over WebSocket, an upgrade on `mcpPath` (subprotocol `mcp`): its bounds (as `ws`) and engine options
   * (default: those of `mcp`), or `false` for none. Default on whenever `mcpPath` is.
   */
  mcpWs?: Omit<McpWsOptions, 'path'> | false;
  /**
   * MCP's legacy HTTP+SSE transport (2024-11-05: `GET /sse`, `POST /messages?sessionId=…`): its paths and bounds
   * (engine options default to those of `mcp`), or `false` for none. Default on whenever `mcpPath` is.
   */
  legacySse?: LegacySseOptions | false;
  /**
   * Where the MCP sessions (Streamable HTTP and legacy HTTP+SSE), their event logs, server-request waiters and
   * task-resume data live. Default: a memory store per binding. Replicas given stores over the same Redis
   * (`RedisSessionStore`, same prefix) serve each other's sessions. `close` does not close it: its owner does.
   */
  sessionStore?: SessionStateStore;
  /** Where the Webtools binding lives (`<path><webtool>/`); `false` turns it off. Default `/webtools/`. */
  webtoolsPath?: string | false;
  /**
   * Mount the web inspector at `/inspector/` (or `path`), inspecting this server through its own MCP-lite HTTP
   * binding. Off by default; it answers loopback clients only unless `allowRemote` (docs/inspector.md).
   */
  inspector?: boolean | Omit<InspectorOptions, 'target' | 'selfBasePath' | 'requiresToken'>;
}

/** A listener that could not start (a port in use, an address not available): which binding, and where. */
export class ListenError extends Error {
  /** True when the port is taken (by another server, or another mcplite). */
  readonly inUse: boolean;

  constructor(
    /** The listener that failed: the HTTP one (MCP-lite HTTP and /mcp) or the gRPC one. */
    readonly binding: 'http' | 'grpc',
    readonly host: string,
    readonly port: number,
    cause: unknown,
  ) {
    const c = cause as { code?: string; message?: string } | undefined;
    // grpc-js reports a taken port only inside its message ("... EADDRINUSE ...").
    const inUse = c?.code === 'EADDRINUSE' || /EADDRINUSE/.test(c?.message ?? '');
    const reason = inUse ? 'the port is in use' : (c?.code ?? c?.message ?? String(cause));
    super(`${binding === 'grpc' ? 'gRPC' : 'HTTP'}: cannot listen on ${host}:${port}: ${reason}`, { cause });
    this.name = 'ListenError';
    this.inUse = inUse;
  }
}

/** A running server. */
export interface RunningServer {
  /** The HTTP listener. */
  http: NodeListening;
  /** Base URL of the HTTP listener. */
  url: string;
  /** The gRPC listener, when `grpcPort` was given. */
  grpc?: GrpcListening;
  /** MCP-lite over WebSocket, unless turned off. */
  ws?: WsEndpoint;
  /** MCP over WebSocket, unless turned off. */
  mcpWs?: WsEndpoint;
  /** MCP's legacy HTTP+SSE transport, unless turned off. */
  legacySse?: LegacySseHandler;
  /**
   * The inspector's URL with its per-run token (`…/inspector/?token=…`), when `inspector` is on: give it to the
   * operator only; the page answers no request that holds neither this token nor the cookie it is exchanged for.
   */
  inspectorUrl?: string;
  /** Stops accepting, waits up to `graceMs` for in-flight calls, then aborts what is left and closes. */
  close(graceMs?: number): Promise<void>;
}

/** Serves a tool server over every binding it has on node:http. */
export async function serve(server: ToolServer, options: ServeOptions = {}): Promise<RunningServer> {
  const host = options.host ?? '127.0.0.1';
  const mcp: McpHandler | undefined =
    options.mcpPath === false
      ? undefined
      : createMcpBinding(server, {
          maxBodyBytes: options.maxBodyBytes,
          ...options.mcp,
          ...(options.sessionStore ? { sessionStore: options.sessionStore } : {}),
          path: options.mcpPath ?? '/mcp',
        });
  const legacy: LegacySseHandler | undefined =
    options.mcpPath === false || options.legacySse === false
      ? undefined
      : createLegacySseBinding(server, {
          maxBodyBytes: options.maxBodyBytes,
          ...engineOptions(options.mcp),
          // One engine per server: every MCP transport answers with the same methods, tools and flights.
          ...(mcp ? { engine: mcp.engine } : {}),
          ...options.legacySse,
          ...(options.sessionStore ? { sessionStore: options.sessionStore } : {}),
        });
  const webtools =
    options.webtoolsPath === false
      ? []
      : [
          createWebtoolsBinding(server, {
            basePath: options.webtoolsPath ?? '/webtools/',
            ...(options.maxBodyBytes !== undefined ? { maxBodyBytes: options.maxBodyBytes } : {}),
            ...(options.heartbeatMs !== undefined ? { heartbeatMs: options.heartbeatMs } : {}),
          }),
        ];
  const httpBinding = createHttpBinding(server, options);
  const readiness = new Readiness(options.readiness);
  const ops = await opsHandlers(server, options, readiness);
  const inspector = options.inspector ? await inspectorFor(server, httpBinding, options) : undefined;
  let handler = composeHandlers(
    // First: cheap, and answered whatever the bindings' auth.
    ...ops,
    // RFC 9728 metadata, which a client reads before it has a token (declines unless auth is OAuth).
    createProtectedResourceHandler(server),
    httpBinding,
    ...webtools,
    ...(mcp ? [mcp] : []),
    ...(legacy ? [legacy] : []),
    ...(options.extraHandlers ?? []),
    // Last, so that it costs the bindings' requests nothing.
    ...(inspector ? [inspector.handler] : []),
  );
  const guarded = options.dnsRebindingProtection ?? isLoopbackHost(host);
  if (guarded) handler = withHostGuard(handler, options);
  const ws =
    options.wsPath === false
      ? undefined
      : createMcpLiteWsBinding(server, {
          maxMessageBytes: options.maxBodyBytes,
          maxBatchSize: options.maxBatchSize,
          checkHost: guarded,
          allowedHosts: options.allowedHosts,
          allowedOrigins: options.allowedOrigins,
          ...options.ws,
          path: options.wsPath ?? `${normaliseBase(options.basePath ?? '/mcp-lite/v1/')}ws`,
        });
  const mcpWs =
    options.mcpPath === false || options.mcpWs === false
      ? undefined
      : createMcpWsBinding(server, {
          maxMessageBytes: options.maxBodyBytes,
          checkHost: guarded,
          allowedHosts: options.allowedHosts,
          allowedOrigins: options.allowedOrigins,
          ...engineOptions(options.mcp),
          ...(mcp ? { engine: mcp.engine } : {}),
          ...options.mcpWs,
          path: options.mcpPath ?? '/mcp',
        });
  const endpoints = [ws, mcpWs].filter((e): e is WsEndpoint => e !== undefined);
  const http = await listenNode(handler, {
    ...options,
    host,
    ...(endpoints.length > 0
      ? { onUpgrade: (req, socket, head) => endpoints.some((e) => e.upgrade(req, socket, head)) }
      : {}),
    onError: options.onError ?? ((err) => server.logger.error({ err }, 'unhandled error in a binding')),
  }).catch((err: unknown) => {
    throw new ListenError('http', host, options.port ?? 0, err);
  });
  let grpc: GrpcListening | undefined;
  if (options.grpcPort !== undefined && options.grpcPort !== false) {
    try {
      // Loaded on demand, so HTTP-only servers do not pay for loading grpc-js and the protos.
      const { listenGrpc } = await loadOptional('grpc', () => import('./bindings/grpc/listen.js'));
      grpc = await listenGrpc(server, {
        port: options.grpcPort,
        host: options.grpcHost ?? host,
        // The body limit bounds what clients send; responses keep gRPC's own limit, as HTTP responses have none.
        ...(options.maxBodyBytes !== undefined ? { maxRequestBytes: options.maxBodyBytes } : {}),
        ...(options.maxConnections !== undefined ? { maxConnections: options.maxConnections } : {}),
      });
    } catch (err) {
      http.server.closeAllConnections();
      await http.close();
      if (err instanceof MissingPeerError) throw err;
      throw new ListenError('grpc', options.grpcHost ?? host, options.grpcPort, err);
    }
  }
  let closing: Promise<void> | undefined;
  const stopHealth =
    grpc?.health && readiness.checked ? followReadiness(grpc, readiness, options.readinessPollMs) : undefined;
  return {
    http,
    url: http.url,
    ...(grpc ? { grpc } : {}),
    ...(ws ? { ws } : {}),
    ...(mcpWs ? { mcpWs } : {}),
    ...(legacy ? { legacySse: legacy } : {}),
    ...(inspector ? { inspectorUrl: `${http.url}${inspector.entryPath}` } : {}),
    close(graceMs = 10_000) {
      closing ??= (async () => {
        const deadline = Date.now() + graceMs;
        stopHealth?.();
        const stopped = http.close();
        const grpcStopped = grpc?.close(graceMs);
        await server.drain(graceMs);
        // The calls are done; MCP session streams and WebSocket connections never end by themselves, so end them
        // before waiting below.
        mcp?.close();
        legacy?.close();
        const wsGrace = Math.max(0, Math.min(1000, deadline - Date.now()));
        await Promise.all(endpoints.map((e) => e.close(wsGrace)));
        // A call that just ended still has its response (the JSON body, the SSE `done`) to write: cutting the
        // connections now would lose it, so wait for open responses too, within the same grace period.
        await closeWhenIdle(http.server, stopped, deadline - Date.now());
        await server.close();
        http.server.closeAllConnections();
        // What is still open now (health watches, calls just aborted) is cut rather than waited for.
        grpc?.server.forceShutdown();
        await stopped;
        await grpcStopped;
      })();
      return closing;
    },
  };
}

/**
 * The inspector for `serve({ inspector })`: it calls this server through its own MCP-lite HTTP binding, in process,
 * so the page shows the real wire. Loaded on demand, so servers without it do not load it.
 */
async function inspectorFor(
  server: ToolServer,
  httpBinding: NeutralHandler,
  options: ServeOptions,
): Promise<Inspector> {
  const { createInspector } = await import('./inspector/index.js');
  const { createMcpLiteHttpTarget } = await import('./inspector/targets/mcp-lite-http.js');
  const { handlerTransport } = await import('./inspector/targets/transport.js');
  const basePath = options.basePath ?? '/mcp-lite/v1/';
  const extra = typeof options.inspector === 'object' ? options.inspector : {};
  return createInspector({
    ...(options.allowedHosts ? { allowedHosts: options.allowedHosts } : {}),
    ...extra,
    target: createMcpLiteHttpTarget({ transport: handlerTransport(httpBinding, basePath) }),
    selfBasePath: basePath,
    requiresToken: server.authenticate !== undefined,
  });
}

/**
 * Waits until the server has closed (`closed`), at most `withinMs`, closing each keep-alive connection as soon as
 * its response is written. node's closeIdleConnections() spares connections whose response is still being
 * written, so polling it costs requests nothing, unlike a per-response listener. A connection still sending its
 * request (a slow upload) is waited for too, within the same bound; the caller then cuts what is left.
 */
async function closeWhenIdle(http: Server, closed: Promise<void>, withinMs: number): Promise<void> {
  if (withinMs <= 0) return;
  let timer: NodeJS.Timeout | undefined;
  const poll = setInterval(() => http.closeIdleConnections(), IDLE_POLL_MS);
  const timeout = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, withinMs);
  });
  await Promise.race([closed, timeout]);
  clearInterval(poll);
  clearTimeout(timer);
}

/** The MCP engine's options among the MCP binding's: WebSocket connections serve the same tools the same way. */
function engineOptions(mcp: ServeOptions['mcp']): McpWsOptions & LegacySseOptions {
  if (!mcp) return {};
  const {
    pageSize,
    cacheTtlMs,
    instructions,
    nativeTools,
    tasksRequired,
    nativePrompts,
    serverRequestTimeoutMs,
  } = mcp;
  return {
    pageSize,
    cacheTtlMs,
    instructions,
    nativeTools,
    tasksRequired,
    nativePrompts,
    serverRequestTimeoutMs,
  };
}

/** How often a closing server looks for connections that have become idle. */
const IDLE_POLL_MS = 25;
