import { type ErrorCode, McpLiteError } from '../../core/errors.js';

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

/** A binding's table of the JSON-RPC code of each error code (each JSON-RPC binding has its own in its wire.ts). */
export type JsonRpcCodes = Readonly<Record<ErrorCode, number>>;

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

/** `data.reason` of an `unavailable` error, whose JSON-RPC code (-32603) is also `internal`'s. */
const UNAVAILABLE_REASON = 'unavailable';

/**
 * The error object for an McpLiteError, coded by `codes`. `data.id`, used only to route the answer, is not sent.
 * `unavailable` (a store unreachable, a server shutting down) shares -32603 with `internal` and says so in
 * `data.reason: "unavailable"`, so that a client can tell "retry later" from a fault.
 */
export function toJsonRpcError(err: McpLiteError, codes: JsonRpcCodes): JsonRpcErrorObject {
  const code = codes[err.code];
  let data = err.data;
  if (data && 'id' in data && err.code === 'invalid_request') {
    const { id: _id, ...rest } = data;
    data = Object.keys(rest).length ? rest : undefined;
  }
  if (err.code === 'unavailable') data = { reason: UNAVAILABLE_REASON, ...data };
  return data === undefined ? { code, message: err.message } : { code, message: err.message, data };
}

/** Serialises an error response from its error object. */
export function errorMessage(id: JsonRpcId | undefined, error: JsonRpcErrorObject): string {
  return JSON.stringify({ jsonrpc: '2.0', id: id ?? null, error });
}

/** Whether a value is a plain object (not null, not an array). */
export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Whether a message answers a request of ours (a response) rather than asking something. */
export function isResponse(m: unknown): m is { id: JsonRpcId; result?: unknown; error?: unknown } {
  return (
    typeof m === 'object' && m !== null && !('method' in m) && 'id' in m && ('result' in m || 'error' in m)
  );
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
