import { type ListenOptions, listenNode, type NodeListening } from './adapters/node.js';
import { composeHandlers } from './bindings/common/compose.js';
import { type HostGuardOptions, isLoopbackHost, withHostGuard } from './bindings/common/host-guard.js';
import { createHttpBinding, type HttpBindingOptions } from './bindings/http/index.js';
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
}

/** A running server. */
export interface RunningServer {
  /** The HTTP listener. */
  http: NodeListening;
  /** Base URL of the HTTP listener. */
  url: string;
  /** Stops accepting, waits up to `graceMs` for in-flight calls, then aborts what is left and closes. */
  close(graceMs?: number): Promise<void>;
}

/** Serves a tool server over every binding it has on node:http. */
export async function serve(server: ToolServer, options: ServeOptions = {}): Promise<RunningServer> {
  const host = options.host ?? '127.0.0.1';
  let handler = composeHandlers(createHttpBinding(server, options), ...(options.extraHandlers ?? []));
  if (options.dnsRebindingProtection ?? isLoopbackHost(host)) handler = withHostGuard(handler, options);
  const http = await listenNode(handler, {
    ...options,
    host,
    onError: options.onError ?? ((err) => server.logger.error({ err }, 'unhandled error in a binding')),
  });
  let closing: Promise<void> | undefined;
  return {
    http,
    url: http.url,
    close(graceMs = 10_000) {
      closing ??= (async () => {
        const stopped = http.close();
        await server.drain(graceMs);
        await server.close();
        http.server.closeAllConnections();
        await stopped;
      })();
      return closing;
    },
  };
}
