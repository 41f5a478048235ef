import type { Principal } from './auth.js';
import type { MaybePromise } from './maybe-promise.js';

/**
 * The MCP method names of the operations every binding hands to core, whatever its wire calls them (MCP-lite
 * `listtools`, gRPC `GetTools` and the Webtools metadata are all `tools/list`; `redeem` and `cancel` are
 * `tools/call`s of the system tools).
 */
export type OperationMethod =
  | 'tools/call'
  | 'tools/list'
  | 'resources/list'
  | 'resources/read'
  | 'prompts/list'
  | 'prompts/get'
  | 'completion/complete';

/** Who is calling, as every binding describes it (`op.caller`). */
export interface OperationCaller {
  /**
   * The binding's one name, the same in logs and metrics: `mcp-lite-http`, `mcp-lite-ws`, `mcp-lite-stdio`,
   * `grpc`, `webtools`, `mcp` (Streamable HTTP), `mcp-ws`, `mcp-stdio`, `mcp-sse` (legacy SSE), `draft`.
   */
  readonly binding: string;
  /**
   * The request's headers by lower-case name: HTTP headers, gRPC metadata, the WebSocket upgrade's headers;
   * empty on stdio, which has none.
   */
  readonly headers: Readonly<Record<string, string | undefined>>;
  /** The authenticated caller, when the server authenticates. */
  readonly principal?: Principal | undefined;
  /** The peer's network address (IP, no port), when the transport knows it. */
  readonly address?: string | undefined;
}

/** One operation as it walks the middleware chain. */
export interface Operation {
  /** The MCP method name, the same on every binding. */
  readonly method: OperationMethod;
  /** The tool (`tools/call`), the prompt (`prompts/get`) or the URI (`resources/read`); otherwise undefined. */
  readonly name: string | undefined;
  /**
   * `tools/call`: the arguments after the input schema checked them; `prompts/get`: the prompt's arguments;
   * `completion/complete`: the completion request's params; otherwise undefined.
   */
  readonly arguments: Readonly<Record<string, unknown>> | undefined;
  /** Who is calling. */
  readonly caller: OperationCaller;
  /**
   * The request's `params._meta` as received, when its wire has one (SEP-414 carries `traceparent`, `tracestate`
   * and `baggage` there). Read-only; added for tracing (issue 27, `core/telemetry/`): a tool call's comes from
   * `CallRequest.wire.meta`.
   */
  readonly meta?: Readonly<Record<string, unknown>> | undefined;
}

/**
 * Runs the rest of the chain and the operation itself. Its value: for `tools/call` the `Outcome`
 * (`{ type: 'answer', result }`, `failure`, `promise`, ...), for `tools/list` the listed tools (wire form), for
 * the others the result the binding encodes (`resources/list`: resources; `resources/read`: the contents;
 * `prompts/list`: prompts; `prompts/get`: the rendered prompt; `completion/complete`: the values).
 */
export type Next = () => MaybePromise<unknown>;

/**
 * User code around every operation of every binding (`createServer({ middleware })`): look at `op`, refuse by
 * throwing an `McpLiteError` (each binding answers it natively), or call `next()` and return its value, or a
 * changed one (a filtered listing, a rewritten answer).
 */
export type Middleware = (op: Operation, next: Next) => MaybePromise<unknown>;
