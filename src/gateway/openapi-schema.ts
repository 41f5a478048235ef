import type { JsonSchema } from '../core/schema.js';

/** A parsed OpenAPI object (dereferenced by the parser). */
export type Json = Record<string, unknown>;
type ParameterLocation = 'path' | 'query' | 'header';

/** Where one input property goes in the HTTP request. */
export interface Placement {
  property: string;
  name: string;
  in: ParameterLocation | 'body';
}

/** Headers the OpenAPI spec says a parameter cannot set (the request's own framing and auth). */
const RESERVED_HEADERS = new Set(['accept', 'content-type', 'authorization']);

/** The input schema and where each property goes; a name used twice gets its location as a suffix. */
export function inputOf(
  parameters: Json[],
  requestBody: Json | undefined,
): { schema: JsonSchema; placements: Placement[] } {
  const properties: Record<string, unknown> = {};
  const required: string[] = [];
  const placements: Placement[] = [];
  // An operation's own parameter overrides the path item's of the same name and location.
  const byKey = new Map<string, Json>();
  for (const p of parameters) byKey.set(`${String(p.in)}:${String(p.name)}`, p);
  for (const p of byKey.values()) {
    const where = p.in as string;
    const name = p.name as string;
    if (where !== 'path' && where !== 'query' && where !== 'header') continue;
    if (where === 'header' && RESERVED_HEADERS.has(name.toLowerCase())) continue;
    const property = name in properties ? `${name}__${where}` : name;
    properties[property] = {
      ...(clean(p.schema) as Json),
      ...(typeof p.description === 'string' ? { description: p.description } : {}),
    };
    if (p.required === true || where === 'path') required.push(property);
    placements.push({ property, name, in: where });
  }
  const json = jsonContent(requestBody?.content as Json | undefined);
  if (json) {
    const property = 'body' in properties ? 'body__body' : 'body';
    properties[property] = {
      ...(clean(json.schema) as Json),
      ...(typeof requestBody?.description === 'string' ? { description: requestBody.description } : {}),
    };
    if (requestBody?.required === true) required.push(property);
    placements.push({ property, name: property, in: 'body' });
  }
  return {
    schema: { type: 'object', properties, ...(required.length ? { required } : {}) } as JsonSchema,
    placements,
  };
}

/** The JSON 2xx response's schema, when it is an object (MCP's `outputSchema` must be). */
export function outputOf(operation: Json): JsonSchema | undefined {
  const responses = (operation.responses ?? {}) as Record<string, Json>;
  const status = Object.keys(responses)
    .filter((s) => /^2(\d\d|XX)$/i.test(s))
    .sort()[0];
  const json = status ? jsonContent(responses[status]?.content as Json | undefined) : undefined;
  const schema = clean(json?.schema) as Json | undefined;
  return schema && schema.type === 'object' ? (schema as JsonSchema) : undefined;
}

/** The `application/json` (or `+json`) media type of a content map. */
function jsonContent(content: Json | undefined): Json | undefined {
  if (!content) return undefined;
  const key = Object.keys(content).find((k) => /^application\/([\w.+-]+\+)?json\b/i.test(k));
  return key ? (content[key] as Json) : undefined;
}

/**
 * A schema as JSON without cycles or leftover `$ref`s: a circular reference (left as `$ref` by the parser) becomes
 * `{}` (any value), and OpenAPI's own keywords JSON Schema validators reject are dropped.
 */
function clean(schema: unknown, seen = new Set<unknown>()): unknown {
  if (Array.isArray(schema)) return schema.map((s) => clean(s, seen));
  if (typeof schema !== 'object' || schema === null) return schema ?? {};
  if (seen.has(schema) || '$ref' in schema) return {};
  seen.add(schema);
  const out: Json = {};
  for (const [k, v] of Object.entries(schema)) {
    if (k === 'nullable' || k === 'discriminator' || k === 'xml' || k === 'externalDocs' || k === 'example')
      continue;
    out[k] = typeof v === 'object' && v !== null ? clean(v, seen) : v;
  }
  if ((schema as Json).nullable === true && typeof out.type === 'string') out.type = [out.type, 'null'];
  seen.delete(schema);
  return out;
}
