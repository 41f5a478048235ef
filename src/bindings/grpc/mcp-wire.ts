import { fromBase64, toBase64 } from '../../core/base64.js';
import type { ContentAnnotations, ContentBlock, ResourceContents } from '../../core/content.js';
import type { ElicitationReply } from '../../core/elicitations.js';
import { McpLiteError } from '../../core/errors.js';
import type { ElicitationOutcome } from '../../core/outcomes.js';
import type { PromptMessage, RenderedPrompt, WirePrompt } from '../../core/prompts.js';
import type { WireResource, WireResourceTemplate } from '../../core/resources.js';
import { isObject as isObj } from '../common/jsonrpc.js';
import { inputRequests, toElicitationReply } from '../mcp/input-requests.js';
import { fromStruct, type StructObject, toStruct } from './struct.js';

/**
 * MCP's JSON shapes (as bindings/mcp answers them) in the object form of model_context_protocol's messages
 * (proto/mcp_messages.proto, loaded with `keepCase`, enums as names), and the requests' dependent responses
 * back into core's elicitation reply. Every rule stays where MCP's wire keeps it: this only changes the form.
 */

/** The key of resume_data under which the signed elicitation state travels (MCP 2026-07-28's `requestState`). */
export const RESUME_STATE = 'requestState';

type Obj = Record<string, unknown>;

const ROLE: Readonly<Record<string, string>> = { user: 'ROLE_USER', assistant: 'ROLE_ASSISTANT' };

/** model_context_protocol.Annotations; `lastModified` has no field and is left out. */
function annotations(a: ContentAnnotations | undefined): Obj | undefined {
  if (!a || (a.audience === undefined && a.priority === undefined)) return undefined;
  const out: Obj = {};
  if (a.audience) out.audience = a.audience.map((r) => ROLE[r] ?? 'ROLE_UNKNOWN');
  if (typeof a.priority === 'number') out.priority = a.priority;
  return out;
}

/** Copies the set, non-empty string fields of `from` under their proto names. */
function strings(from: Obj, names: Readonly<Record<string, string>>): Obj {
  const out: Obj = {};
  for (const [json, proto] of Object.entries(names)) {
    const v = from[json];
    if (typeof v === 'string' && v !== '') out[proto] = v;
  }
  return out;
}

const DESCRIBED = { name: 'name', title: 'title', description: 'description', mimeType: 'mime_type' };

/** A listed resource as model_context_protocol.Resource. */
export function toResource(r: WireResource): Obj {
  const out = strings(r as unknown as Obj, { uri: 'uri', ...DESCRIBED });
  const a = annotations(r.annotations);
  if (a) out.annotations = a;
  if (typeof r.size === 'number' && r.size >= 0) out.size = r.size;
  return out;
}

/** A listed resource template as model_context_protocol.ResourceTemplate. */
export function toResourceTemplate(t: WireResourceTemplate): Obj {
  const out = strings(t as unknown as Obj, { uriTemplate: 'uri_template', ...DESCRIBED });
  const a = annotations(t.annotations);
  if (a) out.annotations = a;
  return out;
}

/** Read contents as model_context_protocol.ResourceContents (base64 `blob` becomes bytes). */
export function toResourceContents(c: ResourceContents): Obj {
  const out = strings(c as unknown as Obj, { uri: 'uri', mimeType: 'mime_type', text: 'text' });
  if (typeof c.blob === 'string') out.blob = fromBase64(c.blob);
  return out;
}

/** A listed prompt as model_context_protocol.Prompt. */
export function toPrompt(p: WirePrompt): Obj {
  const out = strings(p as unknown as Obj, { name: 'name', title: 'title', description: 'description' });
  if (p.arguments?.length) {
    out.arguments = p.arguments.map((a) => {
      const arg = strings(a as unknown as Obj, { name: 'name', title: 'title', description: 'description' });
      if (a.required) arg.required = true;
      return arg;
    });
  }
  return out;
}

/** A rendered prompt as the body of model_context_protocol.GetPromptResponse. */
export function toPromptResponse(rendered: RenderedPrompt): Obj {
  const out: Obj = { messages: rendered.messages.map(toPromptMessage) };
  if (rendered.description) out.description = rendered.description;
  return out;
}

