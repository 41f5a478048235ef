import { fromBase64 } from '../../core/base64.js';
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
