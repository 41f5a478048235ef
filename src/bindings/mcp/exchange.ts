import type { Principal } from '../../core/auth.js';
import type { BindingName } from '../../core/operation.js';
import type { McpSession } from './sessions.js';

/**
 * One request as the MCP engine sees it: what the request declared, and how to reach the client while it runs.
 * Each framing makes its own (Streamable HTTP: `HttpExchange`; stdio: a plain object over the connection).
 */
export interface Exchange {
  /** The revision in effect. */
  revision: string;
  /** True on the stateless revision (2026-07-28). */
  stateless: boolean;
  /** What the client declared it can do. */
  clientCapabilities: Record<string, unknown>;
  /** The threshold for `notifications/message`; undefined sends none. */
  logLevel: string | undefined;
  /** The session, on a handshake revision that has one. */
  session: McpSession | undefined;
  /** The authenticated caller. */
  principal: Principal | undefined;
  /** The peer's address, when the transport knows it (per-caller quotas of unauthenticated callers). */
  readonly remoteAddress: string | undefined;
  /** The request's headers (the POST's, the WebSocket upgrade's, the legacy SSE GET's); none on stdio. */
  readonly headers?: Readonly<Record<string, string | undefined>> | undefined;
  /** The binding's one name (`op.caller.binding`): `mcp` (the default), or `draft` for the draft-seed dialect. */
  readonly binding?: BindingName | undefined;
  /**
   * The one-connection framing's name (`mcp-stdio`, `mcp-ws`, `mcp-sse`); unset on Streamable HTTP. Tracing reads
   * it (`mcplite.transport`, `network.transport`).
   */
  readonly framing?: string | undefined;
  /** Aborts when the client goes away. */
  signal: AbortSignal;
  /** Whether `notify` reaches the client (SSE accepted, or stdio). */
  canNotify: boolean;
  /** Sends a notification tied to this request; resolves when the transport took it. */
  notify(message: Record<string, unknown>): Promise<void>;
  /**
   * Shows the client that a request that waits long is alive (Streamable HTTP: an SSE comment on the request's
   * stream, opened for it); transports whose connection stays open anyway have none.
   */
  keepAlive?(): void;
  /** Sends a request to the client and resolves with its result (handshake revisions on a stream). */
  request: ((method: string, params: Record<string, unknown>) => Promise<unknown>) | undefined;
  /**
   * Ends the request with its final message (a result or an error response) and the HTTP status it would have
   * alone, plus the headers that go with that status (`Retry-After` of a rate-limit refusal). Called once, by the
   * JSON-RPC loop.
   */
  finish(status: number, message: string, headers?: Record<string, string>): void;
  /**
   * Lets go of what the exchange holds for the connection (stdio: its signal's link), for a batch member, whose
   * answer goes into the batch rather than through `finish`. Called once, by the JSON-RPC loop.
   */
  release?(): void;
}

/** What the JSON-RPC loop settled about a request before its framing makes the exchange. */
export interface ExchangeInit {
  revision: string;
  stateless: boolean;
  clientCapabilities: Record<string, unknown>;
  logLevel: string | undefined;
  session: McpSession | undefined;
  /** True for a member of a batch: its answer goes into the batch's array, so it cannot become a stream. */
  batched: boolean;
}
