import type { decodeProtectedHeader, JWK, JWTPayload } from 'jose';
import type { RequestTarget } from '../auth.js';
import { toBase64Url } from '../base64.js';
import { hmacSha256, sha256 } from '../sha256.js';
import { ChallengedRefusal, type RefusalDetail } from './challenge.js';
import { DpopReplayCache } from './dpop-replay.js';
import { loadJose } from './jose-loader.js';
import { DEFAULT_ALGORITHMS } from './jwt-verifier.js';

/**
 * DPoP proofs on the resource server (RFC 9449 section 4.3 and 7.1): each check of a proof, the binding of the
 * token to the proof's key (`cnf.jkt`), the replay cache, and server-provided nonces (section 9). The signature
 * and key handling are `jose`'s (`jwtVerify` with `EmbeddedJWK`, `calculateJwkThumbprint`).
 */

/** `allowed`: bound and unbound tokens; `required`: DPoP-bound tokens only. */
export type DpopMode = 'allowed' | 'required';

/** Server-provided nonces (RFC 9449 section 9): proofs must carry a recent one the server handed out. */
export interface DpopNonceSettings {
  /**
   * The secret nonces are derived from (HMAC-SHA256 of the time window). Give every instance of a deployment the
   * same one, so that a nonce one hands out the others take. Default: random per process.
   */
  secret?: string | Uint8Array;
  /** How long a nonce is handed out, in seconds; it is taken for twice that. Default 300. */
  lifetimeSeconds?: number;
}

/** DPoP settings of `oauthResourceServer`. */
export interface DpopSettings {
  /** Whether unbound (plain Bearer) tokens are still taken. */
  mode: DpopMode;
  /** Proof signature algorithms accepted (asymmetric only). Default: the RSA, RSA-PSS, ECDSA and EdDSA ones. */
  algorithms?: readonly string[];
  /** Longest a proof is taken after its `iat`, in seconds. Default 60. */
  proofLifetimeSeconds?: number;
  /** Leeway for a proof's `iat`, either way, in seconds. Default 5. */
  clockSkewSeconds?: number;
  /** Ask for server-provided nonces (`true`: the defaults). Default: none. */
  nonce?: boolean | DpopNonceSettings;
  /**
   * Origins besides the resource's own that `htu` may name (e.g. `https://grpc.example.com:443` when gRPC is
   * published elsewhere). A gRPC call's own `:authority` is always taken.
   */
  origins?: readonly string[];
  /** Most proof `jti` values kept for replay checks, every caller together. Default 100 000. */
  maxReplayEntries?: number;
  /** Most kept for one caller (proofs per window). Default 10 000. */
  maxReplayEntriesPerCaller?: number;
}

/** A proof that passed every check that needs no token claims. */
export interface CheckedProof {
  /** The RFC 7638 SHA-256 thumbprint of the proof's key. */
  readonly jkt: string;
  readonly jti: string;
}

/** A DPoP proof is a few hundred bytes (an RSA-4096 key in it about a kilobyte): more is not one. */
const MAX_PROOF_LENGTH = 8 * 1024;
/** Longest `jti` kept: a random identifier is tens of characters. */
const MAX_JTI_LENGTH = 256;
/** JWK members that only a private (or symmetric) key has. */
const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'];

function refused(description: string): ChallengedRefusal {
  return new ChallengedRefusal({ error: 'invalid_dpop_proof', scheme: 'dpop', description });
}

/** The DPoP checks of one resource server. */
export class DpopChecks {
  readonly mode: DpopMode;
  readonly algorithms: readonly string[];
  private readonly lifetime: number;
  private readonly skew: number;
  private readonly origins: Set<string>;
  private readonly replay: DpopReplayCache;
  private readonly nonces: DpopNonces | undefined;

