import { isRichContent } from '../../core/content.js';
import type { ErrorCode, McpLiteError } from '../../core/errors.js';
import type { CallResult, ElicitationOutcome } from '../../core/outcomes.js';
import type { WireTool } from '../../core/tool.js';
import { toWireElicitation } from '../common/elicitation.js';
import { type ErrorWire, MESSAGE_HTTP_STATUS } from '../common/http-reply.js';
import {
  errorMessage,
  isObject,
  type JsonRpcErrorObject,
  type JsonRpcId,
  toJsonRpcError,
} from '../common/jsonrpc.js';
import { jsonMeta } from '../common/mcp-lite-result.js';

/**
 * The MCP wire: the JSON-RPC code and HTTP status of each error code (the handshake revisions answer with
 * `MESSAGE_HTTP_STATUS`, the table MCP-lite HTTP shares), tool listings, and each outcome as a
 * `CallToolResult` (documented in docs/mcp.md and docs/architecture.md).
 */

/** The JSON-RPC code of each error code on the handshake revisions (2024-11-05 … 2025-11-25). */
export const JSON_RPC_CODE: Readonly<Record<ErrorCode, number>> = {
  parse_error: -32700,
  invalid_request: -32600,
  method_not_found: -32601,
  // MCP answers an unknown tool as invalid params (its tools/call names the tool in params).
  tool_not_found: -32602,
  invalid_params: -32602,
  promise_not_found: -32602,
  promise_expired: -32602,
  internal: -32603,
  cancelled: -32800,
  // -32001 is also the SDKs' request timeout; a session that is gone is told apart by its HTTP 404.
  deadline_exceeded: -32001,
  // Not -32002: that is resource-not-found on these revisions, and a client could not tell a 401 from it.
  unauthenticated: -32010,
  forbidden: -32003,
  payload_too_large: -32600,
  unsupported_media_type: -32600,
  method_not_allowed: -32600,
  resource_exhausted: -32004,
  rate_limited: -32029,
  // -32603 as on MCP-lite HTTP, told apart from `internal` by data.reason (toJsonRpcError).
  unavailable: -32603,
  resource_not_found: -32002,
  session_not_found: -32001,
  header_mismatch: -32020,
  invalid_meta: -32602,
  missing_capability: -32021,
  unsupported_version: -32022,
  // Unknown prompts and tasks are invalid params in MCP (prompts/get, tasks/*), as unknown tools are.
  prompt_not_found: -32602,
  task_not_found: -32602,
  webtool_not_found: -32602,
  config_invalid: -32602,
};

/** The JSON-RPC code of each error code on the stateless revision (2026-07-28), which made resource-not-found -32602. */
export const STATELESS_JSON_RPC_CODE: Readonly<Record<ErrorCode, number>> = {
  ...JSON_RPC_CODE,
  resource_not_found: -32602,
};

/** The HTTP statuses of the stateless revision, which answers an unknown (or removed) method with 404. */
export const STATELESS_HTTP_STATUS: Readonly<Record<ErrorCode, number>> = {
  ...MESSAGE_HTTP_STATUS,
  method_not_found: 404,
};

/** The JSON-RPC error object of an error on the MCP wire. */
export function toMcpError(err: McpLiteError, stateless: boolean): JsonRpcErrorObject {
  return toJsonRpcError(err, stateless ? STATELESS_JSON_RPC_CODE : JSON_RPC_CODE);
}

/** A JSON-RPC error response carrying `err` on the MCP wire (MCP-lite's is `rpcErrorMessage`). */
export function mcpErrorMessage(id: JsonRpcId | undefined, err: McpLiteError, stateless = false): string {
  return errorMessage(id, toMcpError(err, stateless));
}

/** MCP's error wire on the handshake revisions, for a refused WebSocket upgrade. */
export const MCP_ERROR_WIRE: ErrorWire = { errorMessage: mcpErrorMessage, httpStatus: MESSAGE_HTTP_STATUS };

/** The HTTP status of a response that carries only this error. */
export function httpStatusOf(err: McpLiteError, stateless: boolean): number {
  return (stateless ? STATELESS_HTTP_STATUS : MESSAGE_HTTP_STATUS)[err.code];
}

/** Holds the JSON of `structuredContent` when it equals the text block (set by toCallToolResult). */
const STRUCTURED_JSON = Symbol('structured-json');

