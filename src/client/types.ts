import type {
  ElicitationOutcome as CoreElicitationOutcome,
  FailureOutcome as CoreFailureOutcome,
  ResourceRequestOutcome as CoreResourceRequestOutcome,
  ElicitationRequestOutcome,
  ReceivedPromiseOutcome,
  ResponseType,
} from '../core/outcomes.js';
import type { JsonSchema } from '../core/schema.js';
import type { OAuthOptions } from './oauth.js';

/** The wires the client speaks. `stdio` is MCP over a child process's stdin/stdout. */
export type Binding = 'mcp-lite-http' | 'grpc' | 'mcp-grpc' | 'mcp' | 'stdio' | 'webtools';

/** One tool as the server lists it, the same shape whatever the binding. */
export interface ToolInfo {
  name: string;
  /** The MCP-lite category (`system` for redeem/cancel); absent when the server gives none. */
  '@type'?: string;
  title?: string;
  description: string;
  inputSchema: JsonSchema;
  outputSchema?: JsonSchema;
  annotations?: Record<string, unknown>;
  /** MCP's `_meta.ui` (the interface a host renders for the tool, MCP Apps), when the server gives one. */
  ui?: Record<string, unknown>;
}

/** What the server said about a result, when its wire says it (MCP-lite `_meta`, gRPC `ResponseMeta`). */
export interface OutcomeMeta {
  timestamp?: string;
  processingTimeMs?: number;
  serverVersion?: string;
}

/** Done: `value` is the tool's result. */
export interface AnswerOutcome {
  type: 'answer';
  /** The tool's value (MCP: `structuredContent`, else the text of a single text block, else the blocks). */
  value: unknown;
  /** MCP only: the content blocks as sent. */
  content?: unknown[];
  meta?: OutcomeMeta;
}

/** The tool ran and failed for a business reason (not a protocol error). */
export interface FailureOutcome extends CoreFailureOutcome {
  meta?: OutcomeMeta;
}

/** Long-running work; redeem `token` later (the client does it by itself unless `redeem: false`). */
export interface PromiseOutcome extends ReceivedPromiseOutcome {
  meta?: OutcomeMeta;
}

/** One open request of an elicitation that asks for several inputs at once. */
export type ElicitationRequest = ElicitationRequestOutcome;

/** More input is needed from the user. Answer it with `answer(values)`, whatever the binding. */
export interface ElicitationOutcome extends Omit<CoreElicitationOutcome, 'state'> {
  /** Sends the user's answers and performs the next round; resolves to the next outcome. */
  answer(values: Record<string, unknown>, options?: CallOptions): Promise<CallOutcome>;
  /** Declines to answer (where the wire can say so; elsewhere the call simply ends as a failure). */
  decline(options?: CallOptions): Promise<CallOutcome>;
}

/** The call needs a larger budget (time, rows, cost…) than it was given. */
export interface ResourceRequestOutcome extends CoreResourceRequestOutcome {
  meta?: OutcomeMeta;
}

/**
 * Every outcome a call can end in (docs/architecture.md, "The outcome model"). Protocol errors are thrown as
 * `McpLiteError`.
 */
export type CallOutcome =
  | AnswerOutcome
  | FailureOutcome
  | PromiseOutcome
  | ElicitationOutcome
  | ResourceRequestOutcome;

/** Compile-time: the client's outcome kinds are exactly core's (`ResponseType`), one union in both directions. */
type SameKinds<A, B> = [A] extends [B] ? ([B] extends [A] ? true : never) : never;
const CALL_OUTCOME_KINDS_MATCH_CORE: SameKinds<CallOutcome['type'], ResponseType> = true;
void CALL_OUTCOME_KINDS_MATCH_CORE;

/** A partial result, as `stream()` yields it before the outcome. */
export interface PartialEvent {
  type: 'partial';
  value: unknown;
}

/** Where auto-redeem is, for progress displays. */
export interface PromiseProgress {
  token: string;
  estimatedCompletion?: string;
  /** Milliseconds since the call started. */
  elapsedMs: number;
  /** Redeem attempts so far. */
  attempts: number;
}

/** Options of one call (and of `redeem`). */
export interface CallOptions {
  /** Aborts the call; a promise it made is cancelled on the server. */
  signal?: AbortSignal;
  /** Milliseconds the caller will wait in all (auto-redeem included); then `deadline_exceeded`. */
  timeout?: number;
  /** Called with each partial result as it arrives (SSE, gRPC stream, MCP progress). */
  onPartial?: (value: unknown) => void;
  /** Redeem promises until they settle (default true); false returns the promise outcome as is. */
  redeem?: boolean;
  /** Called while auto-redeem waits, once per attempt. */
  onPromise?: (progress: PromiseProgress) => void;
  /** A lockfile (object, or path) the server's catalog must match for this call. */
  lock?: Lockfile | string;
}

/** What `cancel` reports. */
export interface CancelResult {
  token: string;
  /** True when running work was stopped by this request. */
  cancelled: boolean;
  /** The promise's state as the server reports it (`cancelled`, `settled`, …), when it says. */
  status?: string;
}

