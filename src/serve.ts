import type { Server } from 'node:http';
import { type ListenOptions, listenNode, type NodeListening } from './adapters/node.js';
import { composeHandlers } from './bindings/common/compose.js';
import { type HostGuardOptions, isLoopbackHost, withHostGuard } from './bindings/common/host-guard.js';
import type { GrpcListening } from './bindings/grpc/listen.js';
import { createHttpBinding, type HttpBindingOptions } from './bindings/http/index.js';
import { createMcpBinding, type McpBindingOptions, type McpHandler } from './bindings/mcp/index.js';
import type { NeutralHandler } from './core/http.js';
import type { ToolServer } from './core/server.js';

/** Options of `serve`: where to listen, the HTTP binding's options and the local-bind protection. */
export interface ServeOptions extends ListenOptions, HttpBindingOptions, HostGuardOptions {
  /**
   * Check Host and Origin against the allowed lists (DNS-rebinding protection). Default: on when bound to a
   * loopback address, off otherwise.
   */
  dnsRebindingProtection?: boolean;
  /** More neutral handlers to serve on the same port (tried after the MCP-lite HTTP binding). */
  extraHandlers?: NeutralHandler[];
  /**
   * Also serve the MCP-lite gRPC binding (with reflection and health) on this port; 0 picks a free one.
   * Default: no gRPC (the CLI passes 50051). Its message limit is `maxBodyBytes`.
   */
  grpcPort?: number | false;
  /** Address the gRPC listener binds. Default: `host`. */
  grpcHost?: string;
  /** Where the full MCP binding (Streamable HTTP) lives; `false` turns it off. Default `/mcp`. */
  mcpPath?: string | false;
  /** Options of the MCP binding (sessions, page size, caching hints…). */
  mcp?: Omit<McpBindingOptions, 'path'>;
}

/** A running server. */
export interface RunningServer {
  /** The HTTP listener. */
  http: NodeListening;
  /** Base URL of the HTTP listener. */
  url: string;
  /** The gRPC listener, when `grpcPort` was given. */
  grpc?: GrpcListening;
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
          path: options.mcpPath ?? '/mcp',
        });
  let handler = composeHandlers(
    createHttpBinding(server, options),
    ...(mcp ? [mcp] : []),
    ...(options.extraHandlers ?? []),
  );
  if (options.dnsRebindingProtection ?? isLoopbackHost(host)) handler = withHostGuard(handler, options);
  const http = await listenNode(handler, {
    ...options,
    host,
    onError: options.onError ?? ((err) => server.logger.error({ err }, 'unhandled error in a binding')),
  });
  let grpc: GrpcListening | undefined;
  if (options.grpcPort !== undefined && options.grpcPort !== false) {
    try {
      // Loaded on demand, so HTTP-only servers do not pay for loading grpc-js and the protos.
      const { listenGrpc } = await import('./bindings/grpc/listen.js');
      grpc = await listenGrpc(server, {
        port: options.grpcPort,
        host: options.grpcHost ?? host,
        ...(options.maxBodyBytes !== undefined ? { maxMessageBytes: options.maxBodyBytes } : {}),
      });
    } catch (err) {
      http.server.closeAllConnections();
      await http.close();
      throw err;
    }
  }
  let closing: Promise<void> | undefined;
  return {
    http,
    url: http.url,
    ...(grpc ? { grpc } : {}),
    close(graceMs = 10_000) {
      closing ??= (async () => {
        const deadline = Date.now() + graceMs;
        const stopped = http.close();
        const grpcStopped = grpc?.close(graceMs);
        await server.drain(graceMs);
        // The calls are done; MCP session streams never end by themselves, so end them before waiting below.
        mcp?.close();
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
