import { ERROR_CODES, type ErrorCode } from '../../../core/errors.js';
import { JSON_RPC_CODE } from '../wire.js';

/**
 * The draft seed's shapes (`mcp-detailed-draft-spec-2025-06-18.md`) as mapping tables from MCP's. Documented in
 * docs/mcp.md ("The draft-seed dialect").
 */

/** The draft's error code for invalid params (its section 5.2 example: a missing required parameter). */
export const DRAFT_INVALID_PARAMS = 4001;

/**
 * The JSON-RPC code of each error code for a draft client: MCP's handshake code (bindings/mcp/wire.ts
 * `JSON_RPC_CODE`), except that every error MCP answers as invalid params (-32602) is the draft's 4001. A draft
 * session is never stateless, so the 2026-07-28 variants do not apply.
 */
export const DRAFT_JSON_RPC_CODE: Readonly<Record<ErrorCode, number>> = Object.fromEntries(
  ERROR_CODES.map((code) => [
    code,
    JSON_RPC_CODE[code] === -32602 ? DRAFT_INVALID_PARAMS : JSON_RPC_CODE[code],
  ]),
) as Record<ErrorCode, number>;

/**
 * The draft's code for each code MCP wrote, read off the two tables by error code: the dialect rewrites MCP's
 * messages after they are serialised, so it sees MCP's number, and every error code with that number has the same
 * draft code (src/bindings/wire-tables.test.ts holds the tables to it).
 */
const DRAFT_CODE_OF_MCP_CODE: ReadonlyMap<number, number> = new Map(
  ERROR_CODES.map((code) => [JSON_RPC_CODE[code], DRAFT_JSON_RPC_CODE[code]]),
);

/** MCP notification → the draft's method. Others (logging, server requests) pass unchanged. */
export const DRAFT_NOTIFICATIONS: Readonly<Record<string, string>> = {
  'notifications/progress': 'progress',
  'notifications/tools/list_changed': 'tools/changed',
  'notifications/resources/list_changed': 'resources/changed',
  'notifications/resources/updated': 'resources/changed',
};

/** The draft's `serverCapabilities` from MCP's `capabilities`. */
export function draftServerCapabilities(
  capabilities: Record<string, unknown> | undefined,
): Record<string, boolean> {
  return {
    supportsToolDiscovery: capabilities?.tools !== undefined,
    supportsResourceDiscovery: capabilities?.resources !== undefined,
    supportsNotifications: true,
    supportsProgress: true,
    supportsCancellation: true,
  };
}

/**
 * The draft's `tools/invoke` result from MCP's `tools/call` result: `{ status: "success", output }`, or
 * `{ status: "error", error: { message, code?, details? } }` for a result with `isError`. `output` is
 * `structuredContent` unwrapped from the `{ result }` wrapper MCP puts around a value that is not an object (told
 * apart from an object that happens to have a lone `result` key by the text block, which is the value's own JSON);
 * without structuredContent, the text of the content blocks.
 */
export function draftInvokeResult(result: Record<string, unknown>): Record<string, unknown> {
  const content = Array.isArray(result.content) ? (result.content as Array<Record<string, unknown>>) : [];
  const text = content
    .filter((b) => b.type === 'text' && typeof b.text === 'string')
    .map((b) => b.text as string)
    .join('\n');
  if (result.isError === true) {
    const failure = (result._meta as Record<string, unknown> | undefined)?.['mcplite/failure'] as
      | Record<string, unknown>
      | undefined;
    return {
      status: 'error',
      error: {
        message: text || 'The tool failed',
        ...(failure?.code !== undefined ? { code: failure.code } : {}),
        ...(failure?.details !== undefined ? { details: failure.details } : {}),
      },
    };
  }
  const structured = result.structuredContent as Record<string, unknown> | undefined;
  if (structured === undefined || structured === null) return { status: 'success', output: text };
  const keys = Object.keys(structured);
  const wrapped = keys.length === 1 && keys[0] === 'result' && text !== JSON.stringify(structured);
  return { status: 'success', output: wrapped ? structured.result : structured };
}

/**
 * The draft's error for an MCP error object (`DRAFT_JSON_RPC_CODE`): an invalid-params error becomes 4001, and a
 * missing required parameter says so as the draft's example does (`Missing required parameter 'city'`).
 */
export function draftError(error: Record<string, unknown>): Record<string, unknown> {
  const code = DRAFT_CODE_OF_MCP_CODE.get(error.code as number);
  if (code === undefined || code === error.code) return error;
  const data = error.data as { errors?: Array<{ field?: unknown; message?: unknown }> } | undefined;
  const missing = data?.errors?.find((e) => e.message === 'is required');
  const message = missing ? `Missing required parameter '${String(missing.field)}'` : error.message;
  return { ...error, code, message };
}

/** The draft's `progress` params from MCP's `notifications/progress` params (the request id was the token). */
export function draftProgress(params: Record<string, unknown>): Record<string, unknown> {
  const progress = typeof params.progress === 'number' ? params.progress : 0;
  const total = typeof params.total === 'number' && params.total > 0 ? params.total : undefined;
  // Without a total the progress is taken as a percentage already, capped so it stays one.
  const percent = total ? Math.round((progress / total) * 100) : Math.min(100, progress);
  return {
    id: params.progressToken,
    percent,
    ...(typeof params.message === 'string' ? { message: params.message } : {}),
  };
}
