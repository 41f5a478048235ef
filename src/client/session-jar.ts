/** Where an mcplite server puts the caller session in an MCP result's `_meta`, and reads it from a call's. */
export const MCP_SESSION_KEY = 'mcplite/session';

/** Longest session token a client keeps: a server's is well under it (4 KiB of value, signed). */
const MAX_SESSION_TOKEN_CHARS = 8192;

/**
 * The caller session a server gave this connection (MCP-lite context, docs/tools.md), kept like a cookie: the
 * last one the server returned (`_meta.session`, gRPC `mcplite-session`, MCP `_meta["mcplite/session"]`) is sent
 * back with every later call on the same connection object. One jar per transport, so never across servers.
 * The token is opaque here: the server signs, binds and checks it.
 */
export class SessionJar {
  private current: string | undefined;

  /** `enabled` false: a jar that keeps nothing (`ConnectOptions.keepSession: false`). */
  constructor(private readonly enabled = true) {}

  /** The token to send with the next call, if the server gave one. */
  get token(): string | undefined {
    return this.current;
  }

  /** Keeps what a result carried in place of the last one; anything but a bounded text is left out. */
  keep(token: unknown): void {
    if (
      this.enabled &&
      typeof token === 'string' &&
      token.length > 0 &&
      token.length <= MAX_SESSION_TOKEN_CHARS
    ) {
      this.current = token;
    }
  }

  /**
   * `meta` (a request's `_meta` so far, possibly none) with the token under `key` when there is one; the same
   * object (or undefined) otherwise.
   */
  into(meta: Record<string, unknown> | undefined, key: string): Record<string, unknown> | undefined {
    return this.current === undefined ? meta : { ...meta, [key]: this.current };
  }
}