  /** `resource` is the public URL clients reach the server at, whose origin `htu` names. */
  constructor(settings: DpopSettings, resource: string) {
    this.mode = settings.mode;
    if (this.mode !== 'allowed' && this.mode !== 'required') {
      throw new Error(`DPoP mode must be "allowed" or "required", not ${String(this.mode)}`);
    }
    this.algorithms = settings.algorithms ?? DEFAULT_ALGORITHMS;
    for (const alg of this.algorithms) {
      if (alg === 'none' || /^HS/i.test(alg))
        throw new Error(`Refusing the algorithm ${alg} for DPoP proofs`);
    }
    this.lifetime = settings.proofLifetimeSeconds ?? 60;
    this.skew = settings.clockSkewSeconds ?? 5;
    this.origins = new Set([resource, ...(settings.origins ?? [])].map((o) => originOf(o)));
    this.replay = new DpopReplayCache({
      maxEntries: settings.maxReplayEntries ?? 100_000,
      maxEntriesPerCaller: settings.maxReplayEntriesPerCaller ?? 10_000,
      // A proof is taken from iat - skew to iat + lifetime + skew, and iat itself may be skew ahead of now.
      ttlMs: (this.lifetime + 3 * this.skew + 1) * 1000,
    });
    const nonce = settings.nonce;
    this.nonces = nonce ? new DpopNonces(nonce === true ? {} : nonce) : undefined;
  }

  /**
   * Every check of the proof that needs no claims of the token (RFC 9449 section 4.3, steps 1 to 10, and `ath`):
   * one well-formed `dpop+jwt`, an accepted asymmetric algorithm, a public `jwk` that verifies the signature, the
   * request's method and URL, a recent `iat`, the nonce when nonces are on, and the token's hash.
   */
  async check(
    proof: string | undefined,
    target: RequestTarget | undefined,
    token: string,
  ): Promise<CheckedProof> {
    if (proof === undefined || proof === '') throw refused('a DPoP request needs one DPoP proof header');
    if (proof.length > MAX_PROOF_LENGTH) throw refused('the DPoP proof is too large');
    // Repeated headers arrive joined with ", "; a compact JWS has neither.
    if (/[,\s]/.test(proof)) throw refused('exactly one DPoP proof is taken');
    if (!target) throw refused('this transport carries no request for a DPoP proof to bind');
    const jose = await loadJose();
    const { jwtVerify, EmbeddedJWK, calculateJwkThumbprint } = jose;
    const jwk = embeddedJwk(proof, jose.decodeProtectedHeader);
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(proof, EmbeddedJWK, {
        typ: 'dpop+jwt',
        algorithms: [...this.algorithms],
        maxTokenAge: this.lifetime,
        clockTolerance: this.skew,
        requiredClaims: ['jti', 'htm', 'htu', 'iat'],
      }));
    } catch (err) {
      throw refused(`the DPoP proof does not verify (${(err as { code?: string }).code ?? 'invalid'})`);
    }
    const { jti, htm, htu, ath } = payload;
    if (typeof jti !== 'string' || jti.length === 0 || jti.length > MAX_JTI_LENGTH) {
      throw refused('the DPoP proof needs a jti of at most 256 characters');
    }
    if (htm !== target.method) throw refused('the DPoP proof names another method (htm)');
    if (typeof htu !== 'string' || !this.urlMatches(htu, target)) {
      throw refused('the DPoP proof names another URL (htu)');
    }
    if (this.nonces && !this.nonces.accepts(payload.nonce)) {
      const detail: RefusalDetail = {
        error: 'use_dpop_nonce',
        scheme: 'dpop',
        description: 'the DPoP proof needs the nonce this server gives (DPoP-Nonce)',
        nonce: this.nonces.current(),
      };
      throw new ChallengedRefusal(detail);
    }
    if (ath !== toBase64Url(sha256(token))) throw refused('the DPoP proof is for another access token (ath)');
    return { jkt: await calculateJwkThumbprint(jwk, 'sha256'), jti };
  }

  /**
   * The token's binding: its `cnf.jkt` must be the proof's key, and the proof's `jti` new for this caller. Last of
   * all, so that only proofs that passed everything else take room in the replay cache.
   */
  bind(proof: CheckedProof, jkt: string, caller: string): void {
    if (proof.jkt !== jkt) {
      throw new ChallengedRefusal({
        error: 'invalid_token',
        scheme: 'dpop',
        description: 'the access token is bound to another key than the DPoP proof (cnf.jkt)',
      });
    }
    if (!this.replay.record(caller, proof.jti)) throw refused('the DPoP proof was used before (jti)');
  }

  /** `htu` without query and fragment, on an origin this server answers at, with the request's path. */
  private urlMatches(htu: string, target: RequestTarget): boolean {
    const url = parsed(htu);
    if (url === undefined) return false;
    const given = normalised(url);
    const path = parsed(`http://path.invalid${target.path}`)?.pathname;
    // Only an origin-form target is a path (an absolute-form one, `POST http://…`, names no request of ours).
    if (given === undefined || path === undefined || !target.path.startsWith('/')) return false;
    for (const origin of this.origins) if (given === `${origin}${path}`) return true;
    if (target.authority !== undefined) {
      // gRPC listens on a port of its own, which the resource URL cannot name: its authority stands for it.
      for (const scheme of ['http', 'https']) {
        const authority = parsed(`${scheme}://${target.authority}`);
        const origin = authority && normalisedOrigin(authority);
        if (origin !== undefined && given === `${origin}${path}`) return true;
      }
    }
    return false;
  }
}

