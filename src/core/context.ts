import type { Principal } from './auth.js';
import { callerKey } from './caller.js';
import { type SessionChange, sessionJson } from './caller-session.js';
import { LazyAbort } from './lazy-abort.js';
import type { Logger } from './logger.js';
import type { BindingName } from './operation.js';
import type { ElicitationAnswers, ToolContext } from './tool.js';

const DONE = Promise.resolve();
const NO_HEADERS: Readonly<Record<string, string | undefined>> = Object.freeze({});

/** What a binding passes in for one call, as far as the handler's context is concerned. */
export interface ContextInit {
  tool: string;
  /** The validated arguments: an elicitation the handler makes is bound to them (core/elicitations.ts). */
  arguments: Readonly<Record<string, unknown>>;
  principal: Principal | undefined;
  elicitation: ElicitationAnswers | undefined;
  background: boolean;
  /**
   * Where the client's signal is read from, on first use only: a binding may make its signal lazily (the node
   * adapter's costs an AbortController and a 'close' listener), and most calls never need one.
   */
  client: {
    readonly signal?: AbortSignal | undefined;
    readonly principal?: Principal | undefined;
    readonly remoteAddress?: string | undefined;
  };
  /** How the server names a caller (`ToolServer.callerKey`), asked only when the handler reads `ctx.callerKey`. */
  callerKeyOf?: ((caller: { principal?: Principal; remoteAddress?: string }) => string) | undefined;
  /** The request's headers (`ctx.headers`); none for work run from a queue. */
  headers?: Readonly<Record<string, string | undefined>> | undefined;
  /** The binding's name (`ctx.binding`). */
  binding?: BindingName | undefined;
  onPartial: ((data: unknown) => void | Promise<void>) | undefined;
  /**
   * Whether the call's client streams; default: whether `onPartial` is given. Queued work always forwards its
   * partials (a streaming `redeem` may be watching) yet keeps the submitting call's answer shape.
   */
  streaming?: boolean;
  logger: Logger;
  requestId: string | number | undefined;
  /** The config the environment supplied (Webtools), or the server-side / default one. */
  config: Readonly<Record<string, unknown>>;
  /**
   * The caller's session token as the call carried it, and what reads it (`CallerSessions.read`): opened on the
   * first read of `ctx.session` only, since most tools never read it.
   */
  session?: { token: string; read: (token: string, callerKey: string) => unknown } | undefined;
  /**
   * The abort of work a queue runs, taken as the context's own (its `signal`, its run-time limit), so that the
   * queue's cancel is the handler's without a second abort following the first.
   */
  abort?: LazyAbort | undefined;
}

/**
 * The handler's context. Its abort (and with it, only when the handler reads `signal`, an AbortSignal) and the child
 * logger are made only when needed, because most calls never need them and the hot path should not pay for them.
 */
export class CallContext implements ToolContext {
  readonly tool: string;
  /** The validated arguments, to which an elicitation the handler makes is bound. */
  readonly arguments: Readonly<Record<string, unknown>>;
  readonly principal: Principal | undefined;
  readonly elicitation: ElicitationAnswers | undefined;
  readonly streaming: boolean;
  readonly config: Readonly<Record<string, unknown>>;
  readonly headers: Readonly<Record<string, string | undefined>>;
  readonly binding: BindingName;
  private isBackground: boolean;
  private controller: LazyAbort | undefined;
  private childLog: Logger | undefined;
  private key: string | undefined;
  private readonly callerKeyOf: ContextInit['callerKeyOf'];
  // Kept field by field rather than as `init`, so that `client` (possibly the whole request) can be let go
  // once its signal has been read: promised work may outlive the request by hours.
  private client: ContextInit['client'] | undefined;
  private readonly onPartial: ContextInit['onPartial'];
  private readonly logger: Logger;
  private sessionToken: ContextInit['session'];
  private sessionValue: unknown;
  /** What `setSession` set, until the call's result is built (`takeSession`). */
  private sessionChange: SessionChange | undefined;
  /** Set once the call's result was built: a later `setSession` reaches no one. */
  private sessionSent = false;
  /** The id of the request that made this call, where its wire has one. */
  readonly requestId: string | number | undefined;

