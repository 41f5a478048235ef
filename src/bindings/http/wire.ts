import type { McpLiteError } from '../../core/errors.js';
import type { CallResult } from '../../core/outcomes.js';
import { toWireElicitation } from '../common/elicitation.js';

/**
 * The MCP-lite HTTP result object of each outcome (documented in docs/wire-format.md):
 * - answer: `{ content, _meta }` (as spec A.2)
 * - failure: `{ failure: { message, code?, details? }, _meta }`
 * - promise: `{ _meta }` with `promise_token` and `estimated_completion` (as spec A.3)
 * - elicitation: `{ elicitation: { message, requested_schema, state, requests? }, _meta }`
 * - request-for-more-resource: `{ resource_request: { resource, requested, granted?, unit?, message }, _meta }`
 */
export function toWireResult({ outcome, meta }: CallResult): Record<string, unknown> {
  switch (outcome.type) {
    case 'answer':
      return { content: outcome.result, _meta: meta };
    case 'failure': {
      const { type: _t, ...failure } = outcome;
      return { failure, _meta: meta };
    }
    case 'promise':
      return { _meta: meta };
    case 'elicitation':
      return { elicitation: toWireElicitation(outcome), _meta: meta };
    case 'request-for-more-resource': {
      const { type: _t, ...resourceRequest } = outcome;
      return { resource_request: resourceRequest, _meta: meta };
    }
  }
}

/**
 * `JSON.stringify(toWireResult(result))`, with answers (nearly every call) written around the stringified result
 * by hand: their `_meta` holds three strings and a number, which a template writes in a fraction of the time
 * a generic stringify takes. The text is exactly what JSON.stringify gives (wire.test.ts holds it to that).
 */
export function wireResultJson(result: CallResult): string {
  const { outcome, meta } = result;
  if (outcome.type === 'answer' && meta.promise_token === undefined) {
    const content = JSON.stringify(outcome.result);
    // undefined (nothing to write, a function…) leaves the key out in JSON.stringify; the generic path does that.
    if (content !== undefined) {
      return (
        `{"content":${content},"_meta":{"response_type":"answer","timestamp":${JSON.stringify(meta.timestamp)},` +
        `"processing_time_ms":${JSON.stringify(meta.processing_time_ms)},` +
        `"server_version":${JSON.stringify(meta.server_version)}}}`
      );
    }
  }
  return JSON.stringify(toWireResult(result));
}

/** The HTTP status of an error that answers a whole request (JSON-RPC errors inside a batch stay 200). */
export const HTTP_STATUS: Readonly<Partial<Record<McpLiteError['code'], number>>> = {
  parse_error: 400,
  invalid_request: 400,
  unauthenticated: 401,
  forbidden: 403,
  method_not_allowed: 405,
  payload_too_large: 413,
  unsupported_media_type: 415,
  resource_exhausted: 429,
  unavailable: 503,
};

/** Media types. */
export const JSON_TYPE = 'application/json';
export const SSE_TYPE = 'text/event-stream';

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