/** The proof's `jwk` header if it is a public key: no private member may be sent, let alone trusted. */
function embeddedJwk(proof: string, decodeHeader: typeof decodeProtectedHeader): JWK {
  let jwk: unknown;
  try {
    jwk = decodeHeader(proof).jwk;
  } catch {
    throw refused('the DPoP proof is no JWS');
  }
  if (!jwk || typeof jwk !== 'object' || Array.isArray(jwk)) throw refused('the DPoP proof carries no jwk');
  if (PRIVATE_MEMBERS.some((m) => m in jwk)) throw refused('the DPoP proof jwk must be a public key');
  return jwk as JWK;
}

/** `value` as a URL, or undefined when it is none. */
function parsed(value: string): URL | undefined {
  try {
    return new URL(value);
  } catch {
    return undefined;
  }
}

/** The origin of an absolute URL, normalised as `htu` is. */
function originOf(url: string): string {
  const origin = normalisedOrigin(new URL(url));
  if (origin === undefined) throw new Error(`Not an http(s) URL: ${url}`);
  return origin;
}

/**
 * A URL's origin as compared for `htu` (RFC 9449 section 4.3, step 9): scheme and host lower-case (the URL parser
 * does that), default port dropped; a WebSocket URL as the HTTP request its upgrade is.
 */
function normalisedOrigin(url: URL): string | undefined {
  const scheme = url.protocol === 'ws:' ? 'http:' : url.protocol === 'wss:' ? 'https:' : url.protocol;
  if (scheme !== 'http:' && scheme !== 'https:') return undefined;
  const port = url.port === '' || url.port === (scheme === 'http:' ? '80' : '443') ? '' : `:${url.port}`;
  return `${scheme}//${url.hostname}${port}`;
}

/** A URL as compared for `htu`: its normalised origin and path, without query or fragment. */
function normalised(url: URL): string | undefined {
  const origin = normalisedOrigin(url);
  return origin === undefined ? undefined : `${origin}${url.pathname}`;
}

/**
 * Server-provided nonces without state shared between instances: a nonce is the HMAC of its time window under
 * the secret, so any instance with the secret knows the current one and the one before it.
 */
class DpopNonces {
  private readonly secret: Uint8Array;
  private readonly lifetimeMs: number;
  private cached: { window: number; nonce: string } | undefined;

  constructor(settings: DpopNonceSettings) {
    const secret = settings.secret;
    this.secret =
      secret === undefined
        ? crypto.getRandomValues(new Uint8Array(32))
        : typeof secret === 'string'
          ? new TextEncoder().encode(secret)
          : secret;
    if (this.secret.length < 16) throw new Error('A DPoP nonce secret needs at least 16 bytes');
    this.lifetimeMs = (settings.lifetimeSeconds ?? 300) * 1000;
  }

  /** The nonce handed out now. */
  current(): string {
    return this.nonceOf(Math.floor(Date.now() / this.lifetimeMs));
  }

  /** Whether a proof's nonce is the current one or the one before (handed out less than two lifetimes ago). */
  accepts(nonce: unknown): boolean {
    if (typeof nonce !== 'string') return false;
    const window = Math.floor(Date.now() / this.lifetimeMs);
    return nonce === this.nonceOf(window) || nonce === this.nonceOf(window - 1);
  }

  private nonceOf(window: number): string {
    if (this.cached?.window === window) return this.cached.nonce;
    const nonce = toBase64Url(hmacSha256(this.secret, `dpop-nonce:${window}`));
    if (this.cached === undefined || window > this.cached.window) this.cached = { window, nonce };
    return nonce;
  }
}
