import { Metadata, status } from '@grpc/grpc-js';
import type { ErrorCode, McpLiteError } from '../../core/errors.js';
import type { CallResult, ResponseMeta, ResponseType } from '../../core/outcomes.js';
import type { RenderedPrompt, WirePrompt } from '../../core/prompts.js';
import type { WireTool } from '../../core/tool.js';
import { resultFields } from '../common/mcp-lite-result.js';
import { encodeStatusDetails, STATUS_DETAILS_KEY } from './status-details.js';
import { type StructObject, toStruct } from './struct.js';

/**
 * The gRPC status of each core error code (spec 5.5): a pure table. Codes that the gRPC wire itself never
 * produces (parse errors, media types) still get the nearest status, so the table is total.
 */
export const GRPC_STATUS: Readonly<Record<ErrorCode, status>> = {
  parse_error: status.INVALID_ARGUMENT,
  invalid_request: status.INVALID_ARGUMENT,
  invalid_params: status.INVALID_ARGUMENT,
  method_not_found: status.UNIMPLEMENTED,
  method_not_allowed: status.UNIMPLEMENTED,
  tool_not_found: status.NOT_FOUND,
  promise_not_found: status.NOT_FOUND,
  promise_expired: status.NOT_FOUND,
  cancelled: status.CANCELLED,
  deadline_exceeded: status.DEADLINE_EXCEEDED,
  unauthenticated: status.UNAUTHENTICATED,
  forbidden: status.PERMISSION_DENIED,
  payload_too_large: status.RESOURCE_EXHAUSTED,
  resource_exhausted: status.RESOURCE_EXHAUSTED,
  rate_limited: status.RESOURCE_EXHAUSTED,
  unsupported_media_type: status.INVALID_ARGUMENT,
  unavailable: status.UNAVAILABLE,
  internal: status.INTERNAL,
  resource_not_found: status.NOT_FOUND,
  session_not_found: status.NOT_FOUND,
  header_mismatch: status.INVALID_ARGUMENT,
  invalid_meta: status.INVALID_ARGUMENT,
  missing_capability: status.FAILED_PRECONDITION,
  unsupported_version: status.INVALID_ARGUMENT,
  prompt_not_found: status.NOT_FOUND,
  task_not_found: status.NOT_FOUND,
  webtool_not_found: status.NOT_FOUND,
  config_invalid: status.INVALID_ARGUMENT,
};

/** The ResponseType enum name of each outcome (REQUEST_FOR_MORE_RESOURCE is an added value). */
export const RESPONSE_TYPE: Readonly<Record<ResponseType, string>> = {
  answer: 'ANSWER',
  promise: 'PROMISE',
  elicitation: 'ELICITATION',
  failure: 'FAILURE',
  'request-for-more-resource': 'REQUEST_FOR_MORE_RESOURCE',
};

/** mcplite.ResponseMeta in the loader's object form. int64 fields are epoch milliseconds. */
export interface WireMeta {
  response_type: string;
  promise_token?: string;
  timestamp: number;
  processing_time_ms: number;
  server_version: string;
  estimated_completion?: number;
}

/** mcplite.ToolResponse in the loader's object form. */
export interface WireToolResponse {
  result: StructObject;
  meta?: WireMeta;
  partial?: boolean;
}

/** mcplite.Tool in the loader's object form. */
export interface WireGrpcTool {
  name: string;
  type: string;
  description: string;
  input_schema: StructObject;
  title?: string;
  output_schema?: StructObject;
  annotations?: StructObject;
}

/**
 * The final ToolResponse of a call. `result` holds the MCP-lite result fields the HTTP binding sends too
 * (`resultFields` in bindings/common/mcp-lite-result.ts), so one outcome reads the same on both wires; `meta`
 * carries `_meta` with times as epoch milliseconds.
 */
export function toToolResponse(result: CallResult): WireToolResponse {
  return { result: toStruct(resultFields(result.outcome)), meta: toWireMeta(result.meta) };
}

/** The metadata key of the caller's session (MCP-lite context), in requests and in a call's trailing metadata. */
export const SESSION_METADATA_KEY = 'mcplite-session';

