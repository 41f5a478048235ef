import type { ErrorCode, McpLiteError } from '../../core/errors.js';
import type { NeutralResponse } from '../../core/http.js';
import { unauthenticatedChallenge } from '../../core/oauth/challenge.js';
import type { JsonRpcId } from './jsonrpc.js';

/**
 * The HTTP pieces every HTTP binding answers with: content types, SSE headers, the bearer challenge, the
 * status of a lone JSON-RPC error, the whole-request error response, and the headers an error carries
 * (`Retry-After`, `WWW-Authenticate`).
 */

/** Media types. */
export const JSON_TYPE = 'application/json';
export const SSE_TYPE = 'text/event-stream';

/** Headers of a JSON body. Shared and never mutated: responses that add headers copy it. */
export const JSON_HEADERS: Readonly<Record<string, string>> = { 'content-type': JSON_TYPE };

/** Headers of an SSE stream: no caching, and no buffering by proxies (nginx reads `x-accel-buffering`). */
export const SSE_HEADERS: Readonly<Record<string, string>> = {
  'content-type': SSE_TYPE,
  'cache-control': 'no-cache, no-transform',
  'x-accel-buffering': 'no',
};

/**
 * The bare bearer challenge of a 401 that carries none of its own (core puts the challenge of an authentication
 * refusal in the error's data, `errorHeaders` turns it into the header).
 */
const BEARER_CHALLENGE = unauthenticatedChallenge(undefined, undefined);

/**
 * A JSON response (a JSON-RPC message serialised by the caller). A 401 always
 * carries a challenge, and a 413 closes the connection: the rest of an oversized body is never read.
 */
export function jsonHttpResponse(
  status: number,
  body: string,
  extraHeaders?: Record<string, string>,
): NeutralResponse {
  const headers: Record<string, string> = { ...JSON_HEADERS, ...extraHeaders };
  if (status === 401) headers['www-authenticate'] ??= BEARER_CHALLENGE;
  if (status === 413) headers.connection = 'close';
  return { status, headers, body };
}

/**
 * The HTTP status of a response whose one JSON-RPC message answers a lone request with this error, on MCP-lite
 * HTTP and on /mcp's handshake revisions alike: 200 for the errors of a request that reached its method (the
 * JSON-RPC code says what went wrong), the status of the problem for the envelope, authentication, size and
 * admission (401, 403, 413, 415, 429, 503), so that HTTP clients and proxies back off and retry on their own.
 */
export const MESSAGE_HTTP_STATUS: Readonly<Record<ErrorCode, number>> = {
  parse_error: 400,
  invalid_request: 400,
  method_not_found: 200,
  tool_not_found: 200,
  invalid_params: 200,
  promise_not_found: 200,
  promise_expired: 200,
  internal: 200,
  cancelled: 200,
  deadline_exceeded: 200,
  unauthenticated: 401,
  forbidden: 403,
  payload_too_large: 413,
  unsupported_media_type: 415,
  method_not_allowed: 405,
  resource_exhausted: 429,
  rate_limited: 429,
  unavailable: 503,
  resource_not_found: 200,
  session_not_found: 404,
  header_mismatch: 400,
  invalid_meta: 400,
  missing_capability: 400,
  unsupported_version: 400,
  prompt_not_found: 200,
  task_not_found: 200,
  webtool_not_found: 200,
  config_invalid: 200,
};

/**
 * How a protocol writes an error as an HTTP response: its status table and its JSON-RPC error body. What answers
 * before a binding is chosen (the host guard, a refused WebSocket upgrade) is given the wire of the protocol it
 * stands for, so that `common/` knows no protocol's tables.
 */
export interface ErrorWire {
  /** A JSON-RPC error response. */
  errorMessage(id: JsonRpcId | undefined, err: McpLiteError): string;
  /** The HTTP status of a whole-request error. */
  httpStatus: Readonly<Record<ErrorCode, number>>;
}

/** The answer to a POST that needs none (only notifications or responses). */
export function accepted(): NeutralResponse {
  return { status: 202, headers: {} };
}

/**
 * Whether the client asked for SSE: `Accept` names text/event-stream and prefers it to application/json
 * (names it first, or alone). MCP clients that accept both in the other order get JSON.
 */
export function wantsEventStream(accept: string | undefined): boolean {
  if (!accept) return false;
  const sse = accept.indexOf(SSE_TYPE);
  if (sse < 0) return false;
  const json = accept.indexOf(JSON_TYPE);
  return json < 0 || sse < json;
}

/**
 * The `Retry-After` header of a `rate_limited` refusal (RFC 9110 10.2.3: whole seconds), from the error's
 * `retryAfterMs`; at least 1 so that a client never retries in a tight loop.
 */
function retryAfter(retryAfterMs: unknown): Record<string, string> {
  const ms = typeof retryAfterMs === 'number' && Number.isFinite(retryAfterMs) ? retryAfterMs : 1000;
  return { 'retry-after': String(Math.max(1, Math.ceil(ms / 1000))) };
}

/**
 * `extra` plus, for a rate-limit refusal, its `Retry-After`, and for an authentication or scope refusal the
 * `WWW-Authenticate` challenge core put in its data (`core/oauth/challenge.ts`) and the `DPoP-Nonce` it asks the
 * client to use: the headers of an HTTP response
 * carrying `err`, the one place every HTTP binding reads the challenge from.
 */
export function errorHeaders(
  err: McpLiteError,
  extra?: Record<string, string>,
): Record<string, string> | undefined {
  if (err.code === 'rate_limited') return { ...extra, ...retryAfter(err.data?.retryAfterMs) };
  const challenge = err.data?.wwwAuthenticate;
  if (typeof challenge === 'string' && (err.code === 'unauthenticated' || err.code === 'forbidden')) {
    // A DPoP nonce the client must use in its next proof (RFC 9449 section 9) rides beside the challenge.
    const nonce = err.data?.dpopNonce;
    return {
      ...extra,
      'www-authenticate': challenge,
      ...(typeof nonce === 'string' ? { 'dpop-nonce': nonce } : {}),
    };
  }
  return extra;
}
