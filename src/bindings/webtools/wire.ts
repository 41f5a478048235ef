import type { ErrorCode, McpLiteError } from '../../core/errors.js';
import type { CallResult } from '../../core/outcomes.js';
import { toWireElicitation } from '../common/elicitation.js';

/**
 * The Webtools wire (documented in docs/webtools.md): every response is `application/json` (SSE streams aside),
 * successes are `{status:"ok", data}`, errors `{status:"error", error:{code, message, details?}}`.
 */

/** A Webtools error code and the HTTP status it is sent with. */
export interface WebtoolsError {
  code: string;
  status: number;
}

/**
 * The Webtools code and HTTP status of each core error code: a pure table. The spec's five codes
 * (WEBTOOL_NOT_FOUND, SCHEMA_ERROR, CONFIG_ERROR, RATE_LIMIT, INTERNAL_ERROR) come first; the rest are this
 * server's own codes, which the spec allows.
 */
export const WEBTOOLS_ERRORS: Readonly<Record<ErrorCode, WebtoolsError>> = {
  parse_error: { code: 'SCHEMA_ERROR', status: 400 },
  invalid_request: { code: 'SCHEMA_ERROR', status: 400 },
  invalid_params: { code: 'SCHEMA_ERROR', status: 400 },
  rate_limited: { code: 'RATE_LIMIT', status: 429 },
  internal: { code: 'INTERNAL_ERROR', status: 500 },
  webtool_not_found: { code: 'WEBTOOL_NOT_FOUND', status: 404 },
  config_invalid: { code: 'CONFIG_ERROR', status: 400 },
  method_not_found: { code: 'NOT_FOUND', status: 404 },
  tool_not_found: { code: 'ACTION_NOT_FOUND', status: 404 },
  promise_not_found: { code: 'PROMISE_NOT_FOUND', status: 404 },
  promise_expired: { code: 'PROMISE_EXPIRED', status: 410 },
  cancelled: { code: 'CANCELLED', status: 409 },
  deadline_exceeded: { code: 'TIMEOUT', status: 504 },
  unauthenticated: { code: 'UNAUTHENTICATED', status: 401 },
  forbidden: { code: 'FORBIDDEN', status: 403 },
  payload_too_large: { code: 'PAYLOAD_TOO_LARGE', status: 413 },
  unsupported_media_type: { code: 'UNSUPPORTED_MEDIA_TYPE', status: 415 },
  method_not_allowed: { code: 'METHOD_NOT_ALLOWED', status: 405 },
  resource_exhausted: { code: 'RESOURCE_EXHAUSTED', status: 429 },
  unavailable: { code: 'UNAVAILABLE', status: 503 },
  // MCP's own codes, which no Webtools request produces; the nearest thing, so that the table stays total.
  resource_not_found: { code: 'NOT_FOUND', status: 404 },
  session_not_found: { code: 'NOT_FOUND', status: 404 },
  header_mismatch: { code: 'SCHEMA_ERROR', status: 400 },
  invalid_meta: { code: 'SCHEMA_ERROR', status: 400 },
  missing_capability: { code: 'SCHEMA_ERROR', status: 400 },
  unsupported_version: { code: 'SCHEMA_ERROR', status: 400 },
  prompt_not_found: { code: 'NOT_FOUND', status: 404 },
  task_not_found: { code: 'NOT_FOUND', status: 404 },
};

/** The HTTP status every tool failure (and resource request) is answered with: the client's call was refused. */
export const FAILURE_STATUS = 422;

/** The Webtools code and status of an error: its code's row of `WEBTOOLS_ERRORS`. */
export function webtoolsErrorOf(err: McpLiteError): WebtoolsError {
  return WEBTOOLS_ERRORS[err.code];
}

/**
 * The error envelope of an McpLiteError; `data` goes in `details` (internal errors have none to send), less its
 * `reason`, which the other wires send in `data` and the Webtools code already says.
 */
export function errorEnvelope(err: McpLiteError): string {
  const { code } = webtoolsErrorOf(err);
  let details: Record<string, unknown> | undefined = err.data;
  if (details && 'reason' in details) {
    const { reason: _reason, ...rest } = details;
    details = Object.keys(rest).length ? rest : undefined;
  }
  return JSON.stringify({
    status: 'error',
    error: details === undefined ? { code, message: err.message } : { code, message: err.message, details },
  });
}

/**
 * Each outcome as a Webtools reply (the spec's two envelopes, plus this server's extension):
 * - answer: 200 `{status:"ok", data}`
 * - failure: 422 `{status:"error", error:{code (the tool's own, default TOOL_ERROR), message, details?}}`
 * - promise: 202 `{status:"pending", promise, estimated_completion, redeem:{action, request}}`
 * - elicitation: 200 `{status:"input_required", input:{message, requested_schema, state, requests?}}`
 * - request-for-more-resource: 422 `{status:"error", error:{code:"RESOURCE_REQUIRED", message, details}}`
 */
export function toWebtoolsReply({ outcome }: CallResult): { status: number; body: string } {
  switch (outcome.type) {
    case 'answer': {
      const data = JSON.stringify(outcome.result);
      return { status: 200, body: `{"status":"ok","data":${data === undefined ? 'null' : data}}` };
    }
    case 'failure': {
      const { message, code, details } = outcome;
      const error = { code: code ?? 'TOOL_ERROR', message, ...(details !== undefined ? { details } : {}) };
      return { status: FAILURE_STATUS, body: JSON.stringify({ status: 'error', error }) };
    }
    case 'promise':
      return {
        status: 202,
        body: JSON.stringify({
          status: 'pending',
          promise: outcome.token,
          estimated_completion: outcome.estimatedCompletion,
          redeem: { action: 'redeem', request: { promise: outcome.token } },
        }),
      };
    case 'elicitation':
      return {
        status: 200,
        body: JSON.stringify({ status: 'input_required', input: toWireElicitation(outcome) }),
      };
    case 'request-for-more-resource': {
      const { type: _type, message, ...details } = outcome;
      return {
        status: FAILURE_STATUS,
        body: JSON.stringify({ status: 'error', error: { code: 'RESOURCE_REQUIRED', message, details } }),
      };
    }
  }
}
