import { Ajv, type AnySchema, type ErrorObject, MissingRefError, type ValidateFunction } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import * as ajvFormats from 'ajv-formats';
import { precompiledMeta2020 } from './meta-validator-2020.js';
import { dottedPath, type FieldProblem, invalidParamsOf, type Validator } from './validation-errors.js';

/**
 * Validation with ajv, which compiles each schema to JavaScript (`new Function`): the fastest there is, where the
 * runtime allows generating code (`validator-portable.ts` is used where it does not).
 */

const addFormats = ((ajvFormats as any).default?.default ?? (ajvFormats as any).default) as (
  ajv: Ajv,
) => void;

// One instance per dialect, made on first use: compiling is the expensive part, so validators are compiled once
// per tool.
let ajv2020: Ajv2020 | undefined;
/**
 * No logger: a schema ajv cannot compile throws, and is reported by the caller; ajv would also print the
 * generated code of a compilation the runtime refused (an EvalError, after which `schema.ts` interprets schemas).
 */
export const AJV_OPTIONS = { allErrors: true, strict: false, useDefaults: true, logger: false } as const;
let ajv07: Ajv | undefined;

/** The 2020-12 meta-schema: the dialect of a schema without `$schema`, and the one precompiled at build time. */
export const META_2020_ID = 'https://json-schema.org/draft/2020-12/schema';

/**
 * ajv for 2020-12 that checks schemas of the 2020-12 meta-schema with the validator precompiled at build time
 * (`meta-validator-2020.ts`) rather than compiling the meta-schema first; any other meta-schema, and every
 * schema when running from source, is checked by ajv itself. The error is ajv's own, word for word.
 *
 * With the precompiled validator, the 2020-12 meta-schemas themselves are added only when something needs them
 * (a schema that refers to one, a schema of another dialect): adding them is most of what the constructor costs,
 * a few milliseconds of every server's start, and almost no tool schema ever refers to them.
 */
class Ajv2020Precompiled extends Ajv2020 {
  // Declared, not initialised: the base constructor sets it (through `_addDefaultMetaSchema`) before this
  // class's own fields would be, and an initialiser would overwrite it.
  declare private metaPending: boolean | undefined;

  override _addDefaultMetaSchema(): void {
    if (precompiledMeta2020 === undefined) super._addDefaultMetaSchema();
    else this.metaPending = true;
  }

  /** Adds the meta-schemas the constructor left out; whether they were added by this call. */
  addPendingMeta(): boolean {
    if (this.metaPending !== true) return false;
    this.metaPending = false;
    super._addDefaultMetaSchema();
    return true;
  }

  override validateSchema(schema: AnySchema, throwOrLogError?: boolean): boolean | Promise<unknown> {
    const meta = precompiledMeta2020;
    const dialect = typeof schema === 'object' ? schema.$schema : undefined;
    if (meta === undefined || typeof schema === 'boolean' || (dialect ?? META_2020_ID) !== META_2020_ID) {
      this.addPendingMeta();
      return super.validateSchema(schema, throwOrLogError);
    }
    const valid = meta(schema);
    this.errors = (meta.errors ?? null) as ErrorObject[] | null;
    if (!valid && throwOrLogError) throw new Error(`schema is invalid: ${this.errorsText()}`);
    return valid;
  }
}

function ajvFor(schema: Record<string, unknown>): Ajv {
  const dialect = typeof schema.$schema === 'string' ? schema.$schema : '';
  if (/draft-0[4-7]/.test(dialect)) {
    ajv07 ??= configure(new Ajv(AJV_OPTIONS));
    return ajv07;
  }
  ajv2020 ??= configure(new Ajv2020Precompiled(AJV_OPTIONS) as unknown as Ajv);
  return ajv2020 as unknown as Ajv;
}

function configure<T extends Ajv>(ajv: T): T {
  addFormats(ajv);
  return ajv;
}

/** Compiles `schema` with ajv; throws what ajv throws for a broken schema (or an EvalError where code is forbidden). */
export function compileWithAjv(schema: Record<string, unknown>): Validator {
  const validate = compileOn(ajvFor(schema), schema);
  return (value, what = 'arguments') => {
    if (validate(value)) return value;
    throw invalidParamsOf(what, (validate.errors ?? []).map(describe));
  };
}

/**
 * `ajv.compile(schema)`, again once the pending meta-schemas are added when the schema refers to something ajv
 * does not have (a failed compile leaves nothing behind that the second one trips over).
 */
function compileOn(ajv: Ajv, schema: Record<string, unknown>): ValidateFunction {
  try {
    return ajv.compile(schema);
  } catch (err) {
    if (err instanceof MissingRefError && ajv instanceof Ajv2020Precompiled && ajv.addPendingMeta())
      return ajv.compile(schema);
    throw err;
  }
}

function describe(e: ErrorObject): FieldProblem {
  const base = e.instancePath ? dottedPath(e.instancePath) : '(value)';
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
  return parent ? `${dottedPath(parent)}.${child}` : child;
}