/** Serialises a JSON-RPC result response. */
export function resultMessage(id: JsonRpcId, result: Record<string, unknown>): string {
  const head = `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":`;
  const structured = (result as Record<symbol, unknown>)[STRUCTURED_JSON] as string | undefined;
  if (structured === undefined || result._meta !== undefined || Object.keys(result).length > 3)
    return `${head}${JSON.stringify(result)}}`;
  // The answer was serialised once already (for the text block): build the result around that text instead of
  // serialising the value a second time. The shape is toCallToolResult's, plus resultType on 2026-07-28.
  const resultType =
    result.resultType === undefined ? '' : `,"resultType":${JSON.stringify(result.resultType)}`;
  const text = JSON.stringify(structured);
  return `${head}{"content":[{"type":"text","text":${text}}],"structuredContent":${structured}${resultType}}}`;
}

/**
 * An MCP `Tool` from core's wire tool: `@type` moves into `_meta` (MCP has no such field). MCP's `outputSchema`
 * describes `structuredContent` and must be an object schema: one that is not (`type` other than `"object"`) is
 * listed as `{ result }`, the wrapper `toCallToolResult` sends such answers in. A long-running tool lists none:
 * its result is always a promise (the token), and its answer comes through `redeem` or a task (docs/mcp.md).
 */
export function toMcpTool(tool: WireTool, longRunning: boolean): Record<string, unknown> {
  const { '@type': type, ...rest } = tool;
  const mcp: Record<string, unknown> = rest;
  const output = rest.outputSchema;
  if (output !== undefined && longRunning) delete mcp.outputSchema;
  else if (output !== undefined && output.type !== 'object') {
    mcp.outputSchema = { type: 'object', properties: { result: output }, required: ['result'] };
  }
  return type ? { ...mcp, _meta: { 'mcplite/type': type } } : mcp;
}

/** Options of the outcome mapping. */
export interface ToolResultOptions {
  /** The tool has an outputSchema: structuredContent must then match it, so other outcomes leave it out. */
  hasOutputSchema: boolean;
}

/**
 * A core call result as an MCP `CallToolResult` (docs/architecture.md, "The outcome model"):
 * - answer: the value as text (JSON unless a string) plus `structuredContent` (objects as they are, other
 *   values under `{ result }`); `richContent(...)` answers send their blocks unchanged;
 * - failure: `isError: true` with the message;
 * - promise: a text telling the model to call `redeem` with the token, the token in `structuredContent` (with
 *   `isError` instead for a tool with an outputSchema, whose structuredContent must match it);
 * - elicitation (where the client cannot be asked): the question and the signed state as structured detail (or
 *   `isError`, as for a promise), and a text saying how to answer: the same tool again with the requested fields
 *   as arguments, or the retry's `params.elicitation` (as on MCP-lite HTTP);
 * - request-for-more-resource: `isError: true` with what and how much.
 */
export function toCallToolResult(result: CallResult, options: ToolResultOptions): Record<string, unknown> {
  const mcp = outcomeResult(result, options);
  // The caller's session (MCP-lite context), for clients that carry it back in `params._meta["mcplite/session"]`.
  const session = result.meta.session;
  if (session !== undefined) {
    mcp._meta = { ...(mcp._meta as Record<string, unknown> | undefined), 'mcplite/session': session };
  }
  return mcp;
}

