import type { StandardTypedV1 } from '@standard-schema/spec';
import type { FromSchema, JSONSchema } from 'json-schema-to-ts';

/**
 * The types a tool's schemas describe, read at compile time only (this file emits no code). Three kinds of schema
 * are understood: any Standard Schema library (zod 4, valibot, arktype: `~standard.types`), a JSON Schema literal
 * whose keywords are literal types (written `as const`, or inline in `defineTool`, whose type parameters are
 * `const`), read through json-schema-to-ts's `FromSchema`, and a JSON Schema whose type TypeScript has widened
 * (`Record<string, unknown>`, loaded at run time), which says nothing and types as `any`, as before inference
 * existed (so a handler that annotates its own arguments still compiles).
 */

/** What a widened or absent schema gives: arguments whose fields are not known at compile time. */
export type UntypedObject = any;

/** True when `S` is a JSON Schema TypeScript widened (any key, or a `type` that is just `string`). */
type IsWide<S> = string extends keyof S
  ? true
  : S extends { type: infer T }
    ? string extends T
      ? true
      : false
    : false;

/**
 * The value a schema accepts once validated (defaults filled in), as the handler sees it: the Standard Schema's
 * output type, or `FromSchema` of a literal JSON Schema (whose defaulted properties are then present).
 */
export type InferOutput<S> = S extends StandardTypedV1
  ? StandardTypedV1.InferOutput<S>
  : IsWide<S> extends true
    ? UntypedObject
    : S extends JSONSchema
      ? FromSchema<S>
      : UntypedObject;

/**
 * The value a caller may send for a schema: the Standard Schema's input type, or `FromSchema` of a literal JSON
 * Schema with its defaulted properties optional (the server fills them in).
 */
export type InferInput<S> = S extends StandardTypedV1
  ? StandardTypedV1.InferInput<S>
  : IsWide<S> extends true
    ? UntypedObject
    : S extends JSONSchema
      ? FromSchema<S, { keepDefaultedPropertiesOptional: true }>
      : UntypedObject;

/** A handler's arguments: what its input schema validates to, or any object when the tool gives none. */
export type ArgsOf<S> = [S] extends [undefined] ? UntypedObject : InferOutput<S>;

/** What a caller sends: what the input schema accepts, or any object when the tool gives none. */
export type InputOf<S> = [S] extends [undefined] ? UntypedObject : InferInput<S>;

/** What a handler must answer with: the output schema's type, or anything when the tool gives none. */
export type OutputOf<S> = [S] extends [undefined] ? unknown : InferOutput<S>;

/** The answers of an elicitation: the elicitation schema's type, or an object of unknown fields. */
export type AnswersOf<S> = [S] extends [undefined] ? Record<string, unknown> : InferOutput<S>;

/**
 * The compile-time twin of `checkToolSchemas` (`core/tool-schemas.ts`): a raw zod shape (`{ title: z.string() }`)
 * or a schema of something other than an object given as `inputSchema` makes `defineTool` fail to compile, with
 * this message in the error.
 */
export type InputSchemaProblem<S> = [S] extends [undefined]
  ? unknown
  : S extends StandardTypedV1
    ? InferOutput<S> extends Record<string, unknown>
      ? unknown
      : { inputSchema: 'inputSchema must describe an object: wrap the value, z.object({ value: ... })' }
    : IsRawShape<S> extends true
      ? { inputSchema: 'inputSchema is a raw zod shape: write z.object({ ... }) around it' }
      : S extends { type: infer T }
        ? string extends T
          ? unknown
          : T extends 'object'
            ? unknown
            : { inputSchema: "inputSchema must describe an object: use type: 'object' with properties" }
        : unknown;

/** A plain object whose every field is itself a schema object (zod's `~standard`, or zod 3's `_def`). */
type IsRawShape<S> = S extends object
  ? keyof S extends never
    ? false
    : S[keyof S] extends StandardTypedV1 | { _def: unknown }
      ? true
      : false
  : false;