function toPromptMessage(m: PromptMessage): Obj {
  return { role: ROLE[m.role] ?? 'ROLE_UNKNOWN', ...toContent(m.content) };
}

/**
 * One MCP content block as the one set field of CallToolResponse.Content (or PromptMessage): text, image, audio,
 * embedded_resource or resource_link. A block of a type the proto has no field for is sent as its JSON text.
 */
export function toContent(block: ContentBlock): Obj {
  const b = block as Obj & { type: string; annotations?: ContentAnnotations };
  const a = annotations(b.annotations);
  const withAnnotations = (o: Obj): Obj => (a ? { ...o, annotations: a } : o);
  switch (b.type) {
    case 'text':
      return { text: withAnnotations({ text: String(b.text ?? '') }) };
    case 'image':
    case 'audio':
      return {
        [b.type]: withAnnotations({
          data: fromBase64(String(b.data ?? '')),
          mime_type: String(b.mimeType ?? ''),
        }),
      };
    case 'resource':
      return {
        embedded_resource: withAnnotations({ contents: toResourceContents(b.resource as ResourceContents) }),
      };
    case 'resource_link':
      return { resource_link: toResource(b as unknown as WireResource) };
    default:
      return { text: { text: JSON.stringify(block) } };
  }
}

/** An MCP tool (bindings/mcp `toMcpTool`) as model_context_protocol.Tool. */
export function toTool(tool: Obj): Obj {
  const out = strings(tool, { name: 'name', title: 'title', description: 'description' });
  out.input_schema = toStruct((tool.inputSchema as Obj | undefined) ?? { type: 'object' });
  if (isObj(tool.outputSchema)) out.output_schema = toStruct(tool.outputSchema);
  if (isObj(tool.annotations)) {
    const h = tool.annotations;
    const hints: Obj = strings(h, { title: 'title' });
    const flags = {
      readOnlyHint: 'read_only_hint',
      destructiveHint: 'destructive_hint',
      idempotentHint: 'idempotent_hint',
      openWorldHint: 'open_world_hint',
    };
    for (const [json, proto] of Object.entries(flags))
      if (typeof h[json] === 'boolean') hints[proto] = h[json];
    out.annotations = hints;
  }
  return out;
}

/**
 * The request's `common.metadata` key by which a client bounds how long CallTool waits for a promise's work
 * before answering with the promise (milliseconds; 0 answers with it at once).
 */
export const INLINE_WAIT_KEY = 'mcplite/inline_wait_ms';

/**
 * An MCP CallToolResult (bindings/mcp `toCallToolResult` or `toolErrorResult`) as
 * model_context_protocol.CallToolResponse: `content`, `structured_content`, `is_error`; its `_meta` (a promise's
 * `mcplite/promise`, a failure's `mcplite/failure`, an elicitation's fallback) goes into `common.metadata`.
 */
export function toCallToolResponse(result: Obj): Obj {
  const out: Obj = {
    content: Array.isArray(result.content) ? result.content.map((c) => toContent(c as ContentBlock)) : [],
  };
  if (isObj(result.structuredContent)) out.structured_content = toStruct(result.structuredContent);
  if (result.isError === true) out.is_error = true;
  if (isObj(result._meta)) out.common = { metadata: toStruct(result._meta) };
  return out;
}

/**
 * An elicitation as a CallToolResponse that asks: one dependent request per open form, under the keys MCP's
 * `inputRequests` gives them, and the signed state (with the call's name and arguments, which the state binds)
 * as resume data, to be sent back unchanged.
 */
export function toDependentResponse(outcome: ElicitationOutcome, name: string, args: unknown): Obj {
  const dependent: Obj = {};
  for (const [key, request] of Object.entries(inputRequests(outcome))) {
    const params = request.params as { message: string; requestedSchema: Obj };
    dependent[key] = { elicit_request: toElicitRequest(params.message, params.requestedSchema) };
  }
  const resume: Obj = { [RESUME_STATE]: outcome.state, name };
  if (isObj(args)) resume.arguments = args;
  return {
    common: { dependent_requests: dependent, resume_data: toStruct(resume) },
    content: [{ text: { text: outcome.message } }],
  };
}