/** `toCallToolResult` without the session. */
function outcomeResult({ outcome, meta }: CallResult, options: ToolResultOptions): Record<string, unknown> {
  switch (outcome.type) {
    case 'answer': {
      const value = outcome.result;
      if (isRichContent(value)) {
        return value.structured === undefined
          ? { content: value.content }
          : { content: value.content, structuredContent: value.structured };
      }
      const text = typeof value === 'string' ? value : JSON.stringify(value ?? null);
      if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
        return { content: [{ type: 'text', text }], structuredContent: value, [STRUCTURED_JSON]: text };
      }
      return { content: [{ type: 'text', text }], structuredContent: { result: value } };
    }
    case 'failure': {
      const detail = {
        ...(outcome.code !== undefined ? { code: outcome.code } : {}),
        ...(outcome.details !== undefined ? { details: outcome.details } : {}),
      };
      return {
        content: [{ type: 'text', text: outcome.message }],
        isError: true,
        ...(Object.keys(detail).length > 0 ? { _meta: { 'mcplite/failure': detail } } : {}),
      };
    }
    case 'promise': {
      const promise = {
        status: 'pending',
        promise_token: outcome.token,
        estimated_completion: outcome.estimatedCompletion,
      };
      return {
        content: [
          {
            type: 'text',
            text:
              `The work is still running (expected by ${outcome.estimatedCompletion}). Call the tool "redeem" with ` +
              `{"promise": "${outcome.token}"} to get the result; pass "wait_ms" to wait for it.`,
          },
        ],
        // A tool with an outputSchema: SDK clients reject a result that is neither structuredContent matching it
        // nor `isError` (and throw before the model reads the text), so the instruction goes as an error result.
        ...(options.hasOutputSchema ? { isError: true } : { structuredContent: promise }),
        _meta: { 'mcplite/promise': promise },
      };
    }
    case 'elicitation': {
      const elicitation = toWireElicitation(outcome);
      return {
        content: [{ type: 'text', text: fallbackText(outcome) }],
        // As for a promise: the question must reach the model through SDK clients that check the outputSchema.
        ...(options.hasOutputSchema ? { isError: true } : { structuredContent: { elicitation } }),
        _meta: { 'mcplite/elicitation': elicitation },
      };
    }
    case 'request-for-more-resource': {
      const { type: _t, ...request } = outcome;
      return {
        content: [{ type: 'text', text: outcome.message }],
        isError: true,
        _meta: { 'mcplite/resource-request': request, 'mcplite/response-meta': jsonMeta(meta) },
      };
    }
  }
}

/**
 * A tool execution error (`core/tool-errors.ts`: arguments that failed the input schema, a handler that threw) as
 * a `CallToolResult` with `isError` (SEP-1303): a text the model can act on, and the error's code, message and data
 * under `_meta["mcplite/error"]` for clients that map it back to the error (the mcplite client does). An internal
 * error says only that the tool failed: its cause stays in the server's log.
 */
export function toolErrorResult(err: McpLiteError): Record<string, unknown> {
  const internal = err.code === 'internal';
  const detail = {
    code: err.code,
    message: internal ? 'Internal error' : err.message,
    ...(err.data !== undefined && !internal ? { data: err.data } : {}),
  };
  return {
    content: [{ type: 'text', text: internal ? 'The tool failed with an internal error.' : errorText(err) }],
    isError: true,
    _meta: { 'mcplite/error': detail },
  };
}

/** An error's message, followed by every field problem it lists beyond the first (which the message names). */
function errorText(err: McpLiteError): string {
  const problems = Array.isArray(err.data?.errors) ? (err.data.errors as unknown[]) : [];
  const more = problems.slice(1).flatMap((p) => {
    const { field, message } = (p ?? {}) as { field?: unknown; message?: unknown };
    return typeof field === 'string' && typeof message === 'string' ? [`'${field}' ${message}`] : [];
  });
  return more.length > 0 ? `${err.message}; ${more.join('; ')}` : err.message;
}

/**
 * What the model reads when the server could not ask the user: tool wrappers (LangChain, the AI SDK, Agents
 * function tools) pass only arguments, so the way that works everywhere comes first (the requested fields as
 * arguments of the same tool); `params.elicitation` with the signed state is for clients that can set params.
 */
function fallbackText(outcome: ElicitationOutcome): string {
  const schemas = outcome.requests
    ? Object.values(outcome.requests).map((r) => r.requestedSchema)
    : [outcome.requestedSchema];
  const fields = [
    ...new Set(schemas.flatMap((s) => (isObject(s.properties) ? Object.keys(s.properties) : []))),
  ];
  const named = fields.length > 0 ? ` (${fields.map((f) => JSON.stringify(f)).join(', ')})` : '';
  return (
    `More input is needed from the user: ${sentence(outcome.message)} The server could not ask the user ` +
    `itself on this request. Ask the user, then call this tool again with the same arguments plus the ` +
    `requested fields${named} as arguments, filled with the user's answers. (A client that can set the ` +
    'call\'s params may instead send, beside the same arguments, "elicitation": {"state": ' +
    '<_meta["mcplite/elicitation"].state of this result>, "answers": <the answers, matching its ' +
    'requested_schema>}.)'
  );
}

/** A message as a sentence: a full stop added unless it already ends with one (or a question or exclamation). */
function sentence(message: string): string {
  return /[.!?…:]["')\]]*\s*$/.test(message) ? message.trimEnd() : `${message.trimEnd()}.`;
}
