import type { Principal } from './auth.js';
import type { CompiledTool } from './catalog.js';
import type { ElicitationReply } from './elicitations.js';

/** One tool call as a binding hands it to core. */
export interface CallRequest {
  /** The tool's name. */
  name: string;
  /** The arguments; must be an object (undefined means `{}`). */
  arguments?: unknown;
  /**
   * Present when the call answers an elicitation: the signed state and the user's answers. When only some of
   * several requests are answered, the call ends in a new elicitation for the others and the handler does not run.
   */
  elicitation?: ElicitationReply;
  /** The authenticated caller. */
  principal?: Principal;
  /**
   * The peer's network address (IP, no port), when the binding knows it. With `principal`, it decides the caller
   * that per-caller quotas and rate limits count against (see `callerKey`).
   */
  remoteAddress?: string;
  /** Aborts the call (client hang-up, cancel, deadline: the abort reason says which). */
  signal?: AbortSignal;
  /** Set for streaming calls: receives each partial result. May return a promise for backpressure. */
  onPartial?: (data: unknown) => void | Promise<void>;
  /** The binding's request id, for logs. */
  requestId?: string | number;
  /** Which binding the call came through (`http`, `grpc`, `mcp`, `webtools`, `ws`, ...), for metrics. */
  binding?: string;
  /** The config for `ctx.config`, already merged and checked (Webtools). Default: `webtools.configFor(name)`. */
  config?: Readonly<Record<string, unknown>>;
  /** The tool to run instead of the catalog's `name`: a pinned webtool version's own action. */
  action?: CompiledTool;
}
