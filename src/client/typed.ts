import type { AnswerOutcome, CallOptions, CallOutcome } from './types.js';

/**
 * The compile-time types of a server's tools, as `defineTool` records them (`~types`): a client given them
 * (`connect<typeof tools>(url)`, or `connect(server)` in process) checks each `call`'s name and arguments and
 * types the answer's `value`. Types only: nothing here exists at run time.
 */

/** A tool definition as far as typing a call needs: its name and, from `defineTool`, its input and output. */
export interface TypedToolLike {
  readonly name: string;
  readonly '~types'?: { readonly input: unknown; readonly output: unknown };
}

/** The tools a client is typed with: a list of definitions (`typeof tools`), or none (`UntypedTools`). */
export type ToolSet = readonly TypedToolLike[];

/** A client of no particular tools: any name, any object of arguments, an answer of unknown value. */
export type UntypedTools = readonly { readonly name: string }[];

/** The names a client typed with `Tools` can call (any string when they are not known). */
export type ToolNameOf<Tools extends ToolSet> = Tools[number]['name'];

/** The definition called `Name` in `Tools`. */
type ToolNamed<Tools extends ToolSet, Name> = Extract<Tools[number], { readonly name: Name }>;

/** What a caller sends to the tool `Name`: its input schema's input type, or any object when untyped. */
export type CallArgs<Tools extends ToolSet, Name> =
  ToolNamed<Tools, Name> extends {
    readonly '~types'?: { readonly input: infer In };
  }
    ? unknown extends In
      ? Record<string, unknown>
      : In
    : Record<string, unknown>;

/** What the tool `Name` answers with: its output schema's type, or `unknown`. */
export type ToolOutput<Tools extends ToolSet, Name> =
  ToolNamed<Tools, Name> extends {
    readonly '~types'?: { readonly output: infer Out };
  }
    ? Out
    : unknown;

/** An outcome whose answer's `value` has the tool's output type. */
export type TypedOutcome<Value> = unknown extends Value
  ? CallOutcome
  : Exclude<CallOutcome, AnswerOutcome> | (Omit<AnswerOutcome, 'value'> & { value: Value });

/**
 * The arguments after a call's name: the tool's arguments (optional only when every field is) and the options.
 */
export type CallRest<Tools extends ToolSet, Name> =
  Record<string, never> extends CallArgs<Tools, Name>
    ? [args?: CallArgs<Tools, Name>, options?: CallOptions]
    : [args: CallArgs<Tools, Name>, options?: CallOptions];
