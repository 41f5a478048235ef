/**
 * The closed set of protocol error codes. Each binding owns a pure table that maps these to its wire
 * (JSON-RPC code, HTTP status, gRPC status, Webtools error code); core never speaks a wire format.
 */
export type ErrorCode =
  | 'parse_error'
  | 'invalid_request'
  | 'method_not_found'
  | 'tool_not_found'
  | 'invalid_params'
  | 'promise_not_found'
  | 'promise_expired'
  | 'cancelled'
  | 'deadline_exceeded'
  | 'unauthenticated'
  | 'forbidden'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'method_not_allowed'
  | 'resource_exhausted'
  | 'unavailable'
  | 'internal';

/** Every code, for exhaustive mapping tables and tests. */
export const ERROR_CODES: readonly ErrorCode[] = [
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
  'unavailable',
  'internal',
];

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

/** True for the errors an AbortSignal produces (DOMException AbortError / TimeoutError). */
export function isAbortError(err: unknown): boolean {
  return (
    typeof err === 'object' &&
    err !== null &&
    ((err as { name?: unknown }).name === 'AbortError' || (err as { name?: unknown }).name === 'TimeoutError')
  );
}
