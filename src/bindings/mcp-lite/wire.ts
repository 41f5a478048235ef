import type { ErrorCode, McpLiteError } from '../../core/errors.js';
import type { CallResult } from '../../core/outcomes.js';
import type { ErrorWire } from '../common/http-reply.js';
import { isoTime } from '../common/iso-time.js';
import { errorMessage, type JsonRpcErrorObject, type JsonRpcId, toJsonRpcError } from '../common/jsonrpc.js';
import { type JsonResponseMeta, jsonMeta, resultFields } from '../common/mcp-lite-result.js';

/**
 * The MCP-lite HTTP result object of a call (documented in docs/wire-format.md): the shared result fields of its
 * outcome (`resultFields`: `content`, `failure`, `elicitation` or `resource_request`; nothing for a promise) and
 * `_meta` with ISO-8601 times (as spec A.2 and A.3).
 */
export function toWireResult({ outcome, meta }: CallResult): Record<string, unknown> {
  // resultFields makes a new object each time: adding to it spares a spread (slow on Node 20).
  const fields = resultFields(outcome);
  const json: JsonResponseMeta & { session?: string } = jsonMeta(meta);
  // The caller's session (MCP-lite context): the client sends it back as `params._meta.session`.
  if (meta.session !== undefined) json.session = meta.session;
  fields._meta = json;
  return fields;
}

/**
 * `JSON.stringify(toWireResult(result))`, with answers (nearly every call) written around the stringified result
 * by hand: their `_meta` holds three strings and a number, which a template writes in a fraction of the time
 * a generic stringify takes. The text is exactly what JSON.stringify gives (wire.test.ts holds it to that).
 */
export function wireResultJson(result: CallResult): string {
  const { outcome, meta } = result;
  if (outcome.type === 'answer' && meta.promise_token === undefined && meta.session === undefined) {
    const content = JSON.stringify(outcome.result);
    // undefined (nothing to write, a function…) leaves the key out in JSON.stringify; the generic path does that.
    if (content !== undefined) {
      return (
        `{"content":${content},"_meta":{"response_type":"answer","timestamp":"${isoTime(meta.timestamp)}",` +
        `"processing_time_ms":${JSON.stringify(meta.processing_time_ms)},` +
        `"server_version":${JSON.stringify(meta.server_version)}}}`
      );
    }
  }
  return JSON.stringify(toWireResult(result));
}

/** The JSON-RPC code of each error code on MCP-lite HTTP (spec 4.4; MCP's own codes map to the nearest). */
export const JSON_RPC_CODE: Readonly<Record<ErrorCode, number>> = {
  parse_error: -32700,
  invalid_request: -32600,
  method_not_found: -32601,
  tool_not_found: -32601,
  invalid_params: -32602,
  promise_not_found: -32602,
  promise_expired: -32602,
  internal: -32603,
  cancelled: -32800,
  deadline_exceeded: -32001,
  unauthenticated: -32002,
  forbidden: -32003,
  payload_too_large: -32600,
  unsupported_media_type: -32600,
  method_not_allowed: -32600,
  resource_exhausted: -32004,
  // In the implementation-defined server-error range; a lone request refused so is answered 429 + Retry-After.
  rate_limited: -32029,
  // The issue and the spec's table: -32603, told apart from `internal` by data.reason (toJsonRpcError).
  unavailable: -32603,
  resource_not_found: -32602,
  session_not_found: -32600,
  header_mismatch: -32600,
  invalid_meta: -32602,
  missing_capability: -32600,
  unsupported_version: -32600,
  prompt_not_found: -32602,
  task_not_found: -32602,
  webtool_not_found: -32601,
  config_invalid: -32602,
};

/**
 * The HTTP status of an error that answers a whole request (a JSON-RPC error that answers one message, alone or
 * in a batch, comes with 200).
 */
export const HTTP_STATUS: Readonly<Record<ErrorCode, number>> = {
  parse_error: 400,
  invalid_request: 400,
  method_not_found: 404,
  tool_not_found: 404,
  invalid_params: 400,
  promise_not_found: 404,
  promise_expired: 404,
  internal: 500,
  // 499 (client closed request, as nginx logs it): the client that cancelled is not waiting for the answer.
  cancelled: 499,
  deadline_exceeded: 504,
  unauthenticated: 401,
  forbidden: 403,
  payload_too_large: 413,
  unsupported_media_type: 415,
  method_not_allowed: 405,
  resource_exhausted: 429,
  rate_limited: 429,
  unavailable: 503,
  resource_not_found: 404,
  session_not_found: 404,
  header_mismatch: 400,
  invalid_meta: 400,
  missing_capability: 400,
  unsupported_version: 400,
  // `GET/POST prompts/<name>` answers an unknown prompt 400, as it did when that was an invalid_params.
  prompt_not_found: 400,
  task_not_found: 404,
  webtool_not_found: 404,
  config_invalid: 400,
};

/** The JSON-RPC error object of an error on MCP-lite HTTP. */
export function toRpcError(err: McpLiteError): JsonRpcErrorObject {
  return toJsonRpcError(err, JSON_RPC_CODE);
}

/** A JSON-RPC error response on MCP-lite HTTP. */
export function rpcErrorMessage(id: JsonRpcId | undefined, err: McpLiteError): string {
  return errorMessage(id, toRpcError(err));
}

/** MCP-lite HTTP's error wire, for what answers before a binding is chosen (host guard, WebSocket upgrade). */
export const MCP_LITE_ERROR_WIRE: ErrorWire = { errorMessage: rpcErrorMessage, httpStatus: HTTP_STATUS };
