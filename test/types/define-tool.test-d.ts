/**
 * What `defineTool` and the client's `call` infer from a tool's schemas, checked by the compiler only
 * (`tsc -p test/types/tsconfig.json`, part of `npm run lint`): `expectTypeOf` for what must compile with the
 * types given, `@ts-expect-error` for what must not compile at all.
 */
import type { StandardSchemaV1 } from '@standard-schema/spec';
import { expectTypeOf } from 'vitest';
import { z } from 'zod';
import { toAISDKTools } from '../../src/client/ai.js';
import { type Client, connect } from '../../src/client/index.js';
import { toLangChainTools } from '../../src/client/langchain.js';
import { createServer, defineTool, elicit, failure, reportProgress } from '../../src/index.js';

// zod 4: the handler's arguments are the schema's output (defaults filled in).
const createNote = defineTool({
  name: 'create_note',
  inputSchema: z.object({ title: z.string(), tags: z.array(z.string()).default([]) }),
  outputSchema: z.object({ id: z.number() }),
  handler: (args) => {
    expectTypeOf(args).toEqualTypeOf<{ title: string; tags: string[] }>();
    // @ts-expect-error a misspelt field is an error
    void args.titel;
    // @ts-expect-error a string is no number
    const n: number = args.title;
    void n;
    return { id: 1 };
  },
});

// The answer is checked against outputSchema: directly, through a promise, and as a generator's return.
// @ts-expect-error `id` must be a number
defineTool({
  name: 'wrong_answer',
  inputSchema: z.object({}),
  outputSchema: z.object({ id: z.number() }),
  handler: () => ({ id: 'one' }),
});
defineTool({
  name: 'async_answer',
  outputSchema: z.object({ id: z.number() }),
  handler: async () => (Math.random() > 0.5 ? { id: 2 } : failure('no id today')),
});
// @ts-expect-error the promise must resolve to the output type
defineTool({
  name: 'wrong_async_answer',
  outputSchema: z.object({ id: z.number() }),
  handler: async () => ({ id: null }),
});
defineTool({
  name: 'streamed_answer',
  outputSchema: z.object({ count: z.number() }),
  handler: async function* () {
    yield 'partials are any value';
    return { count: 3 };
  },
});
// @ts-expect-error the generator's return value is the answer
defineTool({
  name: 'wrong_streamed_answer',
  outputSchema: z.object({ count: z.number() }),
  handler: async function* () {
    yield 1;
    return { count: '3' };
  },
});

// Any Standard Schema library: a hand-written one (as valibot or arktype objects are typed) is enough.
const point: StandardSchemaV1<{ x: number; y?: number }, { x: number; y: number }> = {
  '~standard': {
    version: 1,
    vendor: 'hand-written',
    validate: (value) => ({ value: value as { x: number; y: number } }),
  },
};
defineTool({
  name: 'plot',
  inputSchema: point,
  handler: (args) => {
    expectTypeOf(args).toEqualTypeOf<{ x: number; y: number }>();
    return args.x + args.y;
  },
});

// A JSON Schema literal, inline (defineTool's type parameters are const) or written `as const`.
defineTool({
  name: 'json_inline',
  inputSchema: {
    type: 'object',
    properties: { city: { type: 'string' }, days: { type: 'integer', default: 3 } },
    required: ['city'],
    additionalProperties: false,
  },
  handler: (args) => {
    expectTypeOf(args).toEqualTypeOf<{ city: string; days: number }>();
    return args.city;
  },
});
const forecastSchema = {
  type: 'object',
  properties: { city: { type: 'string' }, unit: { enum: ['C', 'F'] } },
  required: ['city', 'unit'],
  additionalProperties: false,
} as const;
defineTool({
  name: 'json_as_const',
  inputSchema: forecastSchema,
  handler: (args) => {
    expectTypeOf(args.unit).toEqualTypeOf<'C' | 'F'>();
    // @ts-expect-error not a property of the schema
    void args.country;
    return args.city;
  },
});

