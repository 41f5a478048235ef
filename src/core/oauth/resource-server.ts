import type { JWTPayload } from 'jose';
import type { Authenticate, Credentials, Principal } from '../auth.js';
import { ChallengedRefusal } from './challenge.js';
import { type CheckedProof, DpopChecks, type DpopMode, type DpopSettings } from './dpop-proof.js';
import { Introspector } from './introspection.js';
import { OAUTH_FETCH_TIMEOUT_MS } from './issuer-discovery.js';
import { DEFAULT_ALGORITHMS, JwtVerifier, looksLikeJwt, TokenRejected } from './jwt-verifier.js';
import { type ProtectedResource, protectedResourceMetadataUrl } from './protected-resource.js';

/** RFC 7662 introspection of opaque tokens, with the resource server's own client credentials. */
export interface IntrospectionSettings {
  /** The authorization server's introspection endpoint. */
  endpoint: string;
  /** The resource server's client id at the authorization server. */
  clientId: string;
  /** Its client secret (sent as `client_secret_basic`, never logged). */
  clientSecret: string;
  /** How long an active answer is reused. Default 30 000 (a revoked token is refused within this). */
  cacheTtlMs?: number;
  /**
   * How long a refused token's answer (inactive, expired, another audience) is reused, so that a repeated bogus
   * token costs one request to the authorization server. Default 5 000; 0 turns it off (a token the authorization
   * server does not know yet is refused for at most this long).
   */
  negativeCacheTtlMs?: number;
  /** Most answers cached at once, active and refused each. Default 10 000. */
  maxCacheEntries?: number;
  /**
   * Most introspection requests in flight at once (callers presenting one token share one request). A caller whose
   * token would need one more is answered `unavailable` (HTTP 503, gRPC UNAVAILABLE) at once. Default 32.
   */
  maxInFlight?: number;
  /** Longest one introspection request may take, its answer's body included, in ms. Default 5 000. */
  timeoutMs?: number;
}

/** Options of `oauthResourceServer`. */
export interface OAuthResourceServerOptions {
  /**
   * The trusted issuers (exact `iss` values, e.g. `https://tenant.auth0.com/`). A JWT from any other issuer is
   * refused before a key is fetched. Their keys come from their RFC 8414 / OpenID metadata (`jwks_uri`).
   */
  issuer?: string | readonly string[];
  /** This server's resource identifier (RFC 8707): tokens must name it in `aud`. E.g. `https://api.example.com/mcp`. */
  resource: string;
  /** Scopes to publish in `scopes_supported` besides those the tools name. */
  scopes?: readonly string[];
  /** `authorization_servers` in the metadata. Default: the issuers. */
  authorizationServers?: readonly string[];
  /** Signature algorithms accepted. Default: the RSA, RSA-PSS, ECDSA and EdDSA ones; `none` and HS* are refused. */
  algorithms?: readonly string[];
  /** Leeway for `exp`/`nbf`, in seconds. Default 60. */
  clockSkewSeconds?: number;
  /** A JWKS URL to use instead of discovering it (one issuer only). */
  jwksUri?: string;
  /** Least time between two key set fetches of an issuer, in ms. Default 30 000. */
  jwksCooldownMs?: number;
  /** Longest a fetched key set is used without refetching, in ms. Default 600 000. */
  jwksMaxAgeMs?: number;
  /** Opaque tokens: introspect them (RFC 7662). Without it only JWTs are taken. */
  introspection?: IntrospectionSettings;
  /**
   * The metadata URL challenges name. Default: derived from `resource` (RFC 9728 section 3.1); set it when a proxy
   * serves the metadata elsewhere.
   */
  resourceMetadataUrl?: string;
  /** `resource_name` in the metadata. */
  resourceName?: string;
  /** `resource_documentation` in the metadata. */
  documentation?: string;
  /**
   * DPoP, sender-constrained tokens (RFC 9449): `'allowed'` takes bound and unbound tokens, `'required'` bound ones
   * only; the settings form adds a nonce, the algorithms, the proof lifetime and the replay cache's bounds. Either
   * way the challenges name the `DPoP` scheme and the metadata its algorithms. Whatever the setting, even without
   * it, a token bound to a key (`cnf.jkt`) is taken only with a valid proof of that key, never as a plain Bearer
   * token. docs/auth.md, "DPoP on the resource server".
   */
  dpop?: DpopMode | DpopSettings;
}

