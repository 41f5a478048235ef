import { composeHandlers } from './bindings/common/compose.js';
import { type CatalogSource, createDiscoveryHandler } from './bindings/common/discovery.js';
import { createHealthHandler, Readiness, type ReadinessCheck } from './bindings/common/health.js';
import { guardHosts, type HostGuardOptions } from './bindings/common/host-guard.js';
import { createProtectedResourceHandler } from './bindings/common/protected-resource.js';
import {
  createLegacySseBinding,
  type LegacySseHandler,
  type LegacySseOptions,
} from './bindings/mcp/legacy-sse/index.js';
import { pickProtocolOptions } from './bindings/mcp/protocol.js';
import { HANDSHAKE_REVISIONS, SUPPORTED_REVISIONS } from './bindings/mcp/revisions.js';
import {
  createMcpBinding,
  type McpBindingOptions,
  type McpHandler,
} from './bindings/mcp/streamable-http/index.js';
import { createMcpLiteHttpBinding, type McpLiteHttpBindingOptions } from './bindings/mcp-lite/http/index.js';
import { MCP_LITE_ERROR_WIRE } from './bindings/mcp-lite/wire.js';
import { createWebtoolsBinding, type WebtoolsBindingOptions } from './bindings/webtools/index.js';
import { modulesLoaded } from './core/deferred-modules.js';
import type { NeutralHandler } from './core/http.js';
import type { ToolServer } from './core/server.js';
import type { SessionStateStore } from './core/session-state.js';

/**
 * The one HTTP assembly of a server (docs/architecture.md, "One assembly"): every route a server answers over HTTP,
 * composed once and served the same on every runtime. `serve` (Node) puts its listeners, WebSocket upgrades and gRPC
 * around it; a Worker, Bun, Deno, Hono or a Next route handler serves it through `toFetchHandler`.
 */

/** Options of `createHandler`: one block per binding (`false` turns that binding off) and what they share. */
export interface HandlerOptions extends HostGuardOptions {
  /** MCP-lite over HTTP (+SSE): its base path (default `/mcp-lite/v1/`), body and batch bounds, heartbeat. */
  mcpLite?: McpLiteHttpBindingOptions | false;
  /** Full MCP over Streamable HTTP: its path (default `/mcp`), sessions, engine options and bounds. */
  mcp?: McpBindingOptions | false;
  /** Webtools: its base path (default `/webtools/`) and bounds. */
  webtools?: WebtoolsBindingOptions | false;
  /**
   * MCP's legacy HTTP+SSE transport (2024-11-05: `GET /sse`, `POST /messages`). Default on whenever `mcp` is; its
   * protocol options default to `mcp`'s, so it shares Streamable HTTP's MCP protocol object (engine, store).
   */
  legacySse?: LegacySseOptions | false;
  /** The largest request body every binding accepts, unless its own block says otherwise. Default 4 MiB. */
  maxBodyBytes?: number;
  /**
   * Where MCP sessions (Streamable HTTP and legacy SSE), their event logs, server-request waiters and task-resume
   * data live. Default: memory. Replicas given stores over one Redis serve each other's sessions. Not closed here.
   */
  sessionStore?: SessionStateStore;
  /**
   * Refuse requests whose Host or Origin is not allowed (DNS-rebinding protection; `allowedHosts`,
   * `allowedOrigins`). Default: on when `allowedHosts` is given. `serve` turns it on for loopback binds.
   */
  dnsRebindingProtection?: boolean;
  /** Answer `GET /healthz` and `GET /readyz` before any binding and without bearer auth. Default true. */
  health?: boolean;
  /** Whether this process can serve; decides `/readyz`. Default: always ready. */
  readiness?: ReadinessCheck;
  /** Handlers answered before the bindings, without their auth (e.g. Prometheus metrics). */
  before?: NeutralHandler[];
  /** More handlers to serve on the same origin, tried after every binding. */
  handlers?: NeutralHandler[];
  /**
   * The origin's AI Catalog at `/.well-known/ai-catalog.json` (docs/discovery.md): this server's card, the cards of
   * the assembled handlers among `before` and `handlers`, and the entries of `sources` (a gateway's upstreams).
   * `false` leaves that path to the handlers behind. Default on.
   */
  aiCatalog?: false | { sources?: readonly CatalogSource[] };
}

/** The assembled handler: a `NeutralHandler`, plus the parts a host needs to share or shut down. */
export interface AssembledHandler extends NeutralHandler {
  /** The MCP-lite HTTP binding, unless turned off (the inspector calls the server through it). */
  readonly mcpLite: NeutralHandler | undefined;
  /** The MCP Streamable HTTP binding, unless turned off; its engine is the one every MCP transport shares. */
  readonly mcp: McpHandler | undefined;
  /** The legacy HTTP+SSE transport, unless turned off. */
  readonly legacySse: LegacySseHandler | undefined;
  /** The readiness behind `/readyz` (the gRPC health service follows it). */
  readonly readiness: Readiness;
  /** Whether the Host/Origin guard is on. */
  readonly guarded: boolean;
  /** The AI Catalog entries this assembly serves (its card, those of the handlers composed in it). */
  readonly catalogEntries: CatalogSource['catalogEntries'];
  /** Ends every MCP session and stream this handler holds. */
  close(): void;
}

