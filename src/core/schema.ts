import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import * as ajvFormats from 'ajv-formats';
import { McpLiteError } from './errors.js';

/** A JSON Schema document (draft 2020-12 or draft-07). */
export type JsonSchema = Record<string, unknown>;

/**
 * Anything that can describe itself as JSON Schema: zod 4 schemas (and other Standard Schema libraries that
 * implement Standard JSON Schema). Detected structurally so that core does not depend on zod.
 */
export interface SchemaLike {
  '~standard'?: { vendor?: string; jsonSchema?: { input?: (opts: { target: string }) => JsonSchema } };
  toJSONSchema?: (opts?: Record<string, unknown>) => JsonSchema;
}

/** A schema as a tool author may give it: plain JSON Schema or a zod (Standard JSON Schema) object. */
export type SchemaInput = JsonSchema | SchemaLike;

/**
 * Converts a zod / Standard JSON Schema object to plain JSON Schema; plain JSON Schema passes through. A
 * schema library object that cannot describe itself as JSON Schema (zod 3, or another Standard Schema without
 * JSON Schema support) is refused with a message saying what to do, rather than compiled as if it were JSON
 * Schema (which failed with "data/required must be array").
 */
export function toJsonSchema(schema: SchemaInput): JsonSchema {
  const standard = (schema as SchemaLike)['~standard'];
  const std = standard?.jsonSchema?.input;
  if (typeof std === 'function') return stripDialect(std({ target: 'draft-2020-12' }));
  const toJson = (schema as SchemaLike).toJSONSchema;
  if (typeof toJson === 'function') return stripDialect(toJson.call(schema, { io: 'input' }));
  if (standard !== undefined || isZod3(schema)) throw new TypeError(unconvertible(schema, standard));
  return schema as JsonSchema;
}

/** zod 3 schemas carry `_def` and `safeParse`; versions before 3.24 do not carry `~standard` either. */
function isZod3(schema: unknown): boolean {
  const s = schema as { _def?: unknown; safeParse?: unknown };
  return typeof s._def === 'object' && s._def !== null && typeof s.safeParse === 'function';
}

function unconvertible(schema: unknown, standard: { vendor?: unknown } | undefined): string {
  // zod 3.25's `zod/v4` builds zod 4 schemas that cannot convert themselves yet (zod 4 itself can).
  if (typeof (schema as { _zod?: unknown })._zod === 'object') {
    return (
      'This zod/v4 schema (from zod 3.25) cannot describe itself as JSON Schema: upgrade to zod 4 ' +
      '(npm install zod@4), or pass z.toJSONSchema(schema)'
    );
  }
  if (isZod3(schema) || standard?.vendor === 'zod') {
    return (
      'This is a zod 3 schema, which cannot describe itself as JSON Schema: use zod 4 (npm install zod@4), ' +
      'or pass plain JSON Schema (for instance from zod-to-json-schema)'
    );
  }
  return (
    `This ${String(standard?.vendor ?? 'schema library')} schema cannot describe itself as JSON Schema ` +
    '(it does not implement Standard JSON Schema): pass plain JSON Schema instead'
  );
}

// zod adds `$schema` to every conversion; the listing is smaller without it and 2020-12 is our default dialect.
function stripDialect(schema: JsonSchema): JsonSchema {
  const { $schema: _ignored, ...rest } = schema;
  return rest;
}

const addFormats = ((ajvFormats as any).default?.default ?? (ajvFormats as any).default) as (
  ajv: Ajv,
) => void;

// One instance per dialect: compiling is the expensive part, so validators are compiled once per tool.
let ajv2020: Ajv2020 | undefined;
let ajv07: Ajv | undefined;

function ajvFor(schema: JsonSchema): Ajv {
  const dialect = typeof schema.$schema === 'string' ? schema.$schema : '';
  if (/draft-0[4-7]/.test(dialect)) {
    ajv07 ??= configure(new Ajv({ allErrors: true, strict: false, useDefaults: true }));
    return ajv07;
  }
  ajv2020 ??= configure(new Ajv2020({ allErrors: true, strict: false, useDefaults: true }) as unknown as Ajv);
  return ajv2020 as unknown as Ajv;
}

function configure<T extends Ajv>(ajv: T): T {
  addFormats(ajv);
  return ajv;
}

/** A compiled validator: returns the (defaults-filled) value or throws `invalid_params` with readable detail. */
export type Validator = (value: unknown, what?: string) => unknown;

/** Compiles a schema once; a broken schema is a programming error and fails at definition time. */
export function compileValidator(schema: JsonSchema, owner: string): Validator {
  let validate: ValidateFunction;
  try {
    validate = ajvFor(schema).compile(schema);
  } catch (err) {
    throw new Error(`Invalid JSON Schema for ${owner}: ${(err as Error).message}`, { cause: err });
  }
  return (value, what = 'arguments') => {
    if (validate(value)) return value;
    throw invalidParams(what, validate.errors ?? []);
  };
}

/** At most this many problems are reported, so hostile input cannot make a huge error body. */
const MAX_REPORTED_ERRORS = 10;

function invalidParams(what: string, errors: ErrorObject[]): McpLiteError {
  const problems = errors.slice(0, MAX_REPORTED_ERRORS).map(describe);
  const first = problems[0];
  const message = first ? `Invalid ${what}: '${first.field}' ${first.message}` : `Invalid ${what}`;
  return new McpLiteError('invalid_params', message, { errors: problems });
}

/** One validation problem in words a person (or a model) can act on: which field (a dotted path), what was expected. */
export interface FieldProblem {
  field: string;
  message: string;
  expected?: unknown;
}

function describe(e: ErrorObject): FieldProblem {
  const base = e.instancePath ? e.instancePath.slice(1).replaceAll('/', '.') : '(value)';
  const p = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case 'required':
      return { field: fieldName(e.instancePath, String(p.missingProperty)), message: 'is required' };
    case 'additionalProperties':
      return {
        field: fieldName(e.instancePath, String(p.additionalProperty)),
        message: 'is not an allowed property',
      };
    case 'type':
      return { field: base, message: `must be of type ${String(p.type)}`, expected: p.type };
    case 'enum':
      return {
        field: base,
        message: `must be one of ${JSON.stringify(p.allowedValues)}`,
        expected: p.allowedValues,
      };
    default:
      return {
        field: base,
        message: e.message ?? 'is invalid',
        ...(p.limit !== undefined ? { expected: p.limit } : {}),
      };
  }
}

function fieldName(parent: string, child: string): string {
  return parent ? `${parent.slice(1).replaceAll('/', '.')}.${child}` : child;
}
