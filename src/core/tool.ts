import { checkToolUi, type ToolAudience, type ToolView } from './apps/ui.js';
import type { Principal } from './auth.js';
import type { AnswersOf, ArgsOf, InputOf, InputSchemaProblem, OutputOf } from './infer.js';
import type { Logger } from './logger.js';
import type { BindingName } from './operation.js';
import type { HandlerOutcome } from './outcomes.js';
import type { JsonSchema, SchemaInput } from './schema.js';
import { checkToolSchemas } from './tool-schemas.js';

/** Hints about a tool's behaviour, as in MCP (`readOnlyHint`, `destructiveHint`, …). */
export interface ToolAnnotations {
  title?: string;
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
  [key: string]: unknown;
}

/**
 * What the user did with an elicitation: `accept` (with answers), `decline` (said no) or `cancel` (dismissed it
 * without choosing), as MCP names them.
 */
export type ElicitationAction = 'accept' | 'decline' | 'cancel';

/**
 * The answers to an elicitation, verified against the signed state, as the handler sees them. `Answers` is the
 * type of the tool's `elicitationSchema` (see `defineTool`): checking `action === 'accept'` narrows `answers` to
 * it, since on a decline or cancel nothing was answered.
 */
export type ElicitationAnswers<Answers = Record<string, unknown>> =
  | (ElicitationReplyFields & {
      /** The user answered. */
      action: 'accept';
      /**
       * The user's answers, validated against the schema the handler asked with. For `elicit({ requests })`:
       * keyed by request name, every request answered (core asks again for missing ones before calling the
       * handler).
       */
      answers: Answers;
    })
  | (ElicitationReplyFields & {
      /**
       * The user said no (`decline`) or dismissed the form (`cancel`). The handler runs again all the same and
       * answers as it sees fit ("kept the note"); if it elicits again instead, the call ends as declined.
       */
      action: Exclude<ElicitationAction, 'accept'>;
      /** Empty: nothing was answered (typed as the answers, every field optional, so reading them is checked). */
      answers: Partial<Answers>;
    });

/** What every elicitation reply carries, whatever the user did. */
interface ElicitationReplyFields {
  /** The `context` the handler put into `elicit(...)`. */
  context: unknown;
}

/**
 * What a handler gets besides its arguments. `Answers` types `elicitation.answers` (the tool's
 * `elicitationSchema`).
 */
export interface ToolContext<Answers = Record<string, unknown>> {
  /** Aborts when the client hangs up, cancels (or cancels the promise), or a deadline passes. */
  readonly signal: AbortSignal;
  /**
   * Emits a partial result. On a streaming call it is sent at once (SSE `message`, a gRPC stream message, an MCP
   * progress notification); the returned promise resolves when the transport can take more (backpressure).
   * On a non-streaming call it is a no-op.
   */
  partial(data: unknown): Promise<void>;
  /** A logger bound to this call (tool name, request id). */
  readonly log: Logger;
  /** The caller, when an authentication hook is configured. */
  readonly principal: Principal | undefined;
  /**
   * Who is calling, as the server counts callers for its bounds (`principal:<id>`, else the address's key, else
   * `anonymous`): for a handler that shares something out fairly between callers. Work run from a queue knows its
   * principal only.
   */
  readonly callerKey: string;
  /**
   * The request's headers by lower-case name (HTTP headers, gRPC metadata, the WebSocket upgrade's headers);
   * empty on stdio and for promised work run from a queue, which have none.
   */
  readonly headers: Readonly<Record<string, string | undefined>>;
  /** The binding the call came through (`op.caller.binding`; `BindingName` lists them), or `unknown`. */
  readonly binding: BindingName;
  /** The tool's name. */
  readonly tool: string;
  /** Present when this call answers an elicitation. */
  readonly elicitation: ElicitationAnswers<Answers> | undefined;
  /** True when the call runs as promised work, detached from the original request. */
  readonly background: boolean;
  /** Whether partials reach a client on this call (so a handler can skip building them). */
  readonly streaming: boolean;
  /**
   * Settings the environment supplies, never the model: over Webtools the request's `config` merged over the
   * webtool's `defaultConfig` and checked against its `configSchema`; on other bindings the server's `config`
   * option, else that default config (so a tool behaves the same on every wire).
   */
  readonly config: Readonly<Record<string, unknown>>;
  /**
   * The caller's session (MCP-lite context, docs/tools.md): the value a tool set with `setSession` on an earlier
   * call of the same caller to this server, as the caller's session token carries it; undefined without one, and
   * when the token is forged, expired, for another server or another caller (such a token is ignored, with a warn
   * log line). In promised work run from a shared queue the session is not carried: undefined there.
   */
  readonly session: unknown;
  /**
   * Sets the caller's session to `value` (any JSON, at most 4 KiB as JSON; undefined clears it): the server
   * returns it signed with the call's result (`_meta.session`) and the client sends it back with its later calls.
   * Throws a TypeError for a value JSON cannot carry and a RangeError for one over the bound. The last call wins.
   * Only the call's own result carries it: once a promise was answered (long-running tools, calls promoted to a
   * promise), a later `setSession` is ignored with a warn log line.
   */
  setSession(value: unknown): void;
}

