import type { Principal } from '../../core/auth.js';
import type { CallRequest, CallWire } from '../../core/call-request.js';
import type { CompiledTool } from '../../core/catalog.js';
import type { ElicitationReply } from '../../core/elicitations.js';
import type { BindingName } from '../../core/operation.js';
import type { CallerSource } from '../../core/operation-caller.js';

/** Where a call's signal or peer address is read from, on first use (a request, an exchange, a flight). */
export interface CallSource {
  readonly signal: AbortSignal;
  readonly remoteAddress?: string | undefined;
  /** The request's headers (HTTP headers, gRPC metadata, the WebSocket upgrade's); none on stdio. */
  readonly headers?: Readonly<Record<string, string | undefined>> | undefined;
}

/** What a binding knows of one tools/call when it builds it (`new BindingCall(init)`). */
export interface BindingCallInit {
  readonly name: string;
  readonly arguments: unknown;
  readonly principal: Principal | undefined;
  /** Where the signal comes from (the request, or a cancellable flight). */
  readonly signalSource: CallSource;
  /** Where the peer address and headers come from (the request, or the exchange). Default: `signalSource`. */
  readonly addressSource?: CallSource | undefined;
  readonly requestId?: string | number | undefined;
  /** Set for streaming calls; a binding that decides to stream after building the call sets it then. */
  readonly onPartial?: ((data: unknown) => void | Promise<void>) | undefined;
  readonly elicitation?: ElicitationReply | undefined;
  /** The binding's one name (`op.caller.binding`, `ctx.binding`, logs, metrics; `BindingName` lists them). */
  readonly binding: BindingName;
  /** The config for `ctx.config`, already merged and checked (Webtools). */
  readonly config?: Readonly<Record<string, unknown>> | undefined;
  /** The tool to run instead of the catalog's `name` (a pinned webtool version's own action). */
  readonly action?: CompiledTool | undefined;
  /** What the wire said beyond the arguments (`_meta`, framing, MCP revision and session), for tracing. */
  readonly wire?: CallWire | undefined;
}

/**
 * A tools/call as a binding hands it to core: the one request class of every binding. A class rather than an
 * object literal so that `signal` and `remoteAddress` stay getters: the node adapter makes its signal (an
 * AbortController and a 'close' listener, a good part of a small call's cost) on first read, and core reads it
 * only for calls that outlive a tick. (Literals with getters or spreads are also slower to build.) Every field is
 * always assigned, so that every call has the same shape.
 */
export class BindingCall implements CallRequest {
  readonly name: string;
  readonly arguments: unknown;
  readonly principal: Principal | undefined;
  readonly requestId: string | number | undefined;
  /** Set for streaming calls; a binding that decides to stream after building the call sets it then. */
  onPartial: ((data: unknown) => void | Promise<void>) | undefined;
  readonly elicitation: ElicitationReply | undefined;
  readonly binding: BindingName;
  readonly config: Readonly<Record<string, unknown>> | undefined;
  readonly action: CompiledTool | undefined;
  readonly wire: CallWire | undefined;
  /** The caller's session token, when the wire carried one (`sessionTokenOf`); set by the binding after building. */
  session: string | undefined = undefined;
  private readonly signalSource: CallSource;
  private readonly addressSource: CallSource;

  constructor(init: BindingCallInit) {
    this.name = init.name;
    this.arguments = init.arguments;
    this.principal = init.principal;
    this.signalSource = init.signalSource;
    this.addressSource = init.addressSource ?? init.signalSource;
    this.requestId = init.requestId;
    this.onPartial = init.onPartial;
    this.elicitation = init.elicitation;
    this.binding = init.binding;
    this.config = init.config;
    this.action = init.action;
    this.wire = init.wire;
  }

  get signal(): AbortSignal {
    return this.signalSource.signal;
  }

  get remoteAddress(): string | undefined {
    return this.addressSource.remoteAddress;
  }

  get headers(): Readonly<Record<string, string | undefined>> | undefined {
    return this.addressSource.headers;
  }
}

/** Where a request's headers and peer address are read from (a neutral request, an exchange, a connection). */
interface RequestSource {
  readonly headers?: Readonly<Record<string, string | undefined>> | undefined;
  readonly remoteAddress?: string | undefined;
}

/**
 * The caller of an operation other than a tool call (a listing, a prompt, a resource), as a binding hands it
 * to core. Its address stays a getter: the node adapter reads it from the socket only when a middleware asks.
 */
export class BindingCaller implements CallerSource {
  constructor(
    readonly binding: BindingName,
    private readonly source: RequestSource,
    readonly principal: Principal | undefined,
  ) {}

  get headers(): Readonly<Record<string, string | undefined>> | undefined {
    return this.source.headers;
  }

  get remoteAddress(): string | undefined {
    return this.source.remoteAddress;
  }
}

/**
 * The session token a call carries in its `_meta` under `key` (MCP-lite `session`, MCP `mcplite/session`), or
 * undefined when it carries no text there. Core bounds and checks it (core/caller-session.ts).
 */
export function sessionTokenOf(meta: unknown, key: string): string | undefined {
  if (typeof meta !== 'object' || meta === null) return undefined;
  const token = (meta as Record<string, unknown>)[key];
  return typeof token === 'string' ? token : undefined;
}
