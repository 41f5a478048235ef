import type { Principal } from './auth.js';
import type { Logger } from './logger.js';
import type { JsonSchema, SchemaInput } from './schema.js';

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

/** The answers to an elicitation, verified against the signed state, as the handler sees them. */
export interface ElicitationAnswers {
  /**
   * What the user did. The handler runs again whatever it was: on `decline` or `cancel`, `answers` is empty and
   * the handler answers as it sees fit ("kept the note"); if it elicits again instead, the call ends as declined.
   */
  action: ElicitationAction;
  /**
   * The user's answers, validated against the schema the handler asked with. For `elicit({ requests })`: keyed
   * by request name, every request answered (core asks again for missing ones before calling the handler).
   */
  answers: Record<string, unknown>;
  /** The `context` the handler put into `elicit(...)`. */
  context: unknown;
}

/** What a handler gets besides its arguments. */
export interface ToolContext {
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
  /** The tool's name. */
  readonly tool: string;
  /** Present when this call answers an elicitation. */
  readonly elicitation: ElicitationAnswers | undefined;
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
}

/**
 * A tool's implementation. Return a value (the answer), an outcome from `failure`/`elicit`/`needMoreResource`,
 * or be an async generator: each `yield` is a partial and the generator's return value is the final answer (if it
 * returns nothing: on a streaming call `null`, otherwise the list of everything it yielded).
 */
export type ToolHandler<Args = any> = (args: Args, ctx: ToolContext) => unknown;

/** A tool as its author defines it, once, for every binding. */
export interface ToolDefinition<Args = any> {
  /** Unique name (letters, digits, `_`, `-`, `.`; at most 128 characters). */
  name: string;
  /** Optional category, listed as `@type` (e.g. "query", "action"; "system" is reserved for built-ins). */
  '@type'?: string;
  /** Optional display title. */
  title?: string;
  /** What the tool does, for people and models. */
  description?: string;
  /** JSON Schema (draft 2020-12 or draft-07) or a zod schema for the arguments; default: any object. */
  inputSchema?: SchemaInput;
  /** Optional schema the answer must satisfy (checked before it is sent). */
  outputSchema?: SchemaInput;
  /** Optional behaviour hints. */
  annotations?: ToolAnnotations;
  /**
   * Marks the tool as long-running: every call is answered at once with a promise and the handler runs as
   * background work. `estimatedMs` feeds `estimated_completion`.
   */
  longRunning?: boolean | { estimatedMs?: number };
  /** The implementation. */
  handler: ToolHandler<Args>;
}

/** Identity function that gives a tool definition its types. */
export function defineTool<Args = any>(definition: ToolDefinition<Args>): ToolDefinition<Args> {
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
