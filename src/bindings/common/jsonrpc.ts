import { McpLiteError } from '../../core/errors.js';

/** A JSON-RPC 2.0 id. */
export type JsonRpcId = string | number | null;

/** A validated JSON-RPC request or notification (`id` undefined). */
export interface JsonRpcRequest {
  jsonrpc: '2.0';
  id?: JsonRpcId;
  method: string;
  params?: Record<string, unknown> | unknown[];
}

/** A JSON-RPC 2.0 error object. */
export interface JsonRpcErrorObject {
  code: number;
  message: string;
  data?: unknown;
}

/** The JSON-RPC code of each core error code: a pure table, one per binding family. */
export const JSON_RPC_CODES: Readonly<Record<McpLiteError['code'], number>> = {
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
  unavailable: -32005,
};

/** Whether a value is a valid JSON-RPC id. */
export function isValidId(id: unknown): id is JsonRpcId {
  return id === null || typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id));
}

/** The error data that routes an answer to a bad message; built only when a check fails, not per request. */
function idDataOf(m: Record<string, unknown>): { id: unknown } | undefined {
  return 'id' in m && isValidId(m.id) ? { id: m.id } : undefined;
}

/**
 * Checks the envelope of one message. Throws `invalid_request` (carrying the id when it is usable, so that the
 * error can answer it).
 */
export function validateRequest(message: unknown): JsonRpcRequest {
  if (typeof message !== 'object' || message === null || Array.isArray(message)) {
    throw new McpLiteError('invalid_request', 'Invalid Request: a JSON-RPC message must be an object');
  }
  const m = message as Record<string, unknown>;
  if (m.jsonrpc !== '2.0') {
    throw new McpLiteError('invalid_request', 'Invalid Request: "jsonrpc" must be "2.0"', idDataOf(m));
  }
  if ('id' in m && !isValidId(m.id)) {
    throw new McpLiteError('invalid_request', 'Invalid Request: "id" must be a string, a number or null');
  }
  if (typeof m.method !== 'string' || m.method.length === 0) {
    throw new McpLiteError(
      'invalid_request',
      'Invalid Request: "method" must be a non-empty string',
      idDataOf(m),
    );
  }
  if ('params' in m && (typeof m.params !== 'object' || m.params === null)) {
    throw new McpLiteError(
      'invalid_request',
      'Invalid Request: "params" must be an object or an array',
      idDataOf(m),
    );
  }
  return m as unknown as JsonRpcRequest;
}

/** The error object for an McpLiteError. `data.id`, used only to route the answer, is not sent. */
export function toJsonRpcError(err: McpLiteError): JsonRpcErrorObject {
  const code = JSON_RPC_CODES[err.code];
  let data = err.data;
  if (data && 'id' in data && err.code === 'invalid_request') {
    const { id: _id, ...rest } = data;
    data = Object.keys(rest).length ? rest : undefined;
  }
  return data === undefined ? { code, message: err.message } : { code, message: err.message, data };
}

/** Serialises an error response. */
export function errorResponse(id: JsonRpcId | undefined, err: McpLiteError): string {
  return JSON.stringify({ jsonrpc: '2.0', id: id ?? null, error: toJsonRpcError(err) });
}

/** The id an invalid message can still be answered with. */
export function idOf(message: unknown, err?: McpLiteError): JsonRpcId {
  const fromErr = err?.data?.id;
  if (isValidId(fromErr)) return fromErr;
  if (typeof message === 'object' && message !== null && 'id' in message) {
    const id = (message as { id: unknown }).id;
    if (isValidId(id)) return id;
  }
  return null;
}
