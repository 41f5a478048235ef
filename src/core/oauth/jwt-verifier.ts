import type { createRemoteJWKSet, JWTPayload } from 'jose';
import { boundedFetch, discoverIssuer, OAUTH_FETCH_TIMEOUT_MS } from './issuer-discovery.js';
import { loadJose } from './jose-loader.js';

/**
 * Access tokens as JWTs (RFC 9068 and plain JWT) with `jose`: the issuer's keys discovered from its metadata and
 * cached (a key id the cache lacks triggers a refetch, which is how a rotation is picked up).
 */

/** Asymmetric algorithms only: `none` carries no signature, HMAC with a public key would let anyone sign. */
export const DEFAULT_ALGORITHMS = [
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
];

/** RFC 9068 `typ` values, and the plain JWT ones most issuers (Auth0, Entra, Keycloak) still send. */
const ACCEPTED_TYP = new Set(['at+jwt', 'application/at+jwt', 'jwt', 'application/jwt']);

/** A key set holds a few keys; a larger answer is not one (jose would otherwise buffer whatever arrives). */
const MAX_JWKS_BYTES = 256 * 1024;

/** What the verifier is told. */
export interface JwtVerifierOptions {
  issuers: readonly string[];
  audience: string;
  algorithms: readonly string[];
  clockSkewSeconds: number;
  /** Least time between two JWKS fetches of one issuer (a flood of unknown key ids must not become a flood). */
  jwksCooldownMs: number;
  /** Longest a fetched JWKS is trusted without refetching. */
  jwksMaxAgeMs: number;
  /** A fixed JWKS URL, instead of the one the (single) issuer's metadata names. */
  jwksUri?: string;
}

/** Why a token was refused, for the log: never the token. */
export class TokenRejected extends Error {
  override readonly name = 'TokenRejected';
}

/** Whether a token has the shape of a JWS compact serialisation (three base64url parts). */
export function looksLikeJwt(token: string): boolean {
  return /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/.test(token);
}

/** Verifies access tokens against trusted issuers. */
export class JwtVerifier {
  private readonly keySets = new Map<string, Promise<ReturnType<typeof createRemoteJWKSet>>>();

  constructor(private readonly options: JwtVerifierOptions) {
    for (const alg of options.algorithms) {
      if (alg === 'none' || /^HS/i.test(alg))
        throw new Error(`Refusing the algorithm ${alg} for access tokens`);
    }
  }

  /** The verified claims, or a TokenRejected saying why not. */
  async verify(token: string): Promise<JWTPayload> {
    const { decodeJwt, decodeProtectedHeader, jwtVerify } = await loadJose();
    let iss: string | undefined;
    let typ: string | undefined;
    try {
      iss = decodeJwt(token).iss;
      typ = decodeProtectedHeader(token).typ;
    } catch {
      throw new TokenRejected('not a decodable JWT');
    }
    // Checked before any key is fetched, so an untrusted issuer costs no request to anyone.
    if (iss === undefined || !this.options.issuers.includes(iss)) throw new TokenRejected('untrusted issuer');
    if (typ !== undefined && !ACCEPTED_TYP.has(typ.toLowerCase()))
      throw new TokenRejected(`token type ${typ}`);
    let keys: Awaited<ReturnType<JwtVerifier['keySet']>>;
    try {
      keys = await this.keySet(iss);
    } catch (err) {
      // An issuer that cannot show its keys vouches for no token: a refusal (401), not `unavailable`.
      throw new TokenRejected('no key set for the issuer', { cause: err });
    }
    try {
      const { payload } = await jwtVerify(token, keys, {
        issuer: iss,
        audience: this.options.audience,
        algorithms: [...this.options.algorithms],
        clockTolerance: this.options.clockSkewSeconds,
        requiredClaims: ['exp'],
      });
      return payload;
    } catch (err) {
      throw new TokenRejected((err as { code?: string }).code ?? 'invalid signature or claims');
    }
  }

  /** The issuer's key set, discovered once; a failed discovery is forgotten so the next token retries it. */
  private keySet(issuer: string): Promise<ReturnType<typeof createRemoteJWKSet>> {
    let keys = this.keySets.get(issuer);
    if (!keys) {
      keys = Promise.all([this.discoverJwks(issuer), loadJose()]).then(([uri, jose]) =>
        jose.createRemoteJWKSet(new URL(uri), {
          cooldownDuration: this.options.jwksCooldownMs,
          cacheMaxAge: this.options.jwksMaxAgeMs,
          timeoutDuration: OAUTH_FETCH_TIMEOUT_MS,
          [jose.customFetch]: boundedFetch(MAX_JWKS_BYTES, 'key set'),
        }),
      );
      keys.catch(() => this.keySets.delete(issuer));
      this.keySets.set(issuer, keys);
    }
    return keys;
  }

  private async discoverJwks(issuer: string): Promise<string> {
    if (this.options.jwksUri) return this.options.jwksUri;
    const metadata = await discoverIssuer(issuer);
    if (!metadata.jwks_uri) throw new Error(`The issuer ${issuer} publishes no jwks_uri`);
    return metadata.jwks_uri;
  }
}
