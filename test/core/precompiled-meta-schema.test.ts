/**
 * The built server checks tool schemas with the 2020-12 meta-schema validator precompiled at build time
 * (scripts/build-meta-validator.mjs) instead of having ajv compile the meta-schema at start. These tests load the
 * build (dist/, as the CLI runs it) and hold it to ajv's own check: for every schema here, valid or broken, the
 * built `compileValidator` accepts or refuses exactly as ajv compiling the meta-schema itself does (the source,
 * which has no precompiled validator), with the same message.
 */
import { describe, expect, it } from 'vitest';
import { compileValidator as compileFromSource } from '../../src/core/schema.js';
import { compileWithAjv as compileWithAjvFromSource } from '../../src/core/validator-ajv.js';

type Compile = typeof compileFromSource;
const built = (await import(new URL('../../dist/src/core/schema.js', import.meta.url).href)) as {
  compileValidator: Compile;
};
const precompiled = (await import(
  new URL('../../dist/src/core/meta-validator-2020.js', import.meta.url).href
)) as {
  precompiledMeta2020?: unknown;
};

const SCHEMAS: Record<string, unknown>[] = [
  { type: 'object', properties: { message: { type: 'string' }, repeat: { type: 'integer' } } },
  { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object' },
  { type: 'nope' },
  { type: ['string', 'string'] },
  { properties: { a: { type: 3 } } },
  { properties: { a: { properties: { b: { enum: 3 } } } } },
  { required: 'x' },
  { required: ['a', 'a'] },
  { items: { minimum: 'a' } },
  { prefixItems: [{ type: 'q' }], items: false },
  { $defs: { x: { type: [1] } }, $ref: '#/$defs/x' },
  { definitions: { x: { minLength: -1 } } },
  { patternProperties: { '^a': { type: 'z' } } },
  { minLength: -1, maxLength: 1.5 },
  { anyOf: [] },
  { oneOf: [{ type: 'string' }, { type: 'w' }] },
  { $ref: 5 },
  { $id: 'x#frag' },
  { $anchor: '1bad' },
  { $dynamicAnchor: '1bad' },
  { format: 3 },
  { additionalProperties: { type: 'x' } },
  { dependentSchemas: { a: { type: 'z' } }, dependentRequired: { a: [1] } },
  { dependencies: { a: 'b' } },
  { unevaluatedProperties: { type: 'z' }, unevaluatedItems: 3 },
  { contentSchema: { type: 'z' }, contentEncoding: 1 },
  // Built, not written as a literal: an object literal with `then` reads as a thenable to the linter.
  Object.fromEntries([
    ['if', { type: 'z' }],
    ['then', { type: 'y' }],
    ['else', { type: 'x' }],
  ]),
  { not: { not: { type: 'zz' } } },
  { examples: 'x', deprecated: 'x', readOnly: 1 },
  { $vocabulary: { 'https://example.com/v': 'yes' } },
  { type: 'object', properties: { n: { type: 'number', multipleOf: 0 } } },
  { propertyNames: { maxLength: 'x' }, minProperties: -2 },
];

/** What compiling `schema` gives: `ok`, or the message of the error thrown. */
function outcome(compile: Compile, schema: Record<string, unknown>): string {
  try {
    compile(structuredClone(schema), 'tool "t"');
    return 'ok';
  } catch (err) {
    return (err as Error).message;
  }
}

describe('the precompiled 2020-12 meta-schema validator', () => {
  it('is in the build', () => {
    expect(typeof precompiled.precompiledMeta2020).toBe('function');
  });

  it('accepts and refuses every schema as ajv itself does, with the same message', () => {
    let refused = 0;
    for (const schema of SCHEMAS) {
      const fromBuild = outcome(built.compileValidator, schema);
      expect(fromBuild, JSON.stringify(schema)).toBe(outcome(compileFromSource, schema));
      if (fromBuild !== 'ok') {
        refused++;
        expect(fromBuild).toMatch(/^Invalid JSON Schema for tool "t": schema is invalid: data/);
      }
    }
    // Most of the corpus is broken on purpose: the comparison is of errors, not only of successes.
    expect(refused).toBeGreaterThan(SCHEMAS.length / 2);
  });

  it('leaves the validated values and their errors as they were', () => {
    const schema = { type: 'object', properties: { n: { type: 'integer', default: 3 } }, required: ['m'] };
    const fromBuild = built.compileValidator(structuredClone(schema), 'tool "t"');
    const fromSource = compileFromSource(structuredClone(schema), 'tool "t"');
    const problem = (validate: ReturnType<Compile>) => {
      try {
        validate({});
        return 'valid';
      } catch (err) {
        return JSON.stringify(err);
      }
    };
    expect(problem(fromBuild)).toBe(problem(fromSource));
    expect(fromBuild({ m: 1 })).toEqual({ m: 1, n: 3 });
  });

  // The build adds the 2020-12 meta-schemas to ajv only once a schema needs them. Each case below gets an ajv of
  // its own (a fresh instance of the built module, by its query), so that each first need is met from nothing.
  const REFERS_TO_META = {
    type: 'object',
    properties: { schema: { $ref: 'https://json-schema.org/draft/2020-12/schema' } },
  };
  const FIRST_NEEDS: Record<string, Record<string, unknown>[]> = {
    'a schema that refers to the meta-schema': [REFERS_TO_META],
    'a schema that refers to one of its vocabularies': [
      { properties: { v: { $ref: 'https://json-schema.org/draft/2020-12/meta/validation' } } },
      REFERS_TO_META,
    ],
    'a schema of the meta-schema by its other name': [
      { $schema: 'http://json-schema.org/schema', type: 'nope' },
      REFERS_TO_META,
    ],
    'a schema of a dialect this ajv does not have': [
      { $schema: 'https://json-schema.org/draft/2019-09/schema', type: 'object' },
      { $schema: 'http://json-schema.org/schema', type: 'object' },
      REFERS_TO_META,
    ],
  };
  type CompileWithAjv = typeof compileWithAjvFromSource;
  const VALUES = [
    { schema: { type: 'string' } },
    { schema: { type: 3 } },
    { schema: 'x' },
    { v: { minimum: 'a' } },
  ];
  /** What compiling `schema` and validating each of VALUES gives, errors as their text. */
  function results(compile: CompileWithAjv, schema: Record<string, unknown>): string[] {
    let validate: ReturnType<CompileWithAjv>;
    try {
      validate = compile(structuredClone(schema));
    } catch (err) {
      return [`refused: ${(err as Error).message}`];
    }
    return VALUES.map((value) => {
      try {
        validate(structuredClone(value));
        return 'valid';
      } catch (err) {
        return JSON.stringify(err);
      }
    });
  }
  for (const [need, schemas] of Object.entries(FIRST_NEEDS)) {
    it(`compiles and validates as ajv itself does on ${need} first`, async () => {
      const fresh = (await import(
        new URL(`../../dist/src/core/validator-ajv.js?${encodeURIComponent(need)}`, import.meta.url).href
      )) as { compileWithAjv: CompileWithAjv };
      for (const schema of schemas) {
        const fromBuild = results(fresh.compileWithAjv, schema);
        expect(fromBuild, JSON.stringify(schema)).toEqual(results(compileWithAjvFromSource, schema));
        if (schema === REFERS_TO_META) {
          expect(fromBuild.slice(0, 3)).toEqual(['valid', expect.any(String), expect.any(String)]);
          expect(fromBuild[1]).not.toBe('valid');
        }
      }
    });
  }
});
