import type { Principal } from './auth.js';
import type { McpLiteError } from './errors.js';
import type { MaybePromise } from './maybe-promise.js';

/**
 * The MCP method names of the operations every binding hands to core, whatever its wire calls them (MCP-lite
 * `listtools`, gRPC `GetTools` and the Webtools metadata are all `tools/list`; `redeem` and `cancel` are
 * `tools/call`s of the system tools, and so are MCP `tasks/get` and `tasks/cancel`, with the same name and
 * arguments `{ promise }`; MCP `tasks/update` is the `tools/call` its answers resume). The session methods of MCP
 * (`resources/templates/list`, `resources/subscribe`, `resources/unsubscribe`, `logging/setLevel`) walk the chain under their own names.
 */
export type OperationMethod =
  | 'tools/call'
  | 'tools/list'
  | 'resources/list'
  | 'resources/templates/list'
  | 'resources/read'
  | 'resources/subscribe'
  | 'resources/unsubscribe'
  | 'prompts/list'
  | 'prompts/get'
  | 'completion/complete'
  | 'logging/setLevel'
  | 'subscriptions/listen'
  | 'skills/list'
  | 'skills/get'
  | 'resources/directory/read';

/**
 * The one name of the binding a call came through (`op.caller.binding`, `ctx.binding`, the `binding` label of
 * metrics and log lines):
 * - `http`, `ws`, `stdio`: MCP-lite over HTTP, WebSocket and stdio;
 * - `grpc`: MCP-lite over gRPC; `mcp-grpc`: MCP over gRPC;
 * - `mcp`: MCP over every other transport (Streamable HTTP, WebSocket, stdio, legacy SSE, in memory; the span's
 *   `mcplite.transport` tells them apart); `draft`: MCP's draft-seed dialect;
 * - `webtools`: Webtools; `inspector`: the inspector calling its own server;
 * - `unknown`: a call handed to `ToolServer.call` without one.
 */
export type BindingName =
  | 'http'
  | 'ws'
  | 'stdio'
  | 'grpc'
  | 'mcp-grpc'
  | 'mcp'
  | 'draft'
  | 'webtools'
  | 'inspector'
  | 'unknown';

/** Who is calling, as every binding describes it (`op.caller`). */
export interface OperationCaller {
  /** The binding's one name, the same in logs and metrics (`BindingName` lists them). */
  readonly binding: BindingName;
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
  /**
   * The tool (`tools/call`), the prompt (`prompts/get`), the URI (`resources/read`, `resources/subscribe`,
   * `resources/unsubscribe`) or the level (`logging/setLevel`); otherwise undefined.
   */
  readonly name: string | undefined;
  /**
   * `tools/call`: the arguments after the input schema checked them (undefined when `error` is set);
   * `prompts/get`: the prompt's arguments; `completion/complete`: the completion request's params;
   * `subscriptions/listen`: the notifications the client asked for; otherwise undefined.
   */
  readonly arguments: Readonly<Record<string, unknown>> | undefined;
  /**
   * Set on a `tools/call` that core refused before it could run: an unknown tool, one hidden from this caller, a
   * scope the caller lacks, arguments the input schema refuses. The operation still walks the chain so that a
   * middleware sees (and an audit log records) the denied attempt; `next()` throws this error, and it stands
   * whatever a middleware returns (a middleware may only answer with another error).
   */
  readonly error?: McpLiteError | undefined;
  /** Who is calling. */
  readonly caller: OperationCaller;
  /**
   * The request's `params._meta` as received, when its wire has one (SEP-414 carries `traceparent`, `tracestate`
   * and `baggage` there). Read-only; added for tracing (`core/telemetry/`): a tool call's comes from
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
