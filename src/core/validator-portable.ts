import { type OutputUnit, type Schema, Validator as SchemaValidator } from '@cfworker/json-schema';
import { dottedPath, type FieldProblem, invalidParamsOf, type Validator } from './validation-errors.js';

/**
 * Validation without generating code, for runtimes that forbid it (Cloudflare Workers: no `eval`, no
 * `new Function`): `@cfworker/json-schema` interprets the schema. It fills no defaults and words its problems
 * its own way, so this fills defaults as ajv's `useDefaults` does and reports problems in ajv's words, so that a
 * client sees the same `invalid_params` on every runtime.
 */

/** Deeper than any schema a person writes; bounds `$ref` cycles. */
const MAX_DEFAULT_DEPTH = 32;

/** Units that only say "a property (or item) below me failed": the failure below is reported instead. */
const WRAPPERS = new Set([
  'properties',
  'patternProperties',
  'items',
  'prefixItems',
  'additionalItems',
  'allOf',
  '$ref',
  '$recursiveRef',
  'dependentSchemas',
  'dependencies',
  'unevaluatedItems',
  'false',
]);

/** Prepares `schema` for interpretation (a broken schema shows only when a value meets the broken part). */
export function compilePortable(schema: Record<string, unknown>): Validator {
  const dialect = typeof schema.$schema === 'string' ? schema.$schema : '';
  const draft = /draft-04/.test(dialect) ? '4' : /draft-0[67]/.test(dialect) ? '7' : '2020-12';
  const validator = new SchemaValidator(schema as Schema, draft, false);
  return (value, what = 'arguments') => {
    fillDefaults(schema, schema, value, 0);
    const result = validator.validate(value);
    if (result.valid) return value;
    throw invalidParamsOf(what, problemsOf(schema, result.errors));
  };
}

/**
 * Sets each missing property that has a `default` to a copy of it, in `properties` of the schema and of the
 * subschemas that always apply (`allOf`, `$ref`, array `items`), as ajv's `useDefaults` does; never inside
 * `anyOf`, `oneOf`, `not` or `if`, where it cannot be known which branch applies.
 */
function fillDefaults(root: Record<string, unknown>, schema: unknown, value: unknown, depth: number): void {
  if (depth > MAX_DEFAULT_DEPTH || typeof schema !== 'object' || schema === null) return;
  const s = schema as Record<string, unknown>;
  if (typeof s.$ref === 'string') fillDefaults(root, resolveLocal(root, s.$ref), value, depth + 1);
  if (Array.isArray(s.allOf)) for (const sub of s.allOf) fillDefaults(root, sub, value, depth + 1);
  if (Array.isArray(value)) {
    if (typeof s.items === 'object' && s.items !== null && !Array.isArray(s.items))
      for (const item of value) fillDefaults(root, s.items, item, depth + 1);
    return;
  }
  if (typeof value !== 'object' || value === null) return;
  const properties = s.properties;
  if (typeof properties !== 'object' || properties === null) return;
  const target = value as Record<string, unknown>;
  for (const [key, sub] of Object.entries(properties as Record<string, unknown>)) {
    if (typeof sub !== 'object' || sub === null) continue;
    if (target[key] === undefined && 'default' in sub)
      target[key] = structuredClone((sub as { default: unknown }).default);
    fillDefaults(root, sub, target[key], depth + 1);
  }
}

/** What a `#/…` reference points at inside `root`; other references are not followed for defaults. */
function resolveLocal(root: Record<string, unknown>, ref: string): unknown {
  if (!ref.startsWith('#')) return undefined;
  let at: unknown = root;
  for (const part of ref.slice(2).split('/')) {
    if (part === '') continue;
    if (typeof at !== 'object' || at === null) return undefined;
    at = (at as Record<string, unknown>)[
      decodeURIComponent(part).replaceAll('~1', '/').replaceAll('~0', '~')
    ];
  }
  return at;
}

function problemsOf(root: Record<string, unknown>, units: readonly OutputUnit[]): FieldProblem[] {
  const problems: FieldProblem[] = [];
  for (const unit of units) {
    if (WRAPPERS.has(unit.keyword)) continue;
    problems.push(describe(unit, resolveLocal(root, unit.keywordLocation)));
  }
  return problems;
}

/** A problem in the words ajv uses for it (its `message` and `params.limit`), so both validators read alike. */
function describe(unit: OutputUnit, limit: unknown): FieldProblem {
  const pointer = unit.instanceLocation.slice(1);
  const field = pointer ? dottedPath(pointer) : '(value)';
  const child = (name: string) => (pointer ? `${field}.${name}` : name);
  const named = /"((?:[^"\\]|\\.)*)"/.exec(unit.error)?.[1] ?? '';
  const withLimit = (message: string) => ({ field, message, expected: limit });
  switch (unit.keyword) {
    case 'required':
      return { field: child(named), message: 'is required' };
    case 'additionalProperties':
    case 'unevaluatedProperties':
      // With a schema rather than `false`, the property's own problems follow and say more.
      return limit === false
        ? { field: child(named), message: 'is not an allowed property' }
        : { field: child(named), message: unit.error };
    case 'type': {
      const types = Array.isArray(limit) ? limit.join(',') : String(limit);
      return { field, message: `must be of type ${types}`, expected: limit };
    }
    case 'enum':
      return { field, message: `must be one of ${JSON.stringify(limit)}`, expected: limit };
    case 'const':
      return { field, message: 'must be equal to constant' };
    case 'minLength':
      return withLimit(`must NOT have fewer than ${String(limit)} characters`);
    case 'maxLength':
      return withLimit(`must NOT have more than ${String(limit)} characters`);
    case 'minItems':
      return withLimit(`must NOT have fewer than ${String(limit)} items`);
    case 'maxItems':
      return withLimit(`must NOT have more than ${String(limit)} items`);
    case 'minProperties':
      return withLimit(`must NOT have fewer than ${String(limit)} properties`);
    case 'maxProperties':
      return withLimit(`must NOT have more than ${String(limit)} properties`);
    case 'minimum':
      return withLimit(`must be >= ${String(limit)}`);
    case 'maximum':
      return withLimit(`must be <= ${String(limit)}`);
    case 'exclusiveMinimum':
      return withLimit(`must be > ${String(limit)}`);
    case 'exclusiveMaximum':
      return withLimit(`must be < ${String(limit)}`);
    case 'multipleOf':
      return { field, message: `must be multiple of ${String(limit)}` };
    case 'pattern':
      return { field, message: `must match pattern "${String(limit)}"` };
    case 'format':
      return { field, message: `must match format "${String(limit)}"` };
    case 'uniqueItems':
      return { field, message: 'must NOT have duplicate items' };
    default:
      return { field, message: unit.error };
  }
}
