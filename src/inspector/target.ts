import type { ReceivedOutcome } from '../core/outcomes.js';
import type { RenderedPrompt, WirePrompt } from '../core/prompts.js';
import type { WireTool } from '../core/tool.js';

/**
 * The most bytes of one target response the inspector reads (a JSON body, a whole stream): a hostile or broken
 * server must not fill the operator's process. Past it the round ends with a `payload_too_large` error the page shows.
 */
export const MAX_RESPONSE_BYTES = 16 * 1024 * 1024;

/**
 * What the inspector needs from whatever it inspects: the shape of the universal client (`listTools`, `call`,
 * `redeem`, `cancel`, `close`, typed outcomes, a continuation for elicitations), plus the raw exchange of every
 * round, because showing the wire is the inspector's job. Each binding's target turns its wire into this.
 */
export interface InspectorTarget {
  /** The binding that answers (`mcp-lite-http`, `mcp`, `grpc`, …), shown on every result. */
  readonly binding: string;
  /** What the user pointed the inspector at, as given (a URL, a command line); undefined for the server itself. */
  readonly target: string | undefined;
  /** The catalog. A protocol error rejects with a `TargetError`. */
  listTools(options?: RoundOptions): Promise<ToolListing>;
  /** Calls a tool once (no auto-redeem: the page shows promises and redeems them itself). */
  call(name: string, args: Record<string, unknown>, options?: TargetCallOptions): Promise<TargetReply>;
  /** Redeems a promise once, waiting up to `waitMs` where the binding can. */
  redeem(token: string, options?: RoundOptions & { waitMs?: number }): Promise<TargetReply>;
  /** Cancels a promise. */
  cancel(token: string, options?: RoundOptions): Promise<TargetReply>;
  /**
   * `resources/read`: the contents of a resource (an MCP Apps view, a view's own reads). Absent where the binding
   * carries no resources (MCP-lite, gRPC, Webtools), unless whoever built the target supplied it.
   */
  readResource?(uri: string, options?: RoundOptions): Promise<unknown[]>;
  /**
   * The prompts (MCP `prompts/list`, MCP-lite `POST {base}/prompts` with `{}`, gRPC `GetPrompts`/`ListPrompts`).
   * A protocol error (a wire that carries none included) rejects with a `TargetError`. Absent on a target built
   * without it: the page then shows no prompts.
   */
  listPrompts?(options?: RoundOptions): Promise<PromptListing>;
  /** Renders prompt `name` with `args` (MCP's `prompts/get` shape); a protocol error rejects with a `TargetError`. */
  getPrompt?(name: string, args: Record<string, string>, options?: RoundOptions): Promise<PromptRendering>;
  /** Releases connections and child processes. */
  close(): Promise<void>;
}

/** Options of one round trip. */
export interface RoundOptions {
  signal?: AbortSignal;
  /** Extra headers for HTTP targets (the page's `Authorization`, for a server that requires a token). */
  headers?: Readonly<Record<string, string>>;
  /** The browser's address, for targets in the same process (per-caller quotas count against it). */
  remoteAddress?: string;
  /** Receives the raw request as soon as it is sent, before the response. */
  onRequest?: (request: unknown) => void;
}

/** Options of a call. */
export interface TargetCallOptions extends RoundOptions {
  /** Ask for partial results and receive each as it arrives. */
  onPartial?: (data: unknown) => void;
}

/** The catalog and the exchange that fetched it. */
export interface ToolListing {
  tools: WireTool[];
  exchange: Exchange;
}

/** The prompts and the exchange that fetched them. */
export interface PromptListing {
  prompts: WirePrompt[];
  exchange: Exchange;
}

/** A rendered prompt and the exchange that rendered it. */
export interface PromptRendering {
  prompt: RenderedPrompt;
  exchange: Exchange;
}

/** One wire exchange as the page shows it: what went out and what came back. */
export interface Exchange {
  request: unknown;
  response?: unknown;
}

/** A protocol error as the binding reported it: not an outcome (unknown tool, invalid arguments, …). */
export interface ProtocolError {
  /** The wire's code: a JSON-RPC number, a gRPC status name, an HTTP status. */
  code: number | string;
  message: string;
  data?: unknown;
  /** HTTP status, when the binding is HTTP and the error answered the whole request. */
  status?: number;
}

/** The outcomes of a round, as plain data the page can render; `error` is a protocol error, not an outcome. */
export type InspectorOutcome = ReceivedOutcome | { type: 'error'; error: ProtocolError };

/** One round's result. */
export interface TargetReply {
  outcome: InspectorOutcome;
  /** The result's `_meta` (response type, timing, server version, promise fields), when the wire has one. */
  meta?: Record<string, unknown>;
  exchange: Exchange;
  /** For an elicitation: performs the next round with the user's answers (the universal client's `answer`). */
  continue?: (values: unknown, options?: TargetCallOptions) => Promise<TargetReply>;
}

/** A protocol error raised by a target outside a call (listing tools), with the exchange that produced it. */
export class TargetError extends Error {
  constructor(
    readonly error: ProtocolError,
    readonly exchange: Exchange,
  ) {
    super(error.message);
    this.name = 'TargetError';
  }
}

/** The error of a prompt round on a target built without prompts (`listPrompts`/`getPrompt` absent). */
export function noPrompts(binding: string): TargetError {
  return new TargetError(
    { code: 'method_not_found', message: `The ${binding} target carries no prompts` },
    { request: null },
  );
}
