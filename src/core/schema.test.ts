import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { McpLiteError } from './errors.js';
import { compileValidator, toJsonSchema } from './schema.js';

function errorOf(fn: () => unknown): McpLiteError {
  try {
    fn();
  } catch (err) {
    return err as McpLiteError;
  }
  throw new Error('expected a throw');
}

describe('schema validation', () => {
  const schema = {
    type: 'object',
    required: ['query'],
    properties: {
      query: { type: 'string' },
      limit: { type: 'integer', minimum: 1, maximum: 100, default: 10 },
    },
  };

  it('fills defaults and accepts valid input', () => {
    const validate = compileValidator(schema, 'test');
    expect(validate({ query: 'x' })).toEqual({ query: 'x', limit: 10 });
  });

  it('names the field and what was expected', () => {
    const validate = compileValidator(schema, 'test');
    const missing = errorOf(() => validate({}));
    expect(missing.code).toBe('invalid_params');
    expect(missing.message).toContain("'query' is required");
    const tooBig = errorOf(() => validate({ query: 'x', limit: 500 }));
    expect(tooBig.data?.errors).toEqual([{ field: 'limit', message: 'must be <= 100', expected: 100 }]);
    const wrongType = errorOf(() => validate({ query: 5 }));
    expect(wrongType.message).toContain("'query' must be of type string");
  });

  it('speaks draft-07 when the schema says so, and draft 2020-12 otherwise', () => {
    const draft07 = compileValidator(
      {
        $schema: 'http://json-schema.org/draft-07/schema#',
        type: 'array',
        items: [{ type: 'string' }],
        additionalItems: false,
      },
      'draft-07',
    );
    expect(draft07(['a'])).toEqual(['a']);
    expect(() => draft07(['a', 'b'])).toThrow(McpLiteError);
    const draft2020 = compileValidator(
      { type: 'array', prefixItems: [{ type: 'string' }], items: false },
      '2020-12',
    );
    expect(draft2020(['a'])).toEqual(['a']);
    expect(() => draft2020(['a', 1])).toThrow(McpLiteError);
  });

  it('converts zod schemas to JSON Schema', () => {
    const json = toJsonSchema(
      z.object({ query: z.string().describe('Search query'), limit: z.number().int().optional() }),
    );
    expect(json).toMatchObject({
      type: 'object',
      required: ['query'],
      properties: { query: { type: 'string', description: 'Search query' }, limit: { type: 'integer' } },
    });
    expect(json).not.toHaveProperty('$schema');
  });

  it('refuses a broken schema at definition time', () => {
    expect(() => compileValidator({ type: 'no-such-type' }, 'tool "x"')).toThrow(
      /Invalid JSON Schema for tool "x"/,
    );
  });
});
