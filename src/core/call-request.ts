import type { Principal } from './auth.js';
import type { CompiledTool } from './catalog.js';
import type { ElicitationReply } from './elicitations.js';
import type { BindingName } from './operation.js';

/**
 * What the wire said about a call beyond its arguments, for tracing (`core/telemetry/`, docs/observability.md):
 * where its trace context is and how it came.
 */
export interface CallWire {
  /** The request's `params._meta` (SEP-414 carries `traceparent`, `tracestate` and `baggage` there). */
  readonly meta?: Readonly<Record<string, unknown>> | undefined;
  /**
   * The framing, when the binding's name does not tell it (MCP's one-connection framings: `mcp-stdio`, `mcp-ws`,
   * `mcp-sse`), for `network.transport` and `mcplite.transport`.
   */
  readonly transport?: string | undefined;
  /** The negotiated MCP revision (MCP only). */
  readonly protocolVersion?: string | undefined;
  /** The MCP session's id (MCP only). */
  readonly sessionId?: string | undefined;
}

/** One tool call as a binding hands it to core. */
export interface CallRequest {
  /** The tool's name. */
  name: string;
  /** The arguments; must be an object (undefined means `{}`). */
  arguments?: unknown;
  /**
   * Present when the call answers an elicitation: the signed state and the user's answers. When only some of
   * several requests are answered, the call ends in a new elicitation for the others and the handler does not run.
   */
  elicitation?: ElicitationReply;
  /** The authenticated caller. */
  principal?: Principal;
  /**
   * The peer's network address (IP, no port), when the binding knows it. With `principal`, it decides the caller
   * that per-caller quotas and rate limits count against (see `callerKey`).
   */
  remoteAddress?: string;
  /** Aborts the call (client hang-up, cancel, deadline: the abort reason says which). */
  signal?: AbortSignal;
  /** Set for streaming calls: receives each partial result. May return a promise for backpressure. */
  onPartial?: (data: unknown) => void | Promise<void>;
  /** The binding's request id, for logs. */
  requestId?: string | number;
  /**
   * Which binding the call came through, one name per binding (`op.caller.binding`, `ctx.binding`, logs and
   * metrics; `BindingName` lists them). Default `unknown`.
   */
  binding?: BindingName;
  /** The request's headers by lower-case name (gRPC metadata, the WebSocket upgrade's); none on stdio. */
  headers?: Readonly<Record<string, string | undefined>>;
  /** The config for `ctx.config`, already merged and checked (Webtools). Default: `webtools.configFor(name)`. */
  config?: Readonly<Record<string, unknown>>;
  /** The tool to run instead of the catalog's `name`: a pinned webtool version's own action. */
  action?: CompiledTool;
  /** What the wire said beyond the arguments (`_meta`, headers, framing), read by tracing only. */
  wire?: CallWire;
  /**
   * The caller's session token as the call carried it (MCP-lite `params._meta.session`, gRPC `mcplite-session`
   * metadata, MCP `params._meta["mcplite/session"]`); opened (and ignored when not genuine) by core/caller-session.ts.
   */
  session?: string | undefined;
}
