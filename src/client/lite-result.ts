import { McpLiteError } from '../core/errors.js';
import { type ResponseType, responseTypeOf, unhandledOutcome } from '../core/outcomes.js';
import { printable } from '../core/printable.js';
import type { JsonSchema } from '../core/schema.js';
import type { WireContext, WireOutcome } from './transport.js';
import type { ElicitationRequest, OutcomeMeta } from './types.js';
import { toolUiOf } from './views.js';
import { isRecord } from './wire-errors.js';

/** MCP-lite's `_meta` (HTTP) or `ResponseMeta` (gRPC), normalised. */
export interface LiteMeta {
  responseType: ResponseType;
  promiseToken?: string;
  /** ISO-8601. */
  estimatedCompletion?: string;
  timestamp?: string;
  processingTimeMs?: number;
  serverVersion?: string;
}

/** The `_meta` of an MCP-lite JSON result (HTTP, SSE, stdio, WebSocket) as `LiteMeta`; times as ISO-8601 text. */
export function liteMetaOf(meta: Record<string, unknown>): LiteMeta {
  const estimated = iso(meta.estimated_completion);
  const timestamp = iso(meta.timestamp);
  return {
    responseType: liteResponseType(meta.response_type),
    ...(typeof meta.promise_token === 'string' ? { promiseToken: meta.promise_token } : {}),
    ...(estimated ? { estimatedCompletion: estimated } : {}),
    ...(timestamp ? { timestamp } : {}),
    ...(typeof meta.processing_time_ms === 'number' ? { processingTimeMs: meta.processing_time_ms } : {}),
    ...(typeof meta.server_version === 'string' ? { serverVersion: meta.server_version } : {}),
  };
}

/** A wire time (ISO-8601 text, or epoch milliseconds) as ISO-8601 text. */
function iso(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' && Number.isFinite(value)) return new Date(value).toISOString();
  return undefined;
}

/**
 * Sends the answers to an elicitation (`state` unchanged), or the user's decline, on the binding's wire: the same
 * tool, called again (a decline reaches its handler, which answers as it likes).
 */
export type LiteResume = (answer: LiteAnswer, ctx: WireContext) => Promise<WireOutcome>;

/** The MCP-lite answer member: the state with the answers, or with the action `decline`. */
export type LiteAnswer =
  | { state: string; answers: Record<string, unknown>; action?: undefined }
  | { state: string; action: 'decline'; answers?: undefined };

/**
 * An MCP-lite result (the fields of the HTTP result object, or of the gRPC `result` Struct) as an outcome. The
 * shapes are the ones docs/wire-format.md fixes for each `response_type`.
 */
export function fromLiteResult(
  fields: Record<string, unknown>,
  meta: LiteMeta,
  resume: LiteResume,
): WireOutcome {
  const m: OutcomeMeta = {
    ...(meta.timestamp ? { timestamp: meta.timestamp } : {}),
    ...(meta.processingTimeMs !== undefined ? { processingTimeMs: meta.processingTimeMs } : {}),
    ...(meta.serverVersion ? { serverVersion: meta.serverVersion } : {}),
  };
  switch (meta.responseType) {
    case 'promise':
      return {
        type: 'promise',
        token: meta.promiseToken ?? '',
        ...(meta.estimatedCompletion ? { estimatedCompletion: meta.estimatedCompletion } : {}),
        meta: m,
      };
    case 'failure': {
      const f = isRecord(fields.failure) ? fields.failure : {};
      return {
        type: 'failure',
        message: typeof f.message === 'string' ? f.message : 'The tool failed',
        ...(typeof f.code === 'string' ? { code: f.code } : {}),
        ...(f.details !== undefined ? { details: f.details } : {}),
        meta: m,
      };
    }
    case 'request-for-more-resource': {
      const r = isRecord(fields.resource_request) ? fields.resource_request : {};
      return {
        type: 'request-for-more-resource',
        resource: String(r.resource ?? ''),
        requested: Number(r.requested ?? 0),
        ...(typeof r.granted === 'number' ? { granted: r.granted } : {}),
        ...(typeof r.unit === 'string' ? { unit: r.unit } : {}),
        message: typeof r.message === 'string' ? r.message : 'More resource needed',
        meta: m,
      };
    }
    case 'elicitation': {
      const e = isRecord(fields.elicitation) ? fields.elicitation : {};
      const state = String(e.state ?? '');
      const requests = isRecord(e.requests) ? liteRequests(e.requests) : undefined;
      return {
        type: 'elicitation',
        message: String(e.message ?? ''),
        requestedSchema: (isRecord(e.requested_schema) ? e.requested_schema : {}) as JsonSchema,
        ...(requests ? { requests } : {}),
        resume: (values, ctx) =>
          resume(values === undefined ? { state, action: 'decline' } : { state, answers: values }, ctx),
      };
    }
    case 'answer':
      return { type: 'answer', value: fields.content, meta: m };
    default:
      return unhandledOutcome(meta.responseType);
  }
}

/**
 * The outcome kind of a received result's `response_type`: absent reads as an answer (a plain result), one of the
 * five as itself; any other value is refused, since taking a kind this client does not know for another would hand
 * the caller a wrong result.
 */
export function liteResponseType(value: unknown): ResponseType {
  if (value === undefined) return 'answer';
  return responseTypeOf(value) ?? unknownResponseType(value);
}

/** The refusal of a result whose outcome kind this client does not know (the value shown bounded and printable). */
export function unknownResponseType(value: unknown): never {
  throw new McpLiteError(
    'internal',
    `The server answered with an outcome kind this client does not know: ${printable(String(value), false).slice(0, 64)}`,
  );
}

function liteRequests(raw: Record<string, unknown>): Record<string, ElicitationRequest> {
  const out: Record<string, ElicitationRequest> = {};
  for (const [name, r] of Object.entries(raw)) {
    if (!isRecord(r)) continue;
    out[name] = {
      message: String(r.message ?? ''),
      requestedSchema: (isRecord(r.requested_schema) ? r.requested_schema : {}) as JsonSchema,
    };
  }
  return out;
}

/** A tool definition from an MCP-lite or MCP listing, normalised. */
export function toToolInfo(raw: Record<string, unknown>): import('./types.js').ToolInfo {
  const meta = isRecord(raw._meta) ? raw._meta : {};
  const type = raw['@type'] ?? raw.type ?? meta['mcplite/type'];
  const ui = toolUiOf(meta);
  return {
    name: String(raw.name ?? ''),
    ...(typeof type === 'string' && type !== '' ? { '@type': type } : {}),
    ...(typeof raw.title === 'string' && raw.title !== '' ? { title: raw.title } : {}),
    description: typeof raw.description === 'string' ? raw.description : '',
    inputSchema: (isRecord(raw.inputSchema)
      ? raw.inputSchema
      : isRecord(raw.input_schema)
        ? raw.input_schema
        : { type: 'object' }) as JsonSchema,
    ...(isRecord(raw.outputSchema) || isRecord(raw.output_schema)
      ? { outputSchema: (raw.outputSchema ?? raw.output_schema) as JsonSchema }
      : {}),
    ...(isRecord(raw.annotations) && Object.keys(raw.annotations).length > 0
      ? { annotations: raw.annotations }
      : {}),
    ...(ui ? { ui } : {}),
  };
}
