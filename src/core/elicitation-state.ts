import { McpLiteError } from './errors.js';
import { randomId } from './random-id.js';
import type { JsonSchema } from './schema.js';
import { TokenSigner } from './signed-token.js';

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
 * Signs and verifies elicitation states (the server's one token format, `TokenSigner`, for the purpose
 * `elicitation`), so that the server stays stateless and the client can neither forge nor alter what the handler
 * asked. Replicas must share `secret` to accept each other's states.
 */
export class ElicitationSigner {
  private readonly tokens: TokenSigner;

  constructor(
    secret: string | Uint8Array | undefined,
    private readonly ttlMs: number,
  ) {
    this.tokens = new TokenSigner(secret);
  }

  /** Encodes the payload with a fresh nonce and the expiry (`TokenSigner.seal`). */
  sign(payload: Omit<ElicitationStatePayload, 'exp' | 'nonce'>): string {
    return this.tokens.seal('elicitation', {
      ...payload,
      nonce: randomId(16, 'base64url'),
      exp: Date.now() + this.ttlMs,
    });
  }

  /**
   * Returns the payload of a genuine, unexpired state for `tool` and the call `binding` describes, or throws
   * `invalid_params` (`data.reason` says why).
   */
  verify(state: unknown, tool: string, binding: ElicitationBinding): ElicitationStatePayload {
    const opened = this.tokens.open<ElicitationStatePayload>(state, 'elicitation');
    // A token made for another purpose is signed by this server, but is no elicitation state: malformed here.
    if (!opened.ok) throw invalid(opened.reason === 'forged' ? 'forged' : 'malformed');
    const payload = opened.payload;
    if (payload.tool !== tool) throw invalid('wrong_tool');
    if (!(payload.exp >= Date.now())) throw invalid('expired');
    if (payload.args !== binding.args) throw invalid('wrong_arguments', 'not for these arguments');
    if (payload.principal !== binding.principal) throw invalid('wrong_caller', 'not for this caller');
    if (typeof payload.nonce !== 'string' || !NONCE_TEXT.test(payload.nonce)) throw invalid('malformed');
    return payload;
  }
}

/** A nonce as `sign` draws it: 16 bytes in unpadded base64url. */
const NONCE_TEXT = /^[A-Za-z0-9_-]{22}$/;

function invalid(reason: string, why = reason.replace('_', ' ')): McpLiteError {
  return new McpLiteError('invalid_params', `Invalid elicitation state (${why})`, { reason });
}