/**
 * The trailing metadata of a call whose tool set the caller's session (`mcplite-session`), or undefined: gRPC
 * carries it beside the result, since mcplite.ResponseMeta has no field for it (old clients keep working).
 */
export function sessionTrailer(result: CallResult): Metadata | undefined {
  if (result.meta.session === undefined) return undefined;
  const metadata = new Metadata();
  metadata.set(SESSION_METADATA_KEY, result.meta.session);
  return metadata;
}

/** A partial message of CallToolStream: `{ partial: data }` as spec A.4, no meta. */
export function toPartialResponse(data: unknown): WireToolResponse {
  return { result: toStruct({ partial: data }), partial: true };
}

/** `_meta` as mcplite.ResponseMeta. */
function toWireMeta(meta: ResponseMeta): WireMeta {
  const wire: WireMeta = {
    response_type: RESPONSE_TYPE[meta.response_type],
    timestamp: meta.timestamp,
    processing_time_ms: meta.processing_time_ms,
    server_version: meta.server_version,
  };
  if (meta.promise_token !== undefined) wire.promise_token = meta.promise_token;
  if (meta.estimated_completion !== undefined) wire.estimated_completion = meta.estimated_completion;
  return wire;
}

/** A listed tool as mcplite.Tool (`@type` becomes `type`, schemas become Structs). */
export function toGrpcTool(tool: WireTool): WireGrpcTool {
  const wire: WireGrpcTool = {
    name: tool.name,
    type: tool['@type'] ?? '',
    description: tool.description,
    input_schema: toStruct(tool.inputSchema as Record<string, unknown>),
  };
  if (tool.title) wire.title = tool.title;
  if (tool.outputSchema) wire.output_schema = toStruct(tool.outputSchema as Record<string, unknown>);
  if (tool.annotations) wire.annotations = toStruct(tool.annotations);
  return wire;
}

/** A listed prompt as mcplite.Prompt (unset fields left out). */
export function toGrpcPrompt(prompt: WirePrompt): Record<string, unknown> {
  const { arguments: args, ...rest } = prompt;
  return args ? { ...rest, arguments: args.map((a) => ({ ...a })) } : { ...rest };
}

/** A rendered prompt as mcplite.PromptResponse: each message's content block as a Struct, as MCP sends it. */
export function toGrpcPromptResponse(rendered: RenderedPrompt): Record<string, unknown> {
  return {
    ...(rendered.description !== undefined ? { description: rendered.description } : {}),
    messages: rendered.messages.map((m) => ({
      role: m.role,
      content: toStruct(m.content as unknown as Record<string, unknown>),
    })),
  };
}

/** A gRPC status as grpc-js takes it from a handler. */
export interface GrpcStatusError {
  code: status;
  details: string;
  metadata: Metadata;
}

/**
 * An McpLiteError as a gRPC status: the mapped code, the message (core's names the tool for NOT_FOUND, spec A.5),
 * and a google.rpc.Status with an ErrorInfo (reason = the core code upper-cased, metadata = `data`) in the
 * `grpc-status-details-bin` trailer. Internal errors carry nothing but "Internal error".
 */
export function toGrpcError(err: McpLiteError): GrpcStatusError {
  const code = GRPC_STATUS[err.code];
  const internal = err.code === 'internal';
  const data = internal ? undefined : err.data;
  // Core's tool_not_found message already names the tool (spec A.5's "Tool not found: <name>") and suggests one.
  const details = internal ? 'Internal error' : err.message;
  const metadata = new Metadata();
  metadata.set(
    STATUS_DETAILS_KEY,
    encodeStatusDetails({ code, message: details, reason: err.code.toUpperCase(), data }),
  );
  // The OAuth challenge (core/oauth/challenge.ts) in trailers too, where HTTP clients of gRPC gateways read it.
  if (typeof data?.wwwAuthenticate === 'string') metadata.set('www-authenticate', data.wwwAuthenticate);
  if (typeof data?.dpopNonce === 'string') metadata.set('dpop-nonce', data.dpopNonce);
  return { code, details, metadata };
}
