import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { compileValidator } from './schema.js';

/**
 * Where code generation is forbidden (Cloudflare Workers), schemas are interpreted by @cfworker/json-schema
 * instead of compiled by ajv. Node forbids it too when asked (`--disallow-code-generation-from-strings`): a child
 * process run so validates each case, and its answers must be those ajv gives here, defaults and problems alike.
 */

const run = promisify(execFile);
const PROBE = fileURLToPath(new URL('../../test/support/no-codegen-validate.ts', import.meta.url));

interface Case {
  name: string;
  schema: Record<string, unknown>;
  values: unknown[];
}

const CASES: Case[] = [
  {
    name: 'required, unknown properties and a default',
    schema: {
      type: 'object',
      properties: { name: { type: 'string' }, greeting: { type: 'string', default: 'Hello' } },
      required: ['name'],
      additionalProperties: false,
    },
    values: [{}, { name: 'a' }, { name: 'a', extra: 1 }, 'not an object'],
  },
  {
    name: 'types, enums and limits',
    schema: {
      type: 'object',
      properties: {
        n: { type: 'integer', minimum: 1, maximum: 5 },
        e: { enum: ['a', 'b'] },
        s: { type: 'string', minLength: 2, maxLength: 3 },
        p: { type: 'string', pattern: '^[a-z]+$' },
        arr: { type: 'array', items: { type: 'number' }, minItems: 1 },
        k: { const: 'fixed' },
        m: { type: 'number', multipleOf: 5, exclusiveMaximum: 100 },
      },
    },
    values: [
      { n: 0, e: 'z', s: 'A' },
      { n: 9, s: 'abcd', arr: [] },
      { arr: ['x'], p: 'ABC', k: 'other', m: 7 },
      { n: 1.5, m: 100 },
      { n: 2, e: 'a', s: 'ab', arr: [1], p: 'abc', k: 'fixed', m: 10 },
    ],
  },
  {
    name: 'defaults through $ref, allOf and array items',
    schema: {
      type: 'object',
      $defs: { options: { type: 'object', properties: { depth: { type: 'integer', default: 2 } } } },
      properties: {
        options: { $ref: '#/$defs/options', default: {} },
        list: {
          type: 'array',
          items: { type: 'object', properties: { k: { type: 'string', default: 'v' } } },
        },
      },
      allOf: [{ properties: { mode: { type: 'string', default: 'fast' } } }],
    },
    values: [{}, { list: [{}, { k: 'z' }], options: { depth: 5 } }],
  },
  {
    name: 'formats',
    schema: {
      type: 'object',
      properties: { d: { type: 'string', format: 'date' }, m: { type: 'string', format: 'email' } },
    },
    values: [{ d: 'nope' }, { m: 'x' }, { d: '2024-01-02', m: 'a@b.co' }],
  },
  {
    name: 'nested fields, named by their dotted path',
    schema: {
      type: 'object',
      properties: {
        a: { type: 'object', properties: { b: { type: 'number' } }, required: ['c'] },
      },
    },
    values: [{ a: { b: 'x' } }, { a: { b: 1, c: true } }],
  },
  {
    name: 'a draft-07 schema',
    schema: {
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'object',
      properties: { x: { type: 'number', exclusiveMinimum: 0 } },
    },
    values: [{ x: 0 }, { x: 1 }],
  },
];

/** What a validator answers for each value: the value it passes on (defaults filled), or its error. */
function answersHere(schema: Record<string, unknown>, values: unknown[]): unknown[] {
  const validate = compileValidator(schema, 'the probe');
  return values.map((value) => {
    try {
      return { value: validate(structuredClone(value)) };
    } catch (err) {
      const e = err as { code?: string; message: string; data?: unknown };
      return { error: { code: e.code, message: e.message, data: e.data } };
    }
  });
}

async function answersWithoutCodeGeneration(schema: unknown, values: unknown[]): Promise<unknown[]> {
  const { stdout } = await run(
    process.execPath,
    [
      '--disallow-code-generation-from-strings',
      '--import',
      'tsx',
      PROBE,
      JSON.stringify(schema),
      JSON.stringify(values),
    ],
    { timeout: 30_000 },
  );
  return stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line));
}

describe('validation where code generation is forbidden', () => {
  it('is really forbidden in the child (so ajv cannot be what answers there)', async () => {
    await expect(
      run(process.execPath, ['--disallow-code-generation-from-strings', '-e', 'new Function("return 1")'], {
        timeout: 30_000,
      }),
    ).rejects.toMatchObject({ stderr: expect.stringContaining('Code generation from strings disallowed') });
  });

  for (const c of CASES) {
    it(`answers as ajv does: ${c.name}`, { timeout: 40_000 }, async () => {
      expect(await answersWithoutCodeGeneration(c.schema, c.values)).toEqual(answersHere(c.schema, c.values));
    });
  }
});