/**
 * A pinned catalog (`mcplite lock`). Version 2 pins titles, annotations and `_meta.ui` too; a version 1 file
 * (which did not) is refused, to be made again.
 */
export interface Lockfile {
  mcplite_lock: 2;
  /** The target it was made from (informative). */
  target?: string;
  created?: string;
  /** sha256 over every locked tool's hash, in name order. */
  hash: string;
  tools: Record<string, LockedTool>;
}

/** One pinned tool: what a model or a host acts on, and its hash. */
export interface LockedTool {
  hash: string;
  '@type'?: string;
  title?: string;
  description: string;
  inputSchema: JsonSchema;
  outputSchema?: JsonSchema;
  /** Its hints (`readOnlyHint`, `destructiveHint`, …), which hosts act on to ask or not before a call. */
  annotations?: Record<string, unknown>;
  ui?: Record<string, unknown>;
}

/** Options of `connect`. */
export interface ConnectOptions {
  /** Skip detection and speak this binding. */
  binding?: Binding;
  /** Extra HTTP headers (or gRPC metadata) sent with every request. */
  headers?: Record<string, string>;
  /** A bearer token, sent as `Authorization: Bearer …`. */
  token?: string;
  /**
   * Whether the connection keeps the caller session the server gives (MCP-lite context, docs/tools.md) and sends
   * it back with later calls, like a cookie. Default true. Turn it off for a connection shared by several callers
   * (the gateway does), so that one caller's session never rides on another's call.
   */
  keepSession?: boolean;
  /**
   * OAuth 2.1 for a protected server (docs/client.md, "OAuth"): on a 401 the client signs in (or refreshes, or
   * steps up on a 403 `insufficient_scope`) and retries, on MCP, MCP-lite HTTP and Webtools; gRPC sends the
   * stored token in its metadata. `{}` is enough for a server that registers clients dynamically and a caller
   * that handles `unauthenticated` itself; give `onAuthorizationUrl` and `redirectUrl` for an interactive sign-in.
   */
  oauth?: OAuthOptions;
  /** A lockfile (object, or path to one): a server whose pinned tools changed is refused. */
  lock?: Lockfile | string;
  /**
   * With a lock: how old (ms) a check of the server's catalog may be before a call checks it again. Every
   * `listTools()` checks, and an MCP server's `tools/list_changed` notification makes the next call check.
   * Default 1000; 0 checks before every call (one listing per call).
   */
  lockRecheckMs?: number;
  /**
   * Default timeout in milliseconds of each call, listing and cancel (a call's own `timeout` wins), covering all
   * of it: connecting, waiting, reading the body or stream, auto-redeem. It also bounds `connect` itself (the
   * asking and the MCP handshake). Default: none.
   */
  timeout?: number;
  /**
   * Bytes of one response the client reads: a JSON body, one SSE event, one stdio line, one gRPC message. Past
   * it the call fails with `payload_too_large` (`data.bound: "maxResponseBytes"`). Default 16 MiB.
   */
  maxResponseBytes?: number;
  /**
   * Bytes of one streamed response in all (an SSE body, or the partials of a call together); past it
   * `payload_too_large` (`data.bound: "maxStreamBytes"`). Default 64 MiB.
   */
  maxStreamBytes?: number;
  /** Partial results of one call; past it `resource_exhausted` (`data.bound: "maxPartials"`). Default 10,000. */
  maxPartials?: number;
  /** The name and version the client gives MCP servers. */
  clientInfo?: { name: string; version: string };
  /** MCP: force the stateless 2026-07-28 revision or a handshake revision. Default: ask the server. */
  mcpRevision?: 'stateless' | 'handshake';
  /** stdio: the child's environment (added to the defaults the MCP SDK passes) and working directory. */
  env?: Record<string, string>;
  cwd?: string;
  /** stdio: what to do with the child's stderr. Default `inherit`. */
  stderr?: 'inherit' | 'ignore' | 'pipe';
  /**
   * `grpcs://`: the certificates (PEM) to trust instead of the system's roots, e.g. a private CA or a server's
   * self-signed certificate.
   */
  grpcRootCerts?: string | Buffer;
  /** Webtools: the environment's config sent with every execution. */
  config?: Record<string, unknown>;
  /** Webtools: pin a published version. */
  version?: string;
  /**
   * A registry entry (`…server.json`) as the target (docs/discovery.md, "Starting from a registry entry"): run one
   * of its packages (`npx`, `uvx`, `docker run`, over stdio) when it lists no usable remote. Default false: such an
   * entry is refused, since a registry entry is somebody else's code.
   */
  allowPackageLaunch?: boolean;
  /**
   * A registry entry as the target: values by name for what it leaves open (a URL's `{variables}`, a remote's
   * headers, a package's arguments and environment variables). A package's environment variables are also taken
   * from `env` and then from this process's environment, by the names the entry declares.
   */
  registryInputs?: Record<string, string>;
}
