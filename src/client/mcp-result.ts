import { asErrorCode, McpLiteError } from '../core/errors.js';
import type { JsonSchema } from '../core/schema.js';
import type { WireOutcome } from './transport.js';
import type { ElicitationRequest } from './types.js';
import { isRecord } from './wire-errors.js';

/** A promise an MCP result carries, as the outcome every MCP transport gives for it (redeemed by tool calls). */
function promiseOutcome(token: string, estimatedCompletion?: string): WireOutcome {
  return { type: 'promise', token, ...(estimatedCompletion ? { estimatedCompletion } : {}) };
}

/**
 * An MCP `CallToolResult` as an outcome. mcplite servers say more in `_meta` (`mcplite/failure`,
 * `mcplite/resource-request`, `mcplite/promise`), which is read when present; any other server's result is an
 * answer or, with `isError`, a failure. Throws the McpLiteError of a tool execution error (`mcplite/error`).
 */
export function fromMcpResult(
  result: Record<string, unknown>,
  redeemable: (token: string, estimatedCompletion?: string) => WireOutcome = promiseOutcome,
): WireOutcome {
  const meta = isRecord(result._meta) ? result._meta : {};
  const content = Array.isArray(result.content) ? result.content : [];
  const text = content
    .filter(
      (b): b is { type: 'text'; text: string } =>
        isRecord(b) && b.type === 'text' && typeof b.text === 'string',
    )
    .map((b) => b.text)
    .join('\n');
  // Read before isError: a tool with an outputSchema gets its promise as an isError result (SDK clients accept
  // no other shape without structuredContent).
  const promise = meta['mcplite/promise'];
  if (isRecord(promise) && typeof promise.promise_token === 'string') {
    return redeemable(
      promise.promise_token,
      typeof promise.estimated_completion === 'string' ? promise.estimated_completion : undefined,
    );
  }
  if (result.isError === true) {
    const error = meta['mcplite/error'];
    if (isRecord(error) && typeof error.code === 'string') {
      // A tool execution error (invalid arguments, a failing handler): a result on MCP (SEP-1303), thrown as the
      // same error the MCP-lite wires answer with, so that the client behaves alike on every wire.
      throw new McpLiteError(
        asErrorCode(error.code),
        typeof error.message === 'string' ? error.message : text || 'The tool failed',
        isRecord(error.data) ? error.data : undefined,
      );
    }
    const rr = meta['mcplite/resource-request'];
    if (isRecord(rr)) {
      return {
        type: 'request-for-more-resource',
        resource: String(rr.resource ?? ''),
        requested: Number(rr.requested ?? 0),
        ...(typeof rr.granted === 'number' ? { granted: rr.granted } : {}),
        ...(typeof rr.unit === 'string' ? { unit: rr.unit } : {}),
        message: typeof rr.message === 'string' ? rr.message : text,
      };
    }
    const f = isRecord(meta['mcplite/failure']) ? meta['mcplite/failure'] : {};
    return {
      type: 'failure',
      message: text || 'The tool failed',
      ...(typeof f.code === 'string' ? { code: f.code } : {}),
      ...(f.details !== undefined ? { details: f.details } : {}),
    };
  }
  return { type: 'answer', value: answerValue(result, content, text), content };
}

// mcplite puts non-object answers under `{ result }` in structuredContent; other servers send text or blocks.
function answerValue(result: Record<string, unknown>, content: unknown[], text: string): unknown {
  const structured = result.structuredContent;
  if (isRecord(structured)) {
    const keys = Object.keys(structured);
    if (keys.length === 1 && keys[0] === 'result' && content.length === 1) {
      const v = structured.result;
      if (text === (typeof v === 'string' ? v : JSON.stringify(v))) return v;
    }
    return structured;
  }
  if (content.length === 1 && text !== '' && isRecord(content[0]) && content[0].type === 'text') return text;
  return content;
}

/** MCP `inputRequests` (2026-07-28 `input_required`, a task's `input_required`) in the client's form. */
export function fromInputRequests(raw: Record<string, unknown>): {
  message: string;
  requestedSchema: JsonSchema;
  requests?: Record<string, ElicitationRequest>;
  keys: string[];
} {
  const requests: Record<string, ElicitationRequest> = {};
  for (const [key, r] of Object.entries(raw)) {
    const params = isRecord(r) && isRecord(r.params) ? r.params : {};
    requests[key] = {
      message: typeof params.message === 'string' ? params.message : '',
      requestedSchema: (isRecord(params.requestedSchema) ? params.requestedSchema : {}) as JsonSchema,
    };
  }
  const keys = Object.keys(requests);
  if (keys.length === 1) {
    const only = requests[keys[0]!]!;
    return { message: only.message, requestedSchema: only.requestedSchema, keys };
  }
  return {
    message: keys.map((k) => requests[k]!.message).join(' '),
    requestedSchema: {
      type: 'object',
      properties: Object.fromEntries(keys.map((k) => [k, requests[k]!.requestedSchema])),
    } as JsonSchema,
    requests,
    keys,
  };
}

/**
 * The answers in MCP's `inputResponses` form: one form's values go to its only key; several are keyed by name.
 * `undefined` declines every request.
 */
export function toInputResponses(
  keys: string[],
  values: Record<string, unknown> | undefined,
): Record<string, unknown> {
  if (values === undefined) return Object.fromEntries(keys.map((k) => [k, { action: 'decline' }]));
  if (keys.length === 1) return { [keys[0]!]: { action: 'accept', content: values } };
  const out: Record<string, unknown> = {};
  for (const k of keys) if (values[k] !== undefined) out[k] = { action: 'accept', content: values[k] };
  return out;
}
