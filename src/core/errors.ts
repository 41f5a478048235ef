import type { Logger } from './logger.js';

/**
 * The closed set of protocol error codes, the one list they are defined in: the `ErrorCode` type is read from it.
 * Each binding owns pure `Record<ErrorCode, …>` tables in its `wire.ts` that map these to its wire (JSON-RPC code,
 * HTTP status, gRPC status), so adding a code here fails the build until every table maps it; core never speaks
 * a wire format. `resource_not_found` … `unsupported_version` are MCP's own (its transports and revisions), mapped by
 * the other wires to the nearest thing they have; the `*_not_found` and `config_invalid` codes after them refine a
 * general code (`invalid_params`, `method_not_found`) so that a wire with a code of its own for them (Webtools'
 * WEBTOOL_NOT_FOUND, CONFIG_ERROR) picks it from its table, by the code, never from `data`.
 */
export const ERROR_CODES = [
  'parse_error',
  'invalid_request',
  'method_not_found',
  'tool_not_found',
  'invalid_params',
  'promise_not_found',
  'promise_expired',
  'cancelled',
  'deadline_exceeded',
  'unauthenticated',
  'forbidden',
  'payload_too_large',
  'unsupported_media_type',
  'method_not_allowed',
  'resource_exhausted',
  /** The caller's token bucket is empty (per-caller rate limiting); `data.retryAfterMs` says when to retry. */
  'rate_limited',
  'unavailable',
  'internal',
  /** A resource URI nothing serves (MCP `resources/read`). */
  'resource_not_found',
  /** An `Mcp-Session-Id` the server does not know (ended, expired, or never issued). */
  'session_not_found',
  /** A transport header that is missing or disagrees with the body (MCP 2026-07-28 routing headers). */
  'header_mismatch',
  /** The request's `_meta` declaration is missing or malformed (MCP 2026-07-28). */
  'invalid_meta',
  /** The client did not declare a capability the request needs (elicitation, an extension). */
  'missing_capability',
  /** The request names a protocol revision the server does not serve. */
  'unsupported_version',
  /** A prompt name the server does not have (MCP `prompts/get`, `completion/complete`; MCP-lite `prompts/get`). */
  'prompt_not_found',
  /** A task id the tasks extension does not know (MCP `tasks/*`). */
  'task_not_found',
  /** A webtool name or version the server does not publish (Webtools). */
  'webtool_not_found',
  /** A webtool's `config` that breaks its config schema (Webtools). */
  'config_invalid',
] as const;

/** One protocol error code (see `ERROR_CODES`). */
export type ErrorCode = (typeof ERROR_CODES)[number];

/** A code read from outside (a promise store shared with another version): itself when known, else `internal`. */
export function asErrorCode(code: string): ErrorCode {
  return (ERROR_CODES as readonly string[]).includes(code) ? (code as ErrorCode) : 'internal';
}

/**
 * The one error type of mcplite. `data` is sent to the client; `cause` is kept for the log only and never sent.
 */
export class McpLiteError extends Error {
  readonly code: ErrorCode;
  readonly data: Record<string, unknown> | undefined;

  constructor(
    code: ErrorCode,
    message: string,
    data?: Record<string, unknown>,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'McpLiteError';
    this.code = code;
    this.data = data;
  }
}

/**
 * Turns any throwable into an McpLiteError. Unknown throwables become `internal` with a generic message so that
 * no stack, path or secret leaks to a client; the original stays in `cause` for the server's log.
 */
export function toMcpLiteError(err: unknown): McpLiteError {
  if (err instanceof McpLiteError) return err;
  if (isAbortError(err))
    return new McpLiteError('cancelled', 'The call was cancelled', undefined, { cause: err });
  return new McpLiteError('internal', 'Internal error', undefined, { cause: err });
}

/** Internal errors already logged: a handler's failure is logged by core and must not be logged again by a binding. */
const logged = new WeakSet<object>();

/**
 * Logs an internal error once, with its cause (never sent to the client): the one place internal errors are
 * logged. Core calls it for a failing handler, every binding for whatever it answers with `internal`; an error
 * already logged is not logged again.
 */
export function logInternal(
  logger: Pick<Logger, 'error'>,
  err: McpLiteError,
  fields?: Record<string, unknown>,
  message = 'internal error',
): void {
  if (logged.has(err)) return;
  logged.add(err);
  logger.error({ ...fields, err: err.cause ?? err }, message);
}

/** True for the errors an AbortSignal produces (DOMException AbortError / TimeoutError). */
export function isAbortError(err: unknown): boolean {
  return (
    typeof err === 'object' &&
    err !== null &&
    ((err as { name?: unknown }).name === 'AbortError' || (err as { name?: unknown }).name === 'TimeoutError')
  );
}
