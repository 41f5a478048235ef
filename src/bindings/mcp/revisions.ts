import { McpLiteError } from '../../core/errors.js';

/**
 * Protocol revisions and their negotiation. The handshake revisions negotiate once with `initialize`; the
 * stateless revision (2026-07-28) carries the version and the client's capabilities in every request's `_meta`
 * and in the `MCP-Protocol-Version` header, which must agree.
 */

/** Revisions that open with `initialize` / `notifications/initialized`. Oldest first. */
export const HANDSHAKE_REVISIONS = ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25'] as const;
/** The stateless revision. */
export const STATELESS_REVISION = '2026-07-28';
/** Every revision served, oldest first. */
export const SUPPORTED_REVISIONS: readonly string[] = [...HANDSHAKE_REVISIONS, STATELESS_REVISION];
/** What `initialize` answers when the client asks for a revision it does not know. */
export const LATEST_HANDSHAKE_REVISION = '2025-11-25';

/**
 * The revision of a handshake-revision request that names none: no session, and no `MCP-Protocol-Version` header
 * (or, on stdio, a `ping` before `initialize`). The Streamable HTTP transport (2025-06-18 and later) says a server
 * that cannot tell the version otherwise SHOULD assume 2025-03-26, the revision before the header existed; stdio
 * follows the same rule so that a message is read the same way over either framing.
 */
export const DEFAULT_REVISION = '2025-03-26';
/** Revisions that allow JSON-RPC batches: 2025-03-26 added them, 2024-11-05 tolerated them, later ones removed them. */
export const BATCH_REVISIONS: ReadonlySet<string> = new Set(['2024-11-05', '2025-03-26']);

/** `_meta` keys of the stateless revision. */
export const META = {
  protocolVersion: 'io.modelcontextprotocol/protocolVersion',
  clientCapabilities: 'io.modelcontextprotocol/clientCapabilities',
  clientInfo: 'io.modelcontextprotocol/clientInfo',
  logLevel: 'io.modelcontextprotocol/logLevel',
  serverInfo: 'io.modelcontextprotocol/serverInfo',
  subscriptionId: 'io.modelcontextprotocol/subscriptionId',
  relatedTask: 'io.modelcontextprotocol/related-task',
} as const;

/** Whether a revision uses the initialize handshake. */
export function isHandshakeRevision(version: unknown): version is string {
  return typeof version === 'string' && (HANDSHAKE_REVISIONS as readonly string[]).includes(version);
}

/** The revision `initialize` settles on: the client's when served, else the latest handshake revision. */
export function negotiateHandshake(requested: unknown): string {
  return isHandshakeRevision(requested) ? requested : LATEST_HANDSHAKE_REVISION;
}

/** What a stateless request declares about itself. */
export interface StatelessDeclaration {
  version: string;
  clientCapabilities: Record<string, unknown>;
  clientInfo: unknown;
  logLevel: string | undefined;
}

/**
 * Checks the per-request declaration of the stateless revision: `_meta` with the protocol version and the
 * client capabilities (-32602 when missing), the `MCP-Protocol-Version` header (-32020 when absent or not equal
 * to `_meta`), and the version itself (-32022 with the supported list when not served). `header` is undefined
 * on stdio, which has no headers.
 */
export function checkStateless(
  params: Record<string, unknown> | undefined,
  header: string | undefined,
  headerRequired: boolean,
): StatelessDeclaration {
  const meta = params?._meta;
  if (typeof meta !== 'object' || meta === null || Array.isArray(meta)) {
    throw new McpLiteError(
      'invalid_meta',
      'Invalid params: missing _meta (protocol version and client capabilities)',
    );
  }
  const m = meta as Record<string, unknown>;
  // Both present is the rule; the list of what is missing is built only for the error (this runs per request).
  if (m[META.protocolVersion] === undefined || m[META.clientCapabilities] === undefined) {
    const missing = [META.protocolVersion, META.clientCapabilities].filter((k) => m[k] === undefined);
    throw new McpLiteError('invalid_meta', `Invalid params: missing _meta keys: ${missing.join(', ')}`);
  }
  const version = m[META.protocolVersion];
  if (headerRequired && header === undefined) {
    throw new McpLiteError('header_mismatch', 'Header mismatch: the MCP-Protocol-Version header is missing');
  }
  if (header !== undefined && header !== version) {
    throw new McpLiteError(
      'header_mismatch',
      'Header mismatch: MCP-Protocol-Version does not match _meta protocolVersion',
    );
  }
  if (version !== STATELESS_REVISION) {
    throw new McpLiteError('unsupported_version', 'Unsupported protocol version', {
      supported: [STATELESS_REVISION],
      requested: String(version),
    });
  }
  const caps = m[META.clientCapabilities];
  if (typeof caps !== 'object' || caps === null || Array.isArray(caps)) {
    throw new McpLiteError('invalid_meta', 'Invalid params: _meta clientCapabilities must be an object');
  }
  const level = m[META.logLevel];
  return {
    version,
    clientCapabilities: caps as Record<string, unknown>,
    clientInfo: m[META.clientInfo],
    logLevel: typeof level === 'string' ? level : undefined,
  };
}