/**
 * An `Authenticate` hook that makes the server an OAuth 2.1 resource server (MCP authorization): JWT access
 * tokens verified against the trusted issuers' keys, opaque ones introspected, the audience bound to `resource`.
 * The principal carries `sub`, `clientId`, the granted scopes (`scope` or `scp`) and the claims; the hook carries
 * the protected resource the HTTP layer publishes (RFC 9728) and names in its challenges.
 */
export function oauthResourceServer(options: OAuthResourceServerOptions): Authenticate {
  const issuers =
    options.issuer === undefined
      ? []
      : typeof options.issuer === 'string'
        ? [options.issuer]
        : [...options.issuer];
  new URL(options.resource); // a resource that is no absolute URI is a configuration error, found at start
  if (issuers.length === 0 && !options.introspection) {
    throw new Error('oauthResourceServer needs a trusted issuer, an introspection endpoint, or both');
  }
  if (options.jwksUri && issuers.length !== 1) throw new Error('jwksUri needs exactly one issuer');
  const clockSkewSeconds = options.clockSkewSeconds ?? 60;
  const jwt =
    issuers.length > 0
      ? new JwtVerifier({
          issuers,
          audience: options.resource,
          algorithms: options.algorithms ?? DEFAULT_ALGORITHMS,
          clockSkewSeconds,
          jwksCooldownMs: options.jwksCooldownMs ?? 30_000,
          jwksMaxAgeMs: options.jwksMaxAgeMs ?? 600_000,
          ...(options.jwksUri ? { jwksUri: options.jwksUri } : {}),
        })
      : undefined;
  const introspection = options.introspection;
  const introspector = introspection
    ? new Introspector({
        endpoint: introspection.endpoint,
        clientId: introspection.clientId,
        clientSecret: introspection.clientSecret,
        audience: options.resource,
        issuers,
        cacheTtlMs: introspection.cacheTtlMs ?? 30_000,
        negativeCacheTtlMs: introspection.negativeCacheTtlMs ?? 5_000,
        maxCacheEntries: introspection.maxCacheEntries ?? 10_000,
        maxInFlight: introspection.maxInFlight ?? 32,
        timeoutMs: introspection.timeoutMs ?? OAUTH_FETCH_TIMEOUT_MS,
        clockSkewSeconds,
      })
    : undefined;
  const dpopOption = typeof options.dpop === 'string' ? { mode: options.dpop } : options.dpop;
  const dpop = new DpopChecks(dpopOption ?? { mode: 'allowed' }, options.resource);
  const protectedResource: ProtectedResource = {
    resource: options.resource,
    authorizationServers: options.authorizationServers ?? issuers,
    scopes: options.scopes ?? [],
    metadataUrl: options.resourceMetadataUrl ?? protectedResourceMetadataUrl(options.resource),
    ...(options.resourceName ? { resourceName: options.resourceName } : {}),
    ...(options.documentation ? { documentation: options.documentation } : {}),
    ...(dpopOption ? { dpop: { mode: dpop.mode, algorithms: dpop.algorithms } } : {}),
  };
  const claimsOf = async (token: string): Promise<JWTPayload | Record<string, unknown>> => {
    if (jwt && looksLikeJwt(token)) return jwt.verify(token);
    if (introspector) return introspector.introspect(token);
    throw new TokenRejected('not a JWT, and no introspection endpoint');
  };
  const hook = async ({ token, scheme, headers, target }: Credentials): Promise<Principal | undefined> => {
    if (!token) return undefined;
    if (scheme !== 'dpop') {
      const claims = await claimsOf(token);
      const principal = principalOf(claims);
      // A stolen bound token must not work as a bearer token (RFC 9449 section 7.1).
      if (boundKey(claims) !== undefined)
        throw bearerRefused('the access token is DPoP-bound: send it as DPoP');
      if (dpop.mode === 'required') throw bearerRefused('this server takes DPoP-bound tokens only');
      return principal;
    }
    // The proof first: it costs no request to the authorization server, and asks for a nonce before anything.
    const proof: CheckedProof = await dpop.check(headers.dpop, target, token);
    let claims: JWTPayload | Record<string, unknown>;
    try {
      claims = await claimsOf(token);
    } catch (err) {
      if (!(err instanceof TokenRejected)) throw err;
      // Why the token failed stays in the log (the cause), as for a Bearer token: the client learns only that.
      const refusal = new ChallengedRefusal({
        error: 'invalid_token',
        scheme: 'dpop',
        description: 'the access token is not valid here',
      });
      throw Object.assign(refusal, { cause: err });
    }
    const principal = principalOf(claims);
    const jkt = boundKey(claims);
    if (jkt === undefined) {
      throw new ChallengedRefusal({
        error: 'invalid_token',
        scheme: 'dpop',
        description: 'the access token is not DPoP-bound (no cnf.jkt)',
      });
    }
    dpop.bind(proof, jkt, principal.id);
    return principal;
  };
  return Object.assign(hook, { protectedResource });
}

