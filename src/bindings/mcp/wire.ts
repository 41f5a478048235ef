import { isRichContent } from '../../core/content.js';
import { McpLiteError } from '../../core/errors.js';
import type { CallResult } from '../../core/outcomes.js';
import type { WireTool } from '../../core/tool.js';
import { toWireElicitation } from '../common/elicitation.js';
import { JSON_RPC_CODES, type JsonRpcErrorObject, type JsonRpcId } from '../common/jsonrpc.js';

/**
 * The MCP wire: JSON-RPC error codes and HTTP statuses, tool listings, and each outcome as a `CallToolResult`
 * (documented in docs/mcp.md).
 */

/** An MCP-specific protocol error: a JSON-RPC code core does not know (-32020 header mismatch, -32021 missing
 * client capability, -32022 unsupported version, -32002 resource not found, -32001 session not found). */
export class McpProtocolError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: Record<string, unknown>,
    /** The HTTP status when this error answers a whole HTTP request; default from the code. */
    readonly httpStatus?: number,
  ) {
    super(message);
    this.name = 'McpProtocolError';
  }
}

/** JSON-RPC code of MCP's resource-not-found on the handshake revisions (2026-07-28 uses -32602). */
export const RESOURCE_NOT_FOUND = -32002;

/** The error object of anything a handler or the engine threw. */
export function toMcpError(err: unknown, legacyResourceCode: boolean): JsonRpcErrorObject {
  if (err instanceof McpProtocolError) {
    return err.data === undefined
      ? { code: err.code, message: err.message }
      : { code: err.code, message: err.message, data: err.data };
  }
  const e = err instanceof McpLiteError ? err : new McpLiteError('internal', 'Internal error');
  let code = JSON_RPC_CODES[e.code];
  if (e.code === 'tool_not_found') code = -32602; // MCP: an unknown tool is an invalid params error
  if (e.data?.reason === 'resource_not_found' && legacyResourceCode) code = RESOURCE_NOT_FOUND;
  let data: Record<string, unknown> | undefined = e.data;
  if (data && 'id' in data && e.code === 'invalid_request') {
    const { id: _id, ...rest } = data;
    data = Object.keys(rest).length ? rest : undefined;
  }
  return data === undefined ? { code, message: e.message } : { code, message: e.message, data };
}

/**
 * The HTTP status of a response that carries only this error. The stateless revision gives errors their own
 * statuses (404 unknown method, 400 bad headers, versions, `_meta` and capabilities); the handshake revisions
 * answer JSON-RPC errors with 200 except for envelope problems.
 */
export function httpStatusOf(err: unknown, error: JsonRpcErrorObject, stateless: boolean): number {
  if (err instanceof McpProtocolError && err.httpStatus !== undefined) return err.httpStatus;
  if (err instanceof McpLiteError) {
    switch (err.code) {
      case 'unauthenticated':
        return 401;
      case 'forbidden':
        return 403;
      case 'payload_too_large':
        return 413;
      case 'unsupported_media_type':
        return 415;
      case 'parse_error':
        return 400;
      default:
    }
  }
  switch (error.code) {
    case -32700:
    case -32600:
      return 400;
    case -32020:
    case -32021:
    case -32022:
      return 400;
    case -32601:
      return stateless ? 404 : 200;
    default:
      return 200;
  }
}

/** Serialises a JSON-RPC error response. */
export function errorMessage(id: JsonRpcId | undefined, error: JsonRpcErrorObject): string {
  return JSON.stringify({ jsonrpc: '2.0', id: id ?? null, error });
}

/** Holds the JSON of `structuredContent` when it equals the text block (set by toCallToolResult). */
const STRUCTURED_JSON = Symbol('structured-json');

