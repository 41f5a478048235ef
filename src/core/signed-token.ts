import { fromBase64, toBase64Url } from './base64.js';
import { randomBytes } from './random-id.js';
import { equalInConstantTime, hmacSha256 } from './sha256.js';

/**
 * What a signed token is for. Signed into every token and checked on opening, so that a token made for one
 * purpose (an elicitation state) never passes as another (a caller session), though both share the key.
 */
export type TokenPurpose = 'elicitation' | 'session';

/** Why a token was refused: not one `seal` wrote, not signed with this key, or made for another purpose. */
export type TokenRefusal = 'malformed' | 'forged' | 'wrong_purpose';

/** An opened token: its payload, or why it was refused. */
export type OpenedToken<T> = { ok: true; payload: T } | { ok: false; reason: TokenRefusal };

/** Longest token text looked at: anything longer is refused before any decoding. */
const MAX_TOKEN_CHARS = 65536;

/**
 * The one HMAC-SHA256 token format of the server: `base64url(JSON payload).base64url(hmac)`, the payload carrying
 * its `purpose`. The server stays stateless (the client holds the token) and the client can neither forge nor
 * alter it. Used by elicitation states (`elicitation-state.ts`) and caller sessions (`caller-session.ts`); what
 * each payload means (expiry, binding to a call or a caller) is checked by its user. Replicas must share `secret`
 * to accept each other's tokens; without one, a random key is drawn per process.
 */
export class TokenSigner {
  /** Drawn on first use, not here: Workers forbid random values outside a request, where servers are made. */
  private key: Uint8Array | undefined;

  /** `secret`: the server's `secret` option (text or bytes); undefined draws a random key on first use. */
  constructor(private readonly secret: string | Uint8Array | undefined) {}

  /** Signs `payload` for `purpose` (the `purpose` field is set here and overrides any the payload has). */
  seal(purpose: TokenPurpose, payload: object): string {
    const body = toBase64Url(JSON.stringify({ ...payload, purpose }));
    return `${body}.${toBase64Url(this.macBytes(body))}`;
  }

  /** Opens a token `seal` wrote for `purpose`: its payload (an object), or why it is refused. Never throws. */
  open<T extends object>(token: unknown, purpose: TokenPurpose): OpenedToken<T> {
    if (typeof token !== 'string' || token.length > MAX_TOKEN_CHARS) return refused('malformed');
    const dot = token.indexOf('.');
    if (dot <= 0) return refused('malformed');
    const body = token.slice(0, dot);
    const macText = token.slice(dot + 1);
    // Node's base64url decoder skips what it does not know (padding, `+/`, junk), so several texts would pass
    // for one MAC: only the exact canonical text of 32 bytes is accepted, then compared in constant time.
    if (!MAC_TEXT.test(macText)) return refused('forged');
    const given = fromBase64(macText);
    const expected = this.macBytes(body);
    if (
      given.length !== expected.length ||
      toBase64Url(given) !== macText ||
      !equalInConstantTime(given, expected)
    )
      return refused('forged');
    if (!BODY_TEXT.test(body)) return refused('malformed');
    let payload: unknown;
    try {
      payload = JSON.parse(new TextDecoder().decode(fromBase64(body)));
    } catch {
      return refused('malformed');
    }
    if (typeof payload !== 'object' || payload === null || Array.isArray(payload))
      return refused('malformed');
    if ((payload as { purpose?: unknown }).purpose !== purpose) return refused('wrong_purpose');
    return { ok: true, payload: payload as T };
  }

  private macBytes(body: string): Uint8Array {
    this.key ??=
      this.secret === undefined
        ? randomBytes(32)
        : typeof this.secret === 'string'
          ? new TextEncoder().encode(this.secret)
          : this.secret;
    return hmacSha256(this.key, body);
  }
}

function refused(reason: TokenRefusal): { ok: false; reason: TokenRefusal } {
  return { ok: false, reason };
}

/** An HMAC-SHA256 in unpadded base64url: 43 characters, the last one carrying 2 bits (so only AEIMQUYcgkosw048). */
const MAC_TEXT = /^[A-Za-z0-9_-]{42}[AEIMQUYcgkosw048]$/;
/** A body as `seal` writes it: unpadded base64url, nothing else. */
const BODY_TEXT = /^[A-Za-z0-9_-]+$/;
