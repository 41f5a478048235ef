import { toBase64Url } from './base64.js';
import type { Logger } from './logger.js';
import type { CallResult } from './outcomes.js';
import { sha256 } from './sha256.js';
import { TokenSigner } from './signed-token.js';

/** Most bytes a session value may take as JSON (`ctx.setSession`): it travels with every call of the caller. */
export const MAX_SESSION_BYTES = 4096;

/** How long a session stays valid after the call that set it, unless `sessionTtlMs` says otherwise: 24 hours. */
export const DEFAULT_SESSION_TTL_MS = 86_400_000;

/** Longest session token read from a request: the bounded value plus its signature and fields, with room. */
const MAX_SESSION_TOKEN_CHARS = 8192;

/** A session token's payload (`TokenSigner`, purpose `session`). */
interface SessionPayload {
  /** The server's name: a session is not taken by another server, even one sharing the secret. */
  srv: string;
  /** The digest of the caller's key (`ToolServer.callerKey`): another caller cannot use it. */
  sub: string;
  /** Expiry, epoch milliseconds. */
  exp: number;
  /** The value as JSON text; absent when the tool cleared the session. */
  v?: string;
}

/**
 * What a tool set as its caller's session during one call (`ctx.setSession`), read by the server when it builds
 * the call's result. `value` undefined means the tool cleared it.
 */
export interface SessionChange {
  value: unknown;
}

/**
 * The JSON text of a value a tool sets as its caller's session, or throws for the tool's author: a value JSON
 * cannot carry, or one over `MAX_SESSION_BYTES`, is refused where it is set rather than lost on the way.
 */
export function sessionJson(value: unknown): string {
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch (err) {
    throw new TypeError(`ctx.setSession: the value is not JSON (${(err as Error).message})`);
  }
  if (text === undefined)
    throw new TypeError('ctx.setSession: the value is not JSON (use undefined to clear)');
  const bytes = new TextEncoder().encode(text).length;
  if (bytes > MAX_SESSION_BYTES) {
    throw new RangeError(
      `ctx.setSession: the session is ${bytes} bytes as JSON, over the ${MAX_SESSION_BYTES}-byte bound: keep it small (it travels with every call) and keep larger state elsewhere`,
    );
  }
  return text;
}

/**
 * Caller sessions (MCP-lite context, spec 2.2; docs/tools.md): the small state a tool keeps for its caller without
 * the server keeping it. The server signs the value into a token (the one token format, `TokenSigner`, purpose
 * `session`) bound to the caller's key and the server's name, with an expiry; the client sends it back with later
 * calls. A token that is forged, expired, for another server or another caller is ignored (one warn line, nothing
 * of the token in it): the call runs without a session, and the caller is never told.
 */
export class CallerSessions {
  private readonly tokens: TokenSigner;

  /**
   * `secret`: the server's `secret` (replicas share it); `server`: its name; `ttlMs`: `sessionTtlMs`;
   * `logger`: where an ignored token is reported.
   */
  constructor(
    secret: string | Uint8Array | undefined,
    private readonly server: string,
    private readonly ttlMs: number,
    private readonly logger: Logger,
  ) {
    this.tokens = new TokenSigner(secret);
  }

  /** The value a session token carries for the caller with this key, or undefined (no token, or an ignored one). */
  read(token: unknown, callerKey: string): unknown {
    if (token === undefined) return undefined;
    const reason = this.refusal(token, callerKey);
    if (typeof reason === 'string') {
      this.logger.warn({ reason }, 'caller session ignored');
      return undefined;
    }
    return reason.value;
  }

  /** The token of `value` (undefined: a cleared session) for the caller with this key. */
  seal(value: unknown, callerKey: string): string {
    const payload: SessionPayload = {
      srv: this.server,
      sub: digest(callerKey),
      exp: Date.now() + this.ttlMs,
    };
    if (value !== undefined) payload.v = sessionJson(value);
    return this.tokens.seal('session', payload);
  }

  /** `result` with `meta.session` when the call set a session (`change`), for the caller with this key. */
  withSession(result: CallResult, change: SessionChange | undefined, callerKey: () => string): CallResult {
    if (change !== undefined) result.meta.session = this.seal(change.value, callerKey());
    return result;
  }

  private refusal(token: unknown, callerKey: string): string | { value: unknown } {
    if (typeof token !== 'string' || token.length > MAX_SESSION_TOKEN_CHARS) return 'malformed';
    const opened = this.tokens.open<SessionPayload>(token, 'session');
    if (!opened.ok) return opened.reason;
    const p = opened.payload;
    if (typeof p.exp !== 'number' || !(p.exp >= Date.now())) return 'expired';
    if (p.srv !== this.server) return 'wrong_server';
    if (p.sub !== digest(callerKey)) return 'wrong_caller';
    if (p.v === undefined) return { value: undefined };
    if (typeof p.v !== 'string') return 'malformed';
    return { value: JSON.parse(p.v) };
  }
}

function digest(text: string): string {
  return toBase64Url(sha256(text));
}
