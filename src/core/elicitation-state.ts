import { fromBase64, toBase64Url } from './base64.js';
import { McpLiteError } from './errors.js';
import { randomBytes, randomId } from './random-id.js';
import type { JsonSchema } from './schema.js';
import { equalInConstantTime, hmacSha256 } from './sha256.js';

/** What the signed state carries between the two rounds of an elicitation. */
export interface ElicitationStatePayload {
  /** The tool that asked; the state is only good for a call of the same tool. */
  tool: string;
  /** The schema the answers must satisfy (single-form elicitations). */
  schema?: JsonSchema;
  /**
   * Multi-request elicitations: every request the handler made (answered or not), by name, so that the open
   * ones can be asked again and each answer checked against its own schema.
   */
  requests?: Record<string, { message: string; schema: JsonSchema }>;
  /** Multi-request: the handler's overall message, if it gave one. */
  message?: string;
  /**
   * Multi-request: the answers given in earlier rounds, already validated. Signed, so a partial answer cannot
   * be altered when the client comes back with the rest.
   */
  answers?: Record<string, unknown>;
  /** The handler's own context. */
  context: unknown;
  /**
   * The digest of the validated arguments of the call that asked (`jsonDigest`): an answer is good only for a
   * call with the same arguments, so a "yes" to one call cannot be resent with others.
   */
  args: string;
  /** The digest of the principal's id that asked, or null without one: another caller cannot use the answer. */
  principal: string | null;
  /** 128 random bits, recorded when the state is answered, so that it answers one call only. */
  nonce: string;
  /** Expiry, epoch milliseconds. */
  exp: number;
  /**
   * The first round's span context (`traceparent`), when it was traced: each later round links to it
   * (`core/telemetry/elicitation-links.ts`). Signed like the rest, so a client cannot point it elsewhere.
   */
  trace?: Record<string, string>;
}

/** What a state is checked against besides its tool: the call that answers it (`ElicitationStatePayload`). */
export interface ElicitationBinding {
  /** The digest of the answering call's validated arguments. */
  args: string;
  /** The digest of its principal's id, or null. */
  principal: string | null;
}

/**
 * Signs and verifies elicitation states with HMAC-SHA256, so that the server stays stateless and the client
 * can neither forge nor alter what the handler asked. Replicas must share `secret` to accept each other's states.
 */
export class ElicitationSigner {
  /** Drawn on first use, not here: Workers forbid random values outside a request, where servers are made. */
  private key: Uint8Array | undefined;

  constructor(
    private readonly secret: string | Uint8Array | undefined,
    private readonly ttlMs: number,
  ) {}

  /** Encodes `base64url(payload).base64url(hmac)`, with a fresh nonce and the expiry. */
  sign(payload: Omit<ElicitationStatePayload, 'exp' | 'nonce'>): string {
    const body = toBase64Url(
      JSON.stringify({ ...payload, nonce: randomId(16, 'base64url'), exp: Date.now() + this.ttlMs }),
    );
    return `${body}.${this.mac(body)}`;
  }

  /**
   * Returns the payload of a genuine, unexpired state for `tool` and the call `binding` describes, or throws
   * `invalid_params` (`data.reason` says why).
   */
  verify(state: unknown, tool: string, binding: ElicitationBinding): ElicitationStatePayload {
    if (typeof state !== 'string' || state.length > 65536) throw invalid('malformed');
    const dot = state.indexOf('.');
    if (dot <= 0) throw invalid('malformed');
    const body = state.slice(0, dot);
    const macText = state.slice(dot + 1);
    // Node's base64url decoder skips what it does not know (padding, `+/`, junk), so several texts would pass
    // for one MAC: only the exact canonical text of 32 bytes is accepted, then compared in constant time.
    if (!MAC_TEXT.test(macText)) throw invalid('forged');
    const given = fromBase64(macText);
    const expected = this.macBytes(body);
    if (
      given.length !== expected.length ||
      toBase64Url(given) !== macText ||
      !equalInConstantTime(given, expected)
    )
      throw invalid('forged');
    if (!BODY_TEXT.test(body)) throw invalid('malformed');
    let payload: ElicitationStatePayload;
    try {
      payload = JSON.parse(new TextDecoder().decode(fromBase64(body)));
    } catch {
      throw invalid('malformed');
    }
    if (payload.tool !== tool) throw invalid('wrong_tool');
    if (payload.exp < Date.now()) throw invalid('expired');
    if (payload.args !== binding.args) throw invalid('wrong_arguments', 'not for these arguments');
    if (payload.principal !== binding.principal) throw invalid('wrong_caller', 'not for this caller');
    if (typeof payload.nonce !== 'string' || !NONCE_TEXT.test(payload.nonce)) throw invalid('malformed');
    return payload;
  }

  private mac(body: string): string {
    return toBase64Url(this.macBytes(body));
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

/** An HMAC-SHA256 in unpadded base64url: 43 characters, the last one carrying 2 bits (so only AEIMQUYcgkosw048). */
const MAC_TEXT = /^[A-Za-z0-9_-]{42}[AEIMQUYcgkosw048]$/;
/** A body as `sign` writes it: unpadded base64url, nothing else. */
const BODY_TEXT = /^[A-Za-z0-9_-]+$/;
/** A nonce as `sign` draws it: 16 bytes in unpadded base64url. */
const NONCE_TEXT = /^[A-Za-z0-9_-]{22}$/;

function invalid(reason: string, why = reason.replace('_', ' ')): McpLiteError {
  return new McpLiteError('invalid_params', `Invalid elicitation state (${why})`, { reason });
}