const FORMATS: Readonly<Record<string, string>> = {
  email: 'FORMAT_EMAIL',
  uri: 'FORMAT_URI',
  date: 'FORMAT_DATE',
  'date-time': 'FORMAT_DATE_TIME',
};

/**
 * An elicitation form (a flat JSON Schema object, as MCP restricts it) as model_context_protocol.ElicitRequest:
 * each property its PrimitiveSchemaDefinition. The proto's number bounds are unsigned: a negative bound is left out.
 */
function toElicitRequest(message: string, schema: Obj): Obj {
  const fields: Obj = {};
  const properties = isObj(schema.properties) ? schema.properties : {};
  for (const [name, raw] of Object.entries(properties)) {
    if (!isObj(raw)) continue;
    const p = raw;
    const base = strings(p, { title: 'title', description: 'description' });
    const enumList = Array.isArray(p.enum) ? p.enum.map(String) : undefined;
    if (enumList) {
      const names = Array.isArray(p.enumNames) ? p.enumNames.map(String) : undefined;
      fields[name] = {
        enum_schema: { ...base, enum_list: enumList, ...(names ? { enum_names: names } : {}) },
      };
    } else if (p.type === 'number' || p.type === 'integer') {
      const n: Obj = { ...base };
      if (typeof p.minimum === 'number' && p.minimum >= 0) n.minimum = Math.ceil(p.minimum);
      if (typeof p.maximum === 'number' && p.maximum >= 0) n.maximum = Math.floor(p.maximum);
      fields[name] = { number_schema: n };
    } else if (p.type === 'boolean') {
      fields[name] = {
        boolean_schema: { ...base, ...(typeof p.default === 'boolean' ? { default: p.default } : {}) },
      };
    } else {
      const s: Obj = { ...base };
      if (typeof p.minLength === 'number') s.min_length = p.minLength;
      if (typeof p.maxLength === 'number') s.max_length = p.maxLength;
      const format = typeof p.format === 'string' ? FORMATS[p.format] : undefined;
      if (format) s.format = format;
      fields[name] = { string_schema: s };
    }
  }
  const required = Array.isArray(schema.required) ? schema.required.filter((r) => typeof r === 'string') : [];
  return { message, requested_schema: fields, required_fields: required };
}

/** model_context_protocol.RequestFields as the loader decodes it. */
export interface RawRequestFields {
  metadata?: StructObject | null;
  dependent_responses?: Record<
    string,
    { elicit_result?: { type?: string; content?: StructObject | null } | null }
  >;
  resume_data?: StructObject | null;
}

const ACTIONS: Readonly<Record<string, string>> = {
  TYPE_ACCEPT: 'accept',
  TYPE_DECLINE: 'decline',
  TYPE_CANCEL: 'cancel',
};

/**
 * A retry's answers: the signed state from `resume_data` and each dependent response's elicit_result, as MCP's
 * keyed `inputResponses` (`toElicitationReply` reads them, core checks the state and the answers). Undefined when
 * the request answers nothing; `invalid_params` when it carries responses but no state, or an unknown result type.
 */
export function elicitationReplyOfRetry(
  common: RawRequestFields | null | undefined,
): ElicitationReply | undefined {
  const responses = common?.dependent_responses;
  if (!responses || Object.keys(responses).length === 0) return undefined;
  const state = fromStruct(common?.resume_data)[RESUME_STATE];
  if (typeof state !== 'string') {
    throw new McpLiteError(
      'invalid_params',
      `Invalid params: dependent_responses need the resume_data they answer`,
      {
        reason: 'missing_resume_data',
      },
    );
  }
  const keyed: Obj = {};
  for (const [key, response] of Object.entries(responses)) {
    const result = response?.elicit_result;
    if (!result) continue;
    const action = ACTIONS[result.type ?? ''];
    if (!action) {
      throw new McpLiteError(
        'invalid_params',
        'Invalid params: an elicit_result type must be accept, decline or cancel',
        {
          reason: 'invalid_action',
        },
      );
    }
    keyed[key] = { action, content: fromStruct(result.content) };
  }
  const reply = toElicitationReply(state, keyed);
  if (!reply) {
    throw new McpLiteError('invalid_params', 'Invalid params: dependent_responses hold no elicit_result', {
      reason: 'missing_input_response',
    });
  }
  return reply;
}