  constructor(init: ContextInit) {
    this.tool = init.tool;
    this.arguments = init.arguments;
    this.principal = init.principal;
    this.elicitation = init.elicitation;
    this.isBackground = init.background;
    this.streaming = init.streaming ?? init.onPartial !== undefined;
    this.client = init.client;
    this.onPartial = init.onPartial;
    this.logger = init.logger;
    this.requestId = init.requestId;
    this.config = init.config;
    this.headers = init.headers ?? NO_HEADERS;
    this.binding = init.binding ?? 'unknown';
    this.callerKeyOf = init.callerKeyOf;
    this.sessionToken = init.session;
    this.controller = init.abort;
    // Work run from the queue answers no call of its own: a session it sets would reach no one.
    this.sessionSent = init.background;
  }

  get session(): unknown {
    if (this.sessionChange) return this.sessionChange.value;
    const token = this.sessionToken;
    if (token) {
      this.sessionToken = undefined;
      this.sessionValue = token.read(token.token, this.callerKey);
    }
    return this.sessionValue;
  }

  setSession(value: unknown): void {
    // Checked (and copied, so a later change of the caller's object is not signed) where the tool sets it.
    const copy = value === undefined ? undefined : JSON.parse(sessionJson(value));
    if (this.sessionSent) {
      this.log.warn(
        {},
        'ctx.setSession ignored: the call already answered (a promise); the session is not sent',
      );
      return;
    }
    this.sessionChange = { value: copy };
  }

  /** What `setSession` set for the call's result, if anything; from now on `setSession` is ignored. */
  takeSession(): SessionChange | undefined {
    this.sessionSent = true;
    const change = this.sessionChange;
    this.sessionChange = undefined;
    if (change) {
      this.sessionToken = undefined;
      this.sessionValue = change.value;
    }
    return change;
  }

  get callerKey(): string {
    this.key ??= this.keyOf();
    return this.key;
  }

  private keyOf(): string {
    const remoteAddress = this.client?.remoteAddress;
    const caller =
      remoteAddress === undefined
        ? { principal: this.principal }
        : { principal: this.principal, remoteAddress };
    return (this.callerKeyOf ?? callerKey)(caller);
  }

  get background(): boolean {
    return this.isBackground;
  }

  get signal(): AbortSignal {
    return this.lazyAbort().signal;
  }

  /**
   * The server's logger, with nothing of this call bound: for a record that names the call in its own fields
   * (naming it in both wrote "tool" twice in one JSON line).
   */
  get serverLog(): Logger {
    return this.logger;
  }

  get log(): Logger {
    this.childLog ??= this.logger.child({ tool: this.tool, requestId: this.requestId });
    return this.childLog;
  }

  partial(data: unknown): Promise<void> {
    const sink = this.onPartial;
    if (!sink) return DONE;
    const r = sink(data);
    return r === undefined ? DONE : r;
  }

  /** The abort behind `signal`; created on first use and linked to the client's signal. */
  lazyAbort(): LazyAbort {
    if (!this.controller) {
      const controller = new LazyAbort();
      this.controller = controller;
      const client = this.client?.signal;
      this.releaseClient();
      if (client) {
        if (client.aborted) controller.abort(client.reason);
        else
          client.addEventListener(
            'abort',
            () => {
              // Once the call became a promise, the client going away no longer stops the work.
              if (!this.isBackground) controller.abort(client.reason);
            },
            { once: true },
          );
      }
    }
    return this.controller;
  }

  /** Lets the request go (promised work may outlive it by hours), keeping who made the call. */
  private releaseClient(): void {
    if (this.callerKeyOf && this.client) this.key ??= this.keyOf();
    this.client = undefined;
  }

  /** Detaches the work from the client: from now on only a promise cancel (or shutdown) aborts it. */
  detach(): LazyAbort {
    // Detached work never needs the client's signal: not reading it spares the binding from making one (the node
    // adapter's costs an AbortController and a listener), and work given its abort from the start (a queued job)
    // would otherwise hold the client for as long as it runs.
    this.releaseClient();
    const controller = this.lazyAbort();
    this.isBackground = true;
    return controller;
  }
}
