import { McpLiteError } from '../../core/errors.js';

/**
 * JSON <-> google.protobuf.Struct in @grpc/proto-loader's object form (`{ fields: { k: { stringValue } } }`).
 * The JSON side follows JSON.stringify, so that a result reads the same over gRPC as over HTTP: `toJSON` is
 * honoured, undefined and functions vanish from objects and become null in lists, non-finite numbers become
 * null. protobufjs names the well-known types' fields in camelCase whatever `keepCase` says; the snake_case
 * spelling is accepted too, for objects built by hand.
 */

/** A google.protobuf.Value in proto-loader's object form. */
export interface StructValue {
  nullValue?: 'NULL_VALUE' | 0;
  numberValue?: number;
  stringValue?: string;
  boolValue?: boolean;
  structValue?: StructObject;
  listValue?: { values?: StructValue[] };
  /** Which member of the oneof is set (proto-loader's `oneofs: true`). */
  kind?: string;
}

/** A google.protobuf.Struct in proto-loader's object form. */
export interface StructObject {
  fields?: Record<string, StructValue>;
}

const NULL: StructValue = { nullValue: 'NULL_VALUE' };
const MAX_DEPTH = 100;

/** A JSON object as a Struct. Anything but a plain object (arrays included) is rejected: a Struct is a map. */
export function toStruct(value: Record<string, unknown>): StructObject {
  return objectToStruct(value, 0);
}

/** A Struct as a plain JSON object (a missing Struct is `{}`). */
export function fromStruct(struct: StructObject | null | undefined): Record<string, unknown> {
  return structToObject(struct, 0);
}

function objectToStruct(value: Record<string, unknown>, depth: number): StructObject {
  const fields: Record<string, StructValue> = {};
  for (const key of Object.keys(value)) {
    const v = jsonToValue(value[key], depth + 1);
    if (v !== undefined) fields[key] = v;
  }
  return { fields };
}

/** undefined means "leave the key out" (JSON.stringify drops it from objects). */
function jsonToValue(value: unknown, depth: number): StructValue | undefined {
  if (depth > MAX_DEPTH)
    throw new McpLiteError('internal', 'Internal error', undefined, {
      cause: new Error('Result nests too deeply for a Struct'),
    });
  switch (typeof value) {
    case 'string':
      return { stringValue: value };
    case 'number':
      return Number.isFinite(value) ? { numberValue: value } : NULL;
    case 'boolean':
      return { boolValue: value };
    case 'undefined':
    case 'function':
    case 'symbol':
      return undefined;
    case 'bigint':
      throw new McpLiteError('internal', 'Internal error', undefined, {
        cause: new TypeError('A BigInt cannot be sent as JSON'),
      });
  }
  if (value === null) return NULL;
  const json = (value as { toJSON?: unknown }).toJSON;
  if (typeof json === 'function') return jsonToValue(json.call(value), depth);
  if (Array.isArray(value)) {
    const values = new Array<StructValue>(value.length);
    for (let i = 0; i < value.length; i++) values[i] = jsonToValue(value[i], depth + 1) ?? NULL;
    return { listValue: { values } };
  }
  return { structValue: objectToStruct(value as Record<string, unknown>, depth) };
}

function structToObject(struct: StructObject | null | undefined, depth: number): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const fields = struct?.fields;
  if (!fields) return out;
  for (const key of Object.keys(fields)) {
    const v = readValue(fields[key], depth + 1);
    // A field named "__proto__" must stay a plain key, never set the prototype (as JSON.parse does it).
    if (key === '__proto__')
      Object.defineProperty(out, key, { value: v, enumerable: true, writable: true, configurable: true });
    else out[key] = v;
  }
  return out;
}

function readValue(value: StructValue | null | undefined, depth: number): unknown {
  if (value === null || value === undefined) return null;
  if (depth > MAX_DEPTH) throw new McpLiteError('invalid_params', 'Invalid arguments: nested too deeply');
  const v = value as StructValue & Record<string, unknown>;
  const kind = v.kind ?? presentKind(v);
  switch (kind) {
    case 'numberValue':
    case 'number_value':
      return Number(v[kind]);
    case 'stringValue':
    case 'string_value':
      return String(v[kind]);
    case 'boolValue':
    case 'bool_value':
      return Boolean(v[kind]);
    case 'structValue':
    case 'struct_value':
      return structToObject(v[kind] as StructObject, depth);
    case 'listValue':
    case 'list_value': {
      const values = (v[kind] as { values?: StructValue[] } | null)?.values ?? [];
      const out = new Array<unknown>(values.length);
      for (let i = 0; i < values.length; i++) out[i] = readValue(values[i], depth + 1);
      return out;
    }
    default:
      return null;
  }
}

const KINDS = [
  'nullValue',
  'numberValue',
  'stringValue',
  'boolValue',
  'structValue',
  'listValue',
  'null_value',
  'number_value',
  'string_value',
  'bool_value',
  'struct_value',
  'list_value',
];

/** Without `oneofs: true` the set member is the one that is present. */
function presentKind(v: Record<string, unknown>): string | undefined {
  for (const k of KINDS) if (v[k] !== undefined && v[k] !== null) return k;
  return undefined;
}