/**
 * A tool's implementation. Return a value (the answer), an outcome from `failure`/`elicit`/`needMoreResource`,
 * or be an async generator: each `yield` is a partial and the generator's return value is the final answer (if it
 * returns nothing: on a streaming call `null`, otherwise the list of everything it yielded).
 */
export type ToolHandler<Args = any, Output = unknown, Answers = any> = (
  args: Args,
  ctx: ToolContext<Answers>,
) => HandlerReturn<Output>;

/** An answer of type `Output`, or an outcome (`failure`, `elicit`, `needMoreResource`, `answer`). */
export type HandlerResult<Output> = Output | HandlerOutcome;

/**
 * What a handler may return when its tool has an `outputSchema`: the answer checked against it, directly, as a
 * promise, or as an async generator's return value (yields are partials, of any shape). Without one: anything.
 */
export type HandlerReturn<Output> = unknown extends Output
  ? unknown
  :
      | HandlerResult<Output>
      | PromiseLike<HandlerResult<Output>>
      | AsyncGenerator<unknown, HandlerResult<Output>, any>;

/**
 * A tool as its author defines it, once, for every binding. The type parameters are what `defineTool` reads from
 * the schemas: the handler's arguments, its answer, and the elicitation answers it receives; a plain object (no
 * `defineTool`) has them all `any`.
 */
export interface ToolDefinition<Args = any, Output = any, Answers = any> {
  /** Unique name (letters, digits, `_`, `-`, `.`; at most 128 characters). */
  name: string;
  /** Optional category, listed as `@type` (e.g. "query", "action"; "system" is reserved for built-ins). */
  '@type'?: string;
  /** Optional display title. */
  title?: string;
  /** What the tool does, for people and models. */
  description?: string;
  /**
   * The arguments, as an object schema: zod 4 (`z.object({ … })`, not a raw shape), any Standard Schema library
   * that describes itself as JSON Schema, or JSON Schema (draft 2020-12 or draft-07) with `type: 'object'`.
   * Default: any object. Anything else is refused when the tool is defined, as MCP clients reject a whole listing
   * with one non-object input schema in it.
   */
  inputSchema?: SchemaInput;
  /** Optional schema the answer must satisfy (checked before it is sent). */
  outputSchema?: SchemaInput;
  /**
   * The schema of the answers this tool elicits (`elicit({ message })` asks with it when it names no schema of
   * its own): it types `ctx.elicitation.answers`. For `elicit({ requests })`, the object keyed by request name.
   */
  elicitationSchema?: SchemaInput;
  /** Optional behaviour hints. */
  annotations?: ToolAnnotations;
  /**
   * Marks the tool as long-running: every call is answered at once with a promise and the handler runs as
   * background work. `estimatedMs` feeds `estimated_completion`.
   */
  longRunning?: boolean | { estimatedMs?: number };
  /**
   * The same arguments give the same answer for a while, so `cacheResults()` may reuse an answer instead of
   * running the handler again. Off by default: only a tool marked so is ever cached.
   */
  cacheable?: boolean;
  /**
   * What a caller needs: `scopes` its token must grant (with `oauthResourceServer`). A caller without them gets
   * `forbidden` with the step-up challenge naming them; the tool stays listed, so a client can ask for them.
   */
  auth?: ToolAuth;
  /**
   * An interactive view of the tool's results (MCP Apps, docs/apps.md): HTML a host renders in a sandbox and feeds
   * the call's input and result. The server serves it as a `ui://` resource and links the tool to it for clients
   * that declared the extension; every result keeps its text in `content`, with the value in `structuredContent`.
   */
  ui?: ToolView;
  /**
   * Who the tool is for (MCP Apps): `['model', 'app']` (the default) or `['app']`, a tool only a view calls (a
   * button's action). An app-only tool is left out of every listing a model reads (MCP-lite, gRPC, Webtools, MCP
   * for a client without the extension, the client's adapters); the server still answers it, as hosts enforce it.
   */
  visibility?: readonly ToolAudience[];
  /** The implementation. */
  handler: ToolHandler<Args, Output, Answers>;
}

