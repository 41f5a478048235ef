import type { ListenOptions } from './adapters/node.js';
import type { GrpcListenOptions } from './bindings/grpc/listen.js';
import type { McpWsOptions } from './bindings/mcp/ws/index.js';
import { normaliseBase } from './bindings/mcp-lite/http/base-path.js';
import type { McpLiteWsOptions } from './bindings/mcp-lite/ws/index.js';
import type { NeutralHandler } from './core/http.js';
import type { HandlerOptions } from './create-handler.js';
import type { InspectorOptions } from './inspector/index.js';
import type { OpsOptions } from './serve-ops.js';

/**
 * The options of `serve`: `createHandler`'s (one block per binding), the Node listener's, and what only a Node
 * process serves (WebSocket upgrades, gRPC, Prometheus metrics, the inspector). The flat names of the first
 * release (`basePath`, `mcpPath`, `grpcPort`, …) still work for one release and map to the blocks.
 */
export interface ServeOptions extends ListenOptions, HandlerOptions, OpsOptions, DeprecatedServeOptions {
  /**
   * Check Host and Origin against the allowed lists (DNS-rebinding protection). Default: on when bound to a
   * loopback address or when `allowedHosts` is given, off otherwise.
   */
  dnsRebindingProtection?: boolean;
  /**
   * MCP-lite gRPC (with reflection and health) on its own port (`port` 0 picks a free one; `host` defaults to the
   * HTTP host). Default: no gRPC (the CLI asks for 50051). `maxBodyBytes` bounds its request messages.
   */
  grpc?: Pick<GrpcListenOptions, 'port' | 'host'> | false;
  /** MCP-lite over WebSocket (default at `<mcpLite.basePath>ws`, `/mcp-lite/v1/ws`), or `false` for none. */
  ws?: McpLiteWsOptions | false;
  /**
   * MCP over WebSocket, an upgrade on the MCP path (subprotocol `mcp`): its bounds and engine options (default:
   * those of `mcp`), or `false` for none. Default on whenever `mcp` is.
   */
  mcpWs?: McpWsOptions | false;
  /**
   * Mount the web inspector at `/inspector/` (or `path`), inspecting this server through its own MCP-lite HTTP
   * binding. Off by default; it answers loopback clients only unless `allowRemote` (docs/inspector.md).
   */
  inspector?: boolean | Omit<InspectorOptions, 'target' | 'selfBasePath' | 'requiresToken'>;
}

/** The flat option names of the first release, each kept for one release beside the block it moved to. */
export interface DeprecatedServeOptions {
  /** @deprecated Use `mcpLite: { basePath }`. */
  basePath?: string;
  /** @deprecated Use `mcpLite: { heartbeatMs }` and `webtools: { heartbeatMs }`. */
  heartbeatMs?: number;
  /** @deprecated Use `mcpLite: { maxBatchSize }`. */
  maxBatchSize?: number;
  /** @deprecated Use `mcp: { path }`, or `mcp: false`. */
  mcpPath?: string | false;
  /** @deprecated Use `webtools: { basePath }`, or `webtools: false`. */
  webtoolsPath?: string | false;
  /** @deprecated Use `ws: { path }`, or `ws: false`. */
  wsPath?: string | false;
  /** @deprecated Use `grpc: { port }`, or `grpc: false`. */
  grpcPort?: number | false;
  /** @deprecated Use `grpc: { host }`. */
  grpcHost?: string;
  /** @deprecated Use `handlers`. */
  extraHandlers?: NeutralHandler[];
}

/** Each binding's block as `serve` builds it: the flat names folded in, and what the blocks share filled in. */
export interface ServeBlocks {
  handler: HandlerOptions;
  grpc: Pick<GrpcListenOptions, 'port' | 'host'> | undefined;
  ws: McpLiteWsOptions | undefined;
  mcpWs: McpWsOptions | undefined;
}

/** Folds the deprecated flat names into their blocks (a block's own value wins) and drops what is turned off. */
export function serveBlocks(options: ServeOptions): ServeBlocks {
  const mcpOff = options.mcp === false || options.mcpPath === false;
  const heartbeat = options.heartbeatMs !== undefined ? { heartbeatMs: options.heartbeatMs } : {};
  const mcpLite =
    options.mcpLite === false
      ? false
      : {
          ...heartbeat,
          ...(options.basePath !== undefined ? { basePath: options.basePath } : {}),
          ...(options.maxBatchSize !== undefined ? { maxBatchSize: options.maxBatchSize } : {}),
          ...options.mcpLite,
        };
  const mcp = mcpOff
    ? false
    : { ...(typeof options.mcpPath === 'string' ? { path: options.mcpPath } : {}), ...options.mcp };
  const webtools =
    options.webtools === false || options.webtoolsPath === false
      ? false
      : {
          ...heartbeat,
          ...(typeof options.webtoolsPath === 'string' ? { basePath: options.webtoolsPath } : {}),
          ...options.webtools,
        };
  const handlers = [...(options.extraHandlers ?? []), ...(options.handlers ?? [])];
  const grpcPort = options.grpc === false ? false : (options.grpc?.port ?? options.grpcPort);
  const grpc =
    grpcPort === undefined || grpcPort === false
      ? undefined
      : { port: grpcPort, ...(options.grpc ? options.grpc : {}), host: grpcHost(options) };
  const wsOff = options.ws === false || options.wsPath === false;
  const basePath = normaliseBase(on(mcpLite)?.basePath || '/mcp-lite/v1/');
  const ws = wsOff
    ? undefined
    : {
        maxMessageBytes: options.maxBodyBytes,
        maxBatchSize: options.maxBatchSize,
        ...on(options.ws),
        path: on(options.ws)?.path ?? (typeof options.wsPath === 'string' ? options.wsPath : `${basePath}ws`),
      };
  const mcpWs =
    mcp === false || options.mcpWs === false
      ? undefined
      : {
          maxMessageBytes: options.maxBodyBytes,
          ...on(options.mcpWs),
          path: on(options.mcpWs)?.path ?? mcp.path ?? '/mcp',
        };
  return {
    handler: { ...options, mcpLite, mcp, webtools, handlers },
    grpc,
    ws,
    mcpWs,
  };
}

function grpcHost(options: ServeOptions): string {
  return on(options.grpc)?.host || options.grpcHost || options.host || '127.0.0.1';
}

/** A block's options when it is on (`false` and absent both give undefined). */
function on<T extends object>(block: T | false | undefined): T | undefined {
  return block === false ? undefined : block;
}