/**
 * Composes every HTTP route of `server` into one neutral handler: health and readiness, the OAuth protected
 * resource metadata (RFC 9728), MCP-lite HTTP (+SSE), Webtools, MCP Streamable HTTP, MCP's legacy HTTP+SSE, the
 * handlers given, all behind the Host/Origin guard when it is on. Nothing starts here: a Worker calls it at module
 * scope. Serve it with `toFetchHandler(createHandler(server))` (`mcplite/fetch`) or `serve` (`mcplite/node`).
 */
export function createHandler(server: ToolServer, options: HandlerOptions = {}): AssembledHandler {
  const bodyBound = options.maxBodyBytes !== undefined ? { maxBodyBytes: options.maxBodyBytes } : {};
  const store = options.sessionStore ? { sessionStore: options.sessionStore } : {};
  const mcpLite =
    options.mcpLite === false
      ? undefined
      : createMcpLiteHttpBinding(server, { ...bodyBound, ...options.mcpLite });
  const webtools =
    options.webtools === false
      ? undefined
      : createWebtoolsBinding(server, { ...bodyBound, ...options.webtools });
  const mcp =
    options.mcp === false ? undefined : createMcpBinding(server, { ...bodyBound, ...options.mcp, ...store });
  const legacySse =
    mcp === undefined || options.legacySse === false
      ? undefined
      : createLegacySseBinding(server, {
          ...bodyBound,
          // The same protocol options, so the same MCP protocol object as Streamable HTTP (`mcp/protocol.ts`).
          ...engineOptions(options.mcp),
          ...options.legacySse,
          ...store,
        });
  const readiness = new Readiness(options.readiness);
  const composed = [...(options.before ?? []), ...(options.handlers ?? [])].filter(isCatalogSource);
  const discovery = createDiscoveryHandler(
    server,
    {
      mcpPath: mcp === undefined ? undefined : (on(options.mcp)?.path ?? '/mcp'),
      mcpRevisions: SUPPORTED_REVISIONS,
      ssePath: legacySse === undefined ? undefined : (on(options.legacySse)?.ssePath ?? '/sse'),
      sseRevisions: HANDSHAKE_REVISIONS,
    },
    [...composed, ...(on(options.aiCatalog)?.sources ?? [])],
    options.aiCatalog !== false,
  );
  let handler = composeHandlers(
    ...[
      // First: cheap, and answered whatever the bindings' auth.
      options.health === false ? undefined : createHealthHandler(readiness),
      ...(options.before ?? []),
      // RFC 9728 metadata, which a client reads before it has a token (declines unless auth is OAuth).
      createProtectedResourceHandler(server),
      // Server Card and AI Catalog: public, read before connecting, like the metadata above.
      discovery.handler,
      mcpLite,
      webtools,
      mcp,
      legacySse,
      ...(options.handlers ?? []),
    ].filter((h): h is NeutralHandler => h !== undefined),
  );
  const guarded = options.dnsRebindingProtection ?? options.allowedHosts !== undefined;
  if (guarded) handler = withHostGuard(handler, options);
  handler = afterLoading(handler);
  return Object.assign(handler, {
    mcpLite,
    mcp,
    legacySse,
    readiness,
    guarded,
    catalogEntries: discovery.catalogEntries,
    close() {
      mcp?.close();
      legacySse?.close();
    },
  });
}

/**
 * Wraps a handler so that requests with a foreign Host or Origin get 403 before any binding sees them (DNS-rebinding
 * protection), answered with MCP-lite HTTP's tables (403, -32003), whose JSON-RPC body /mcp clients read too; a
 * Webtools client reads the status. `createHandler` puts it around the whole assembly when the guard is on.
 */
export function withHostGuard(handler: NeutralHandler, options: HostGuardOptions = {}): NeutralHandler {
  return guardHosts(handler, MCP_LITE_ERROR_WIRE, options);
}

/** A block's options when it is on (`false` and absent both give undefined). */
function on<T extends object>(block: T | false | undefined): T | undefined {
  return block === false ? undefined : block;
}

function isCatalogSource(handler: NeutralHandler): handler is NeutralHandler & CatalogSource {
  return typeof (handler as Partial<CatalogSource>).catalogEntries === 'function';
}

/**
 * The MCP protocol options among the MCP binding's (`PROTOCOL_KEYS`), for the server's other MCP transports: with the
 * same options they take the same protocol object (one engine, one set of flights and tasks).
 */
export function engineOptions(mcp: McpBindingOptions | false | undefined): LegacySseOptions {
  return mcp ? pickProtocolOptions(mcp) : {};
}

/**
 * `handler`, once the modules loaded on first need (the interpreting validator, the fallback hashes:
 * `core/deferred-modules.ts`) are in, so the synchronous paths of a request find them. Nothing is being loaded on
 * Node, nor on any runtime once the first request has waited: then a request goes straight through.
 */
function afterLoading(handler: NeutralHandler): NeutralHandler {
  return (request) => {
    const loaded = modulesLoaded();
    return loaded ? loaded.then(() => handler(request)) : handler(request);
  };
}
