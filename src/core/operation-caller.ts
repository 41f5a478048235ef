import type { Principal } from './auth.js';
import type { BindingName, OperationCaller, OperationMethod } from './operation.js';

/** What a binding knows of its caller for one operation (a `CallRequest` is one). */
export interface CallerSource {
  readonly binding?: BindingName | undefined;
  readonly headers?: Readonly<Record<string, string | undefined>> | undefined;
  readonly principal?: Principal | undefined;
  readonly remoteAddress?: string | undefined;
}

const NO_HEADERS: Readonly<Record<string, string | undefined>> = Object.freeze({});

/**
 * `op.caller`, read from the binding's request on first use: the node adapter reads the peer address from the
 * socket only when asked, and most middleware never asks.
 */
export class RequestCaller implements OperationCaller {
  constructor(private readonly source: CallerSource) {}

  get binding(): BindingName {
    return this.source.binding ?? 'unknown';
  }

  get headers(): Readonly<Record<string, string | undefined>> {
    return this.source.headers ?? NO_HEADERS;
  }

  get principal(): Principal | undefined {
    return this.source.principal;
  }

  get address(): string | undefined {
    return this.source.remoteAddress;
  }
}

/** An operation other than a tool call, as bindings hand it to `ToolServer.operate`. */
export class PlainOperation {
  /** The prompt's arguments, or the completion request's params. */
  readonly arguments: Readonly<Record<string, unknown>> | undefined;
  private callerView: RequestCaller | undefined;

  constructor(
    readonly method: OperationMethod,
    readonly name: string | undefined,
    args: Readonly<Record<string, unknown>> | undefined,
    private readonly source: CallerSource,
  ) {
    this.arguments = args;
  }

  get caller(): OperationCaller {
    this.callerView ??= new RequestCaller(this.source);
    return this.callerView;
  }
}