function bearerRefused(description: string): ChallengedRefusal {
  return new ChallengedRefusal({ error: 'invalid_token', scheme: 'bearer', description });
}

/**
 * The key thumbprint a token is bound to (`cnf.jkt`, from the JWT or the introspection answer alike). A token
 * confirmed some other way (`cnf` with an mTLS certificate thumbprint, say) is bound to something this server
 * cannot check: refused, rather than taken as a bearer token.
 */
function boundKey(claims: Record<string, unknown>): string | undefined {
  const cnf = claims.cnf;
  if (cnf === undefined) return undefined;
  const jkt = cnf && typeof cnf === 'object' ? (cnf as Record<string, unknown>).jkt : undefined;
  if (typeof jkt !== 'string' || jkt.length === 0) {
    throw new TokenRejected('the access token is bound to something other than a DPoP key (cnf)');
  }
  return jkt;
}

/**
 * The caller a verified token names; `id` is issuer-qualified, so equal subjects of two issuers stay apart. A token
 * that names neither a subject nor a client names no one: it is refused, since every such token would otherwise be
 * the same principal and share its promises, tasks and sessions.
 */
function principalOf(claims: JWTPayload | Record<string, unknown>): Principal {
  const sub = nonEmpty(claims.sub);
  const clientId = nonEmpty(claims.client_id) ?? nonEmpty(claims.azp);
  const caller = sub ?? clientId;
  if (caller === undefined) throw new TokenRejected('the token names neither a subject (sub) nor a client');
  const issuer = typeof claims.iss === 'string' ? claims.iss : '';
  return {
    id: `${issuer}#${caller}`,
    scopes: grantedScopes(claims),
    claims: { ...claims },
    ...(sub !== undefined ? { sub } : {}),
    ...(clientId !== undefined ? { clientId } : {}),
  };
}

function nonEmpty(value: unknown): string | undefined {
  return typeof value === 'string' && value.length > 0 ? value : undefined;
}

/** `scope` (RFC 9068, space-separated) or `scp` (Entra, Okta: a list or a string). */
function grantedScopes(claims: Record<string, unknown>): string[] {
  const raw = claims.scope ?? claims.scp;
  if (typeof raw === 'string') return raw.split(' ').filter((s) => s.length > 0);
  if (Array.isArray(raw)) return raw.filter((s): s is string => typeof s === 'string');
  return [];
}
