import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import * as ajvFormats from 'ajv-formats';
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
const AJV_OPTIONS = { allErrors: true, strict: false, useDefaults: true, logger: false } as const;
let ajv07: Ajv | undefined;

function ajvFor(schema: Record<string, unknown>): Ajv {
  const dialect = typeof schema.$schema === 'string' ? schema.$schema : '';
  if (/draft-0[4-7]/.test(dialect)) {
    ajv07 ??= configure(new Ajv(AJV_OPTIONS));
    return ajv07;
  }
  ajv2020 ??= configure(new Ajv2020(AJV_OPTIONS) as unknown as Ajv);
  return ajv2020 as unknown as Ajv;
}

function configure<T extends Ajv>(ajv: T): T {
  addFormats(ajv);
  return ajv;
}

/** Compiles `schema` with ajv; throws what ajv throws for a broken schema (or an EvalError where code is forbidden). */
export function compileWithAjv(schema: Record<string, unknown>): Validator {
  const validate: ValidateFunction = ajvFor(schema).compile(schema);
  return (value, what = 'arguments') => {
    if (validate(value)) return value;
    throw invalidParamsOf(what, (validate.errors ?? []).map(describe));
  };
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