/** Serialises a JSON-RPC result response. */
export function resultMessage(id: JsonRpcId, result: Record<string, unknown>): string {
  const head = `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":`;
  const structured = (result as Record<symbol, unknown>)[STRUCTURED_JSON] as string | undefined;
  if (structured === undefined || Object.keys(result).length > 3) return `${head}${JSON.stringify(result)}}`;
  // The answer was serialised once already (for the text block): build the result around that text instead of
  // serialising the value a second time. The shape is toCallToolResult's, plus resultType on 2026-07-28.
  const resultType =
    result.resultType === undefined ? '' : `,"resultType":${JSON.stringify(result.resultType)}`;
  const text = JSON.stringify(structured);
  return `${head}{"content":[{"type":"text","text":${text}}],"structuredContent":${structured}${resultType}}}`;
}

/** An MCP `Tool` from core's wire tool: `@type` moves into `_meta` (MCP has no such field). */
export function toMcpTool(tool: WireTool): Record<string, unknown> {
  const { '@type': type, ...rest } = tool;
  return type ? { ...rest, _meta: { 'mcplite/type': type } } : rest;
}

/** Options of the outcome mapping. */
export interface ToolResultOptions {
  /** The tool has an outputSchema: structuredContent must then match it, so other outcomes leave it out. */
  hasOutputSchema: boolean;
}

/**
 * A core call result as an MCP `CallToolResult` (DESIGN section 2):
 * - answer: the value as text (JSON unless a string) plus `structuredContent` (objects as they are, other
 *   values under `{ result }`); `richContent(...)` answers send their blocks unchanged;
 * - failure: `isError: true` with the message;
 * - promise: a text telling the model to call `redeem` with the token, the token in `structuredContent`;
 * - elicitation (where the client cannot be asked): the question and the signed state as structured detail;
 * - request-for-more-resource: `isError: true` with what and how much.
 */
export function toCallToolResult(
  { outcome, meta }: CallResult,
  options: ToolResultOptions,
): Record<string, unknown> {
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
        ...(options.hasOutputSchema ? {} : { structuredContent: promise }),
        _meta: { 'mcplite/promise': promise },
      };
    }
    case 'elicitation': {
      const elicitation = toWireElicitation(outcome);
      return {
        content: [
          {
            type: 'text',
            text:
              `More input is needed from the user: ${outcome.message}. Ask the user, then call the tool again ` +
              `with the answers and this state.`,
          },
        ],
        ...(options.hasOutputSchema ? {} : { structuredContent: { elicitation } }),
        _meta: { 'mcplite/elicitation': elicitation },
      };
    }
    case 'request-for-more-resource': {
      const { type: _t, ...request } = outcome;
      return {
        content: [{ type: 'text', text: outcome.message }],
        isError: true,
        _meta: { 'mcplite/resource-request': request, 'mcplite/response-meta': meta },
      };
    }
  }
}

/** Log levels of `logging/setLevel` and `notifications/message`, least severe first. */
export const LOG_LEVELS = [
  'debug',
  'info',
  'notice',
  'warning',
  'error',
  'critical',
  'alert',
  'emergency',
] as const;

/** Whether a message at `level` passes the threshold `min`. */
export function logPasses(level: string, min: string | undefined): boolean {
  if (min === undefined) return false;
  return (
    LOG_LEVELS.indexOf(level as (typeof LOG_LEVELS)[number]) >=
    LOG_LEVELS.indexOf(min as (typeof LOG_LEVELS)[number])
  );
}

/** Cursor pagination over a cached list: opaque base64url offsets. */
export function paginate<T>(
  items: readonly T[],
  cursor: unknown,
  pageSize: number,
): { page: readonly T[]; nextCursor?: string } {
  let start = 0;
  if (cursor !== undefined && cursor !== null) {
    const m =
      typeof cursor === 'string'
        ? /^o:(\d{1,9})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'))
        : null;
    const n = m ? Number(m[1]) : Number.NaN;
    if (!Number.isInteger(n) || n > items.length) {
      throw new McpProtocolError(-32602, 'Invalid params: unknown cursor');
    }
    start = n;
  }
  if (start === 0 && items.length <= pageSize) return { page: items };
  const end = Math.min(items.length, start + pageSize);
  const page = items.slice(start, end);
  return end < items.length ? { page, nextCursor: Buffer.from(`o:${end}`).toString('base64url') } : { page };
}
