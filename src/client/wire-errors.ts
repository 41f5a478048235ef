import { type ErrorCode, McpLiteError } from '../core/errors.js';

// The inverse of the servers' JSON-RPC table (src/bindings/common/jsonrpc.ts), plus MCP's own codes.
const BY_JSON_RPC: Readonly<Record<number, ErrorCode>> = {
  [-32700]: 'parse_error',
  [-32600]: 'invalid_request',
  [-32601]: 'method_not_found',
  [-32602]: 'invalid_params',
  [-32603]: 'internal',
  [-32800]: 'cancelled',
  [-32001]: 'deadline_exceeded',
  // MCP-lite's unauthenticated, MCP's (handshake) resource-not-found, told apart below by `data.uri`.
  [-32002]: 'unauthenticated',
  [-32010]: 'unauthenticated',
  [-32003]: 'forbidden',
  [-32004]: 'resource_exhausted',
  // Servers before -32603 (with data.reason) answered unavailable so.
  [-32005]: 'unavailable',
  [-32029]: 'resource_exhausted',
  [-32020]: 'header_mismatch',
  [-32021]: 'missing_capability',
  [-32022]: 'unsupported_version',
};

/** A JSON-RPC error object (MCP-lite HTTP, MCP) as an McpLiteError, with its code and data kept. */
export function fromJsonRpcError(error: unknown): McpLiteError {
  const e = (typeof error === 'object' && error !== null ? error : {}) as {
    code?: unknown;
    message?: unknown;
    data?: unknown;
  };
  const data = isRecord(e.data) ? e.data : undefined;
  let code: ErrorCode = typeof e.code === 'number' ? (BY_JSON_RPC[e.code] ?? 'internal') : 'internal';
  // MCP answers an unknown tool with -32602 (the tool name is a parameter of tools/call), MCP-lite with -32601:
  // the `requested_tool` the server names makes both the one error a caller branches on.
  if ((code === 'method_not_found' || code === 'invalid_params') && data && 'requested_tool' in data)
    code = 'tool_not_found';
  // A resource read's "not found" shares its wire code (-32002 on handshake MCP, -32602 on stateless) with
  // other errors; the `uri` the server names in `data` tells it apart.
  if ((code === 'unauthenticated' || code === 'invalid_params') && typeof data?.uri === 'string')
    code = 'resource_not_found';
  if (code === 'invalid_params' && data?.reason === 'prompt_not_found') code = 'prompt_not_found';
  if (code === 'invalid_params' && data?.reason === 'unknown') code = 'promise_not_found';
  if (code === 'invalid_params' && data?.reason === 'expired') code = 'promise_expired';
  if (code === 'internal' && data?.reason === 'unavailable') code = 'unavailable';
  const message = typeof e.message === 'string' ? e.message : 'Error';
  return new McpLiteError(code, message, {
    ...data,
    ...(typeof e.code === 'number' ? { wire_code: e.code } : {}),
  });
}

/** An HTTP status without a usable body, as an McpLiteError. */
export function fromHttpStatus(status: number, text: string): McpLiteError {
  const code: ErrorCode =
    status === 401
      ? 'unauthenticated'
      : status === 403
        ? 'forbidden'
        : status === 404
          ? 'method_not_found'
          : status === 405
            ? 'method_not_allowed'
            : status === 413
              ? 'payload_too_large'
              : status === 415
                ? 'unsupported_media_type'
                : status === 429
                  ? 'resource_exhausted'
                  : status === 503
                    ? 'unavailable'
                    : status >= 500
                      ? 'internal'
                      : 'invalid_request';
  return new McpLiteError(code, `HTTP ${status}${text ? `: ${text.slice(0, 200)}` : ''}`, {
    http_status: status,
  });
}

/** The error an aborted call ends in: `deadline_exceeded` for a timeout, else `cancelled`. */
export function abortError(signal: AbortSignal | undefined, extra?: Record<string, unknown>): McpLiteError {
  const reason = signal?.reason as { name?: string } | undefined;
  if (reason instanceof McpLiteError) return reason;
  return reason?.name === 'TimeoutError'
    ? new McpLiteError('deadline_exceeded', 'The call timed out', extra)
    : new McpLiteError('cancelled', 'The call was cancelled', extra);
}

/** Error codes of a server that could not be reached (connect, resolve, spawn). */
const UNREACHABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EPIPE',
  'ENOENT',
  'EACCES',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_SOCKET',
]);

/**
 * Why a server could not be reached, as one line (`connect ECONNREFUSED 127.0.0.1:3000`, `getaddrinfo ENOTFOUND
 * example.invalid`, `self-signed certificate`), or undefined when `err` is not a failure to reach it: fetch's
 * "fetch failed" is read through its cause, and an error with a connection error code stands for itself.
 */
export function unreachableCause(err: unknown): string | undefined {
  const e = err as { message?: unknown; code?: unknown; cause?: unknown } | undefined;
  if (err instanceof TypeError && e?.message === 'fetch failed')
    return describeCause(e.cause) ?? 'fetch failed';
  if (typeof e?.code === 'string' && UNREACHABLE_CODES.has(e.code)) return describeCause(err);
  return undefined;
}

function describeCause(cause: unknown): string | undefined {
  if (!(cause instanceof Error)) return cause === undefined ? undefined : String(cause);
  const errors = (cause as { errors?: unknown }).errors;
  const message =
    cause.message ||
    (Array.isArray(errors) ? [...new Set(errors.map((e) => (e as Error)?.message))].join('; ') : '');
  const code = (cause as { code?: unknown }).code;
  return (message || (typeof code === 'string' ? code : cause.name)).split('\n')[0]!.trim();
}

/**
 * The error for a server that could not be reached: `unavailable`, data `{ reason: "unreachable", cause }` and,
 * once the client adds it, the `target`.
 */
export function unreachableError(cause: string, target?: string, err?: unknown): McpLiteError {
  return new McpLiteError(
    'unavailable',
    `Cannot reach ${target ?? 'the server'}: ${cause}`,
    { reason: 'unreachable', cause, ...(target !== undefined ? { target } : {}) },
    err === undefined ? undefined : { cause: err },
  );
}

/** An error for `target`: an unreachable server's error names it (other errors are returned as they are). */
export function locate(err: McpLiteError, target: string): McpLiteError {
  const data = err.data;
  if (data?.reason !== 'unreachable' || data.target !== undefined || typeof data.cause !== 'string')
    return err;
  return unreachableError(data.cause, target, err.cause ?? err);
}

/** Any error of a wire exchange as an McpLiteError (network errors become `unavailable`). */
export function toClientError(err: unknown, signal?: AbortSignal): McpLiteError {
  if (err instanceof McpLiteError) return err;
  if (signal?.aborted) return abortError(signal);
  const unreachable = unreachableCause(err);
  if (unreachable !== undefined) return unreachableError(unreachable, undefined, err);
  const message = err instanceof Error ? err.message : String(err);
  const cause = (err as { cause?: { code?: string; message?: string } })?.cause;
  return new McpLiteError(
    'unavailable',
    cause?.code ? `${message} (${cause.code}${cause.message ? `: ${cause.message}` : ''})` : message,
    undefined,
    { cause: err },
  );
}

/** True for a plain JSON object. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