/** A tool's access requirements. */
export interface ToolAuth {
  /** OAuth scopes the caller's token must all grant. */
  scopes?: readonly string[];
}

/** The fields whose types `defineTool` reads from the definition itself. */
type InferredFields = 'name' | 'inputSchema' | 'outputSchema' | 'elicitationSchema' | 'handler';

/**
 * A tool defined with `defineTool`: its name as a literal type and, for the client's typed `call`, what a caller
 * sends (`input`) and gets back (`output`). `~types` exists only at compile time.
 */
export type TypedTool<
  Name extends string = string,
  Args = any,
  Output = any,
  Answers = any,
  CallInput = Args,
> = ToolDefinition<Args, Output, Answers> & {
  name: Name;
  readonly '~types'?: { readonly input: CallInput; readonly output: Output };
};

/**
 * Defines a tool and infers its types from its schemas: the handler's arguments from `inputSchema`, what it must
 * answer from `outputSchema`, `ctx.elicitation.answers` from `elicitationSchema` (zod 4, any Standard Schema
 * library, or a JSON Schema literal). A raw zod shape or a schema of something other than an object as
 * `inputSchema` is refused here, with what to write instead (and fails to compile where TypeScript can tell).
 */
export function defineTool<
  const Name extends string,
  const Input extends SchemaInput | undefined = undefined,
  const Output extends SchemaInput | undefined = undefined,
  const Asked extends SchemaInput | undefined = undefined,
>(
  definition: Omit<ToolDefinition, InferredFields> & {
    name: Name;
    inputSchema?: Input;
    outputSchema?: Output;
    elicitationSchema?: Asked;
    handler: ToolHandler<ArgsOf<Input>, OutputOf<Output>, AnswersOf<Asked>>;
  } & InputSchemaProblem<Input>,
): TypedTool<Name, ArgsOf<Input>, OutputOf<Output>, AnswersOf<Asked>, InputOf<Input>>;
/**
 * Defines a tool whose argument type is given rather than inferred (`defineTool<MyArgs>({ … })`, as before
 * inference existed); only with an explicit type argument.
 */
export function defineTool<Args extends object = never>(
  definition: [Args] extends [never]
    ? { '~error': 'give the argument type: defineTool<Args>(…)' }
    : ToolDefinition<Args>,
): ToolDefinition<Args>;
export function defineTool(definition: ToolDefinition): ToolDefinition {
  checkToolSchemas(definition);
  checkToolUi(definition);
  return definition;
}

/** A tool as listed on the wire (MCP-lite HTTP field names; other bindings convert). */
export interface WireTool {
  name: string;
  '@type'?: string;
  title?: string;
  description: string;
  inputSchema: JsonSchema;
  outputSchema?: JsonSchema;
  annotations?: ToolAnnotations;
}
