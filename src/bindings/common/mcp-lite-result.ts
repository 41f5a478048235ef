import type { Outcome, ResponseMeta } from '../../core/outcomes.js';
import { toWireElicitation } from './elicitation.js';
import { isoTime } from './iso-time.js';

/**
 * The MCP-lite result of each outcome, shared by the HTTP and gRPC bindings so that one outcome reads the same on
 * both wires (spec A.2-A.5; the cross-binding suite holds them to it). Each wire adds `_meta` in its own form.
 */

/**
 * The result fields of an outcome (everything but `_meta`):
 * - answer: `{ content }` (any JSON value)
 * - failure: `{ failure: { message, code?, details? } }`
 * - promise: `{}` (the token and the estimate are in `_meta`, as spec A.3)
 * - elicitation: `{ elicitation: { message, requested_schema, state, requests? } }`
 * - request-for-more-resource: `{ resource_request: { resource, requested, granted?, unit?, message } }`
 */
export function resultFields(outcome: Outcome): Record<string, unknown> {
  switch (outcome.type) {
    case 'answer':
      return { content: outcome.result };
    case 'failure': {
      const { type: _t, ...failure } = outcome;
      return { failure };
    }
    case 'promise':
      return {};
    case 'elicitation':
      return { elicitation: toWireElicitation(outcome) };
    case 'request-for-more-resource': {
      const { type: _t, ...resourceRequest } = outcome;
      return { resource_request: resourceRequest };
    }
  }
}

/** `_meta` in its JSON form (spec 3.3): core's times (epoch milliseconds) as ISO-8601 text. */
export interface JsonResponseMeta {
  response_type: ResponseMeta['response_type'];
  timestamp: string;
  processing_time_ms: number;
  server_version: string;
  promise_token?: string;
  estimated_completion?: string;
}

/** `_meta` as the JSON wires (MCP-lite HTTP, and MCP's `mcplite/response-meta`) write it. */
export function jsonMeta(meta: ResponseMeta): JsonResponseMeta {
  const json: JsonResponseMeta = {
    response_type: meta.response_type,
    timestamp: isoTime(meta.timestamp),
    processing_time_ms: meta.processing_time_ms,
    server_version: meta.server_version,
  };
  if (meta.promise_token !== undefined) json.promise_token = meta.promise_token;
  if (meta.estimated_completion !== undefined) json.estimated_completion = isoTime(meta.estimated_completion);
  return json;
}
