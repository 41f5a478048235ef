import { trackLoading } from './deferred-modules.js';
import { McpLiteError } from './errors.js';
import type { Validator } from './validation-errors.js';
import { compileWithAjv } from './validator-ajv.js';

export type { FieldProblem, Validator } from './validation-errors.js';

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

/** Whether this runtime generates code from strings: `undefined` until the first schema is compiled. */
let generatesCode: boolean | undefined;

/**
 * Whether this runtime lets code be generated from strings, asked once, on first use (never at import): ajv
 * compiles each schema to a function, which Cloudflare Workers forbid, so there the interpreting validator runs.
 * Workers are known by name, because workerd lets code be generated while the script starts (where servers are
 * made) and forbids it in requests (where elicitation and config schemas are compiled): one isolate would
 * otherwise validate with two validators.
 */
function codeGenerationAllowed(): boolean {
  if (generatesCode === undefined) {
    const userAgent = (globalThis as { navigator?: { userAgent?: unknown } }).navigator?.userAgent;
    try {
      generatesCode = userAgent !== 'Cloudflare-Workers' && new Function('return true')() === true;
    } catch {
      generatesCode = false;
    }
  }
  return generatesCode;
}

/**
 * Compiles a schema once; a broken schema is a programming error and fails at definition time (where the runtime
 * forbids generating code, only as far as the interpreting validator can tell: `docs/runtimes.md`).
 */
export function compileValidator(schema: JsonSchema, owner: string): Validator {
  if (!codeGenerationAllowed()) return compilePortable(schema);
  try {
    return compileWithAjv(schema);
  } catch (err) {
    // A runtime may allow code generation at start-up and forbid it later (Workers outside a request): from then on
    // every schema is interpreted.
    if (err instanceof EvalError) {
      generatesCode = false;
      return compilePortable(schema);
    }
    throw new Error(`Invalid JSON Schema for ${owner}: ${(err as Error).message}`, { cause: err });
  }
}

type Portable = typeof import('./validator-portable.js');
let portable: Portable | undefined;
let portableLoading: Promise<Portable> | undefined;

/**
 * The interpreting validator, loaded only where it is used (runtimes that forbid generating code): Node, Bun and
 * Deno never load it. Until it has loaded (a moment after the first schema is compiled, before `createHandler`
 * serves its first request), a schema is prepared at its first use; it only shows its flaws when a value meets the
 * broken part anyway, so nothing is checked later than before.
 */
function compilePortable(schema: JsonSchema): Validator {
  if (portable) return portable.compilePortable(schema);
  if (!portableLoading) {
    portableLoading = import('./validator-portable.js').then((m) => {
      portable = m;
      return m;
    });
    trackLoading(portableLoading);
  }
  let compiled: Validator | undefined;
  return (value, what) => {
    if (!compiled) {
      // Only a call made in the same turn as the server (before any await) can come here first.
      if (!portable) throw new McpLiteError('unavailable', 'The schema validator is still loading: retry');
      compiled = portable.compilePortable(schema);
    }
    return compiled(value, what);
  };
}