// ---- and back: the proto's form as MCP's JSON, for the client (src/client/mcp-grpc-transport.ts) ----

const ROLE_NAME: Readonly<Record<string, string>> = { ROLE_USER: 'user', ROLE_ASSISTANT: 'assistant' };
const FORMAT_NAME: Readonly<Record<string, string>> = Object.fromEntries(
  Object.entries(FORMATS).map(([json, proto]) => [proto, json]),
);

type Raw = Record<string, any>;

/** Copies the set, non-empty string fields of `from` under their JSON names. */
function named(from: Raw, names: Readonly<Record<string, string>>): Obj {
  const out: Obj = {};
  for (const [proto, json] of Object.entries(names)) {
    const v = from[proto];
    if (typeof v === 'string' && v !== '') out[json] = v;
  }
  return out;
}

function annotationsOf(a: Raw | null | undefined): Obj | undefined {
  if (!a) return undefined;
  const out: Obj = {};
  if (Array.isArray(a.audience) && a.audience.length > 0)
    out.audience = a.audience.map((r: string) => ROLE_NAME[r] ?? r);
  if (typeof a.priority === 'number' && a.priority !== 0) out.priority = a.priority;
  return Object.keys(out).length > 0 ? out : undefined;
}

const DESCRIBED_JSON = { name: 'name', title: 'title', description: 'description', mime_type: 'mimeType' };

function withAnnotations(out: Obj, a: Raw | null | undefined): Obj {
  const annotations = annotationsOf(a);
  return annotations ? { ...out, annotations } : out;
}

/** model_context_protocol.Resource as MCP's resource (or resource link body). */
export function fromResource(r: Raw): Obj {
  const out = withAnnotations(named(r, { uri: 'uri', ...DESCRIBED_JSON }), r.annotations);
  const size = Number(r.size ?? 0);
  return size > 0 ? { ...out, size } : out;
}

/** model_context_protocol.ResourceTemplate as MCP's. */
export function fromResourceTemplate(t: Raw): Obj {
  return withAnnotations(named(t, { uri_template: 'uriTemplate', ...DESCRIBED_JSON }), t.annotations);
}

/** model_context_protocol.ResourceContents as MCP's (bytes as base64 `blob`; text when there is no blob). */
export function fromResourceContents(c: Raw): Obj {
  const out = named(c, { uri: 'uri', mime_type: 'mimeType' });
  const blob = c.blob as Uint8Array | undefined;
  if (blob && blob.length > 0) out.blob = toBase64(blob);
  else out.text = typeof c.text === 'string' ? c.text : '';
  return out;
}

/** model_context_protocol.Prompt as MCP's. */
export function fromPrompt(p: Raw): Obj {
  const out = named(p, { name: 'name', title: 'title', description: 'description' });
  if (Array.isArray(p.arguments) && p.arguments.length > 0) {
    out.arguments = p.arguments.map((a: Raw) => ({
      ...named(a, { name: 'name', title: 'title', description: 'description' }),
      ...(a.required ? { required: true } : {}),
    }));
  }
  return out;
}

/** The one set content field of CallToolResponse.Content or PromptMessage as an MCP content block. */
export function fromContent(c: Raw): Obj {
  if (c.text) return withAnnotations({ type: 'text', text: c.text.text ?? '' }, c.text.annotations);
  for (const type of ['image', 'audio'] as const) {
    const b = c[type];
    if (b)
      return withAnnotations(
        { type, data: toBase64(b.data ?? new Uint8Array()), mimeType: b.mime_type ?? '' },
        b.annotations,
      );
  }
  if (c.embedded_resource) {
    const e = c.embedded_resource;
    return withAnnotations(
      { type: 'resource', resource: fromResourceContents(e.contents ?? {}) },
      e.annotations,
    );
  }
  if (c.resource_link) return { type: 'resource_link', ...fromResource(c.resource_link) };
  return { type: 'text', text: '' };
}

