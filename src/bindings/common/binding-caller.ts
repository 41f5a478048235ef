import type { Principal } from '../../core/auth.js';
import type { CallerSource } from '../../core/operation-caller.js';

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
    readonly binding: string,
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