// A JSON Schema TypeScript widened says nothing: arguments are `any`, as before inference.
const loaded: Record<string, unknown> = { type: 'object' };
defineTool({
  name: 'json_loaded',
  inputSchema: loaded,
  handler: (args: { anything: string }) => args.anything,
});

// Not object schemas and raw zod shapes do not compile (and throw when run: test/core/define-time-schemas.test.ts).
// @ts-expect-error a raw zod shape: write z.object({ title: z.string() })
defineTool({ name: 'raw_shape', inputSchema: { title: z.string() }, handler: () => 'x' });
// @ts-expect-error the arguments must be an object
defineTool({ name: 'string_input', inputSchema: z.string(), handler: () => 'x' });
// @ts-expect-error the arguments must be an object
defineTool({ name: 'json_string_input', inputSchema: { type: 'string' }, handler: () => 'x' });

// The answers of an elicitation are typed from the tool's elicitationSchema once the user accepted.
defineTool({
  name: 'confirm_delete',
  inputSchema: z.object({ path: z.string() }),
  elicitationSchema: z.object({ confirm: z.boolean(), reason: z.string().optional() }),
  handler: (args, ctx) => {
    if (!ctx.elicitation) return elicit({ message: `Delete ${args.path}?` });
    if (ctx.elicitation.action !== 'accept') {
      expectTypeOf(ctx.elicitation.answers.confirm).toEqualTypeOf<boolean | undefined>();
      return 'kept';
    }
    expectTypeOf(ctx.elicitation.answers).toEqualTypeOf<{ confirm: boolean; reason?: string | undefined }>();
    // @ts-expect-error not a field of the elicitation schema
    void ctx.elicitation.answers.confirmed;
    return ctx.elicitation.answers.confirm ? 'deleted' : 'kept';
  },
});

// The old form, an explicit argument type, still compiles.
defineTool<{ id: string }>({ name: 'explicit', handler: (args) => args.id.toUpperCase() });

// The client's call, typed with the server's tools.
const tools = [createNote];
async function typedCalls(): Promise<void> {
  const client = await connect<typeof tools>(createServer({ tools }));
  expectTypeOf(client).toEqualTypeOf<Client<typeof tools>>();
  const outcome = await client.call('create_note', { title: 'Groceries' });
  if (outcome.type === 'answer') expectTypeOf(outcome.value).toEqualTypeOf<{ id: number }>();
  // @ts-expect-error no such tool on this server
  await client.call('delete_note', {});
  // @ts-expect-error `title` is required
  await client.call('create_note', {});
  // @ts-expect-error `title` is a string
  await client.call('create_note', { title: 7 });

  const untyped = await connect('http://127.0.0.1:3000/mcp');
  const any = await untyped.call('whatever', { a: 1 });
  if (any.type === 'answer') expectTypeOf(any.value).toEqualTypeOf<unknown>();
}
void typedCalls;

// A typed client goes wherever a client goes (the AI SDK and LangChain adapters).
async function adapters(): Promise<void> {
  const client = await connect<typeof tools>(createServer({ tools }));
  await toAISDKTools(client);
  await toLangChainTools(client);
}
void adapters;

// docs/tools.md's examples: a JSON Schema constant with an optional field, and progress from a typed context.
const forecast = {
  type: 'object',
  properties: { city: { type: 'string' }, unit: { enum: ['C', 'F'] } },
  required: ['city'],
  additionalProperties: false,
} as const;
defineTool({
  name: 'forecast',
  inputSchema: forecast,
  handler: ({ city, unit }) => `${city} in ${unit ?? 'C'}`,
});
defineTool({
  name: 'progress_with_answers',
  elicitationSchema: z.object({ go: z.boolean() }),
  handler: async (_args, ctx) => {
    await reportProgress(ctx, 1, { total: 2 });
    return ctx.elicitation?.action === 'accept' && ctx.elicitation.answers.go;
  },
});