/** model_context_protocol.Tool as MCP's. */
export function fromTool(t: Raw): Obj {
  const out = named(t, { name: 'name', title: 'title', description: 'description' });
  out.inputSchema = fromStruct(t.input_schema);
  if (t.output_schema) out.outputSchema = fromStruct(t.output_schema);
  if (t.annotations) {
    const h = t.annotations as Raw;
    const hints: Obj = named(h, { title: 'title' });
    const flags = {
      read_only_hint: 'readOnlyHint',
      destructive_hint: 'destructiveHint',
      idempotent_hint: 'idempotentHint',
      open_world_hint: 'openWorldHint',
    };
    for (const [proto, json] of Object.entries(flags))
      if (typeof h[proto] === 'boolean') hints[json] = h[proto];
    out.annotations = hints;
  }
  return out;
}

/**
 * A CallToolResponse as MCP 2026-07-28 answers tools/call: an `input_required` result (its `inputRequests` as MCP
 * keys them, the resume data kept to send back) when it carries dependent requests, else a `CallToolResult`
 * with `common.metadata` as its `_meta`.
 */
export function fromCallToolResponse(r: Raw): Obj {
  const requests = r.common?.dependent_requests as Record<string, Raw> | undefined;
  if (requests && Object.keys(requests).length > 0) {
    const inputRequests: Obj = {};
    for (const [key, request] of Object.entries(requests)) {
      const e = request.elicit_request ?? {};
      inputRequests[key] = {
        method: 'elicitation/create',
        params: { mode: 'form', message: e.message ?? '', requestedSchema: fromElicitSchema(e) },
      };
    }
    return { resultType: 'input_required', inputRequests, resumeData: r.common.resume_data ?? {} };
  }
  const out: Obj = { content: (r.content ?? []).map(fromContent) };
  if (r.structured_content) out.structuredContent = fromStruct(r.structured_content);
  if (r.is_error) out.isError = true;
  if (r.common?.metadata) out._meta = fromStruct(r.common.metadata);
  return out;
}

/** An ElicitRequest's fields as the flat JSON Schema object MCP's forms use. */
function fromElicitSchema(e: Raw): Obj {
  const properties: Obj = {};
  for (const [name, def] of Object.entries((e.requested_schema ?? {}) as Record<string, Raw>)) {
    const p = def.enum_schema ?? def.number_schema ?? def.boolean_schema ?? def.string_schema ?? {};
    const prop: Obj = named(p, { title: 'title', description: 'description' });
    if (def.enum_schema) {
      Object.assign(prop, { type: 'string', enum: p.enum_list ?? [] });
      if (p.enum_names?.length) prop.enumNames = p.enum_names;
    } else if (def.number_schema) {
      prop.type = 'number';
      if (p.minimum !== undefined) prop.minimum = Number(p.minimum);
      if (p.maximum !== undefined) prop.maximum = Number(p.maximum);
    } else if (def.boolean_schema) {
      prop.type = 'boolean';
      if (typeof p.default === 'boolean') prop.default = p.default;
    } else {
      prop.type = 'string';
      if (p.min_length !== undefined) prop.minLength = Number(p.min_length);
      if (p.max_length !== undefined) prop.maxLength = Number(p.max_length);
      const format = FORMAT_NAME[p.format ?? ''];
      if (format) prop.format = format;
    }
    properties[name] = prop;
  }
  const required = Array.isArray(e.required_fields) ? e.required_fields : [];
  return { type: 'object', properties, ...(required.length > 0 ? { required } : {}) };
}

const RESULT_TYPE: Readonly<Record<string, string>> = {
  accept: 'TYPE_ACCEPT',
  decline: 'TYPE_DECLINE',
  cancel: 'TYPE_CANCEL',
};

/** MCP's keyed `inputResponses` as RequestFields.dependent_responses. */
export function toDependentResponses(responses: Record<string, unknown>): Obj {
  const out: Obj = {};
  for (const [key, r] of Object.entries(responses)) {
    if (!isObj(r)) continue;
    const type = RESULT_TYPE[String(r.action)] ?? 'TYPE_CANCEL';
    out[key] = { elicit_result: { type, ...(isObj(r.content) ? { content: toStruct(r.content) } : {}) } };
  }
  return out;
}
