import type { Server } from 'node:http';
import { listenNode, type NodeListening } from './adapters/node.js';
import { isLoopbackHost } from './bindings/common/host-guard.js';
import type { GrpcListening } from './bindings/grpc/listen.js';
import type { LegacySseHandler } from './bindings/mcp/legacy-sse/index.js';
import { normaliseBase } from './bindings/mcp-lite/http/base-path.js';
import type { WsEndpoint } from './bindings/mcp-lite/ws/index.js';
import type { NeutralHandler } from './core/http.js';
import type { ToolServer } from './core/server.js';
import { createHandler, engineOptions } from './create-handler.js';
import type { Inspector } from './inspector/index.js';
import { loadOptional, MissingPeerError } from './optional-peers.js';
import { followReadiness, opsHandlers } from './serve-ops.js';
import { type ServeOptions, serveBlocks } from './serve-options.js';

export type { DeprecatedServeOptions, ServeOptions } from './serve-options.js';

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
  const blocks = serveBlocks(options);
  // The inspector calls this server through the MCP-lite binding the handler holds, so it is made after it.
  let inspectorHandler: NeutralHandler | undefined;
  const handler = createHandler(server, {
    ...blocks.handler,
    dnsRebindingProtection:
      options.dnsRebindingProtection ?? (isLoopbackHost(host) || options.allowedHosts !== undefined),
    before: await opsHandlers(server, { metrics: options.metrics }),
    // Last, so that it costs the bindings' requests nothing.
    handlers: [...(blocks.handler.handlers ?? []), (request) => inspectorHandler?.(request)],
  });
  const inspector =
    options.inspector && handler.mcpLite
      ? await inspectorFor(server, handler.mcpLite, blocks.handler.mcpLite || {}, options)
      : undefined;
  inspectorHandler = inspector?.handler;
  const guard = {
    checkHost: handler.guarded,
    allowedHosts: options.allowedHosts,
    allowedOrigins: options.allowedOrigins,
  };
  const mcp = handler.mcp;
  const legacy = handler.legacySse;
  // The WebSocket bindings (and the ws package under them) are loaded only by a server that serves them.
  const ws = blocks.ws
    ? (await import('./bindings/mcp-lite/ws/index.js')).createMcpLiteWsBinding(server, {
        ...blocks.ws,
        ...guard,
      })
    : undefined;
  const mcpWs =
    blocks.mcpWs && mcp
      ? (await import('./bindings/mcp/ws/index.js')).createMcpWsBinding(server, {
          // The same protocol options, so the same MCP protocol object as Streamable HTTP (`mcp/protocol.ts`).
          ...engineOptions(blocks.handler.mcp),
          ...blocks.mcpWs,
          ...guard,
        })
      : undefined;
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
  if (blocks.grpc) {
    try {
      // Loaded on demand, so HTTP-only servers do not pay for loading grpc-js and the protos.
      const { listenGrpc } = await loadOptional('grpc', () => import('./bindings/grpc/listen.js'));
      grpc = await listenGrpc(server, {
        ...blocks.grpc,
        // The body limit bounds what clients send; responses keep gRPC's own limit, as HTTP responses have none.
        ...(options.maxBodyBytes !== undefined ? { maxRequestBytes: options.maxBodyBytes } : {}),
        ...(options.maxConnections !== undefined ? { maxConnections: options.maxConnections } : {}),
      });
    } catch (err) {
      http.server.closeAllConnections();
      await http.close();
      if (err instanceof MissingPeerError) throw err;
      throw new ListenError('grpc', blocks.grpc.host ?? host, blocks.grpc.port ?? 0, err);
    }
  }
  let closing: Promise<void> | undefined;
  const readiness = handler.readiness;
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
        handler.close();
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
  mcpLite: { basePath?: string },
  options: ServeOptions,
): Promise<Inspector> {
  const { createInspector } = await import('./inspector/index.js');
  const { createMcpLiteHttpTarget } = await import('./inspector/targets/mcp-lite-http.js');
  const { handlerTransport } = await import('./inspector/targets/transport.js');
  const { serverResourceReader, serverToolMeta } = await import('./inspector/targets/own-server.js');
  const basePath = normaliseBase(mcpLite.basePath ?? '/mcp-lite/v1/');
  const extra = typeof options.inspector === 'object' ? options.inspector : {};
  return createInspector({
    ...(options.allowedHosts ? { allowedHosts: options.allowedHosts } : {}),
    logger: server.logger,
    ...extra,
    // MCP-lite carries no resources nor tools' `_meta.ui`: the server's own read (through its chain, as the page's
    // caller) and its catalog give the page the tools' MCP Apps views.
    target: createMcpLiteHttpTarget({
      transport: handlerTransport(httpBinding, basePath),
      readResource: serverResourceReader(server),
      toolMeta: serverToolMeta(server),
    }),
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

/** How often a closing server looks for connections that have become idle. */
const IDLE_POLL_MS = 25;
