import { McpLiteError } from './errors.js';
import { ChallengedRefusal, unauthenticatedChallenge } from './oauth/challenge.js';
import type { ProtectedResource } from './oauth/protected-resource.js';
import { equalInConstantTime } from './sha256.js';

/** Who is calling, as established by the authentication hook. Handlers see it as `ctx.principal`. */
export interface Principal {
  /** A stable identifier of the caller (never the raw credential). */
  id: string;
  /** Optional scopes or roles the hook granted. */
  scopes?: string[];
  /** Anything else the hook wants handlers to see. */
  claims?: Record<string, unknown>;
  /** The token's subject (`sub`), when an OAuth hook established the caller. */
  sub?: string;
  /** The OAuth client the token was issued to (`client_id`, or `azp`). */
  clientId?: string;
}

/**
 * The request a credential came with, as far as a proof of possession names it (RFC 9449: `htm`, `htu`): its
 * method and path, and for gRPC the authority it addressed (its port is not the one the resource URL names).
 */
export interface RequestTarget {
  /** Upper-case HTTP method (`POST` for every gRPC call, `GET` for a WebSocket upgrade). */
  readonly method: string;
  /** The path the request addressed, without its query (for gRPC `/mcplite.MCPLite/CallTool` and so on). */
  readonly path: string;
  /** The `:authority` of a gRPC call, `host:port`; HTTP bindings leave it out (the resource URL is their origin). */
  readonly authority?: string;
}

/** What a binding extracts from its wire for the authentication hook. */
export interface Credentials {
  /**
   * The access token from `Authorization: Bearer …` or `Authorization: DPoP …` (HTTP), or the `authorization`
   * metadata (gRPC); `scheme` says which.
   */
  token: string | undefined;
  /**
   * The scheme the token came under: `dpop` when it claims to be sender-constrained (RFC 9449), its proof then
   * in the `dpop` header. Hooks that know nothing of DPoP may ignore it.
   */
  scheme?: 'bearer' | 'dpop';
  /** Every header / metadata entry, lower-cased names. */
  headers: Readonly<Record<string, string | undefined>>;
  /** The request the token came with, for a proof of possession; absent where there is none (stdio). */
  target?: RequestTarget;
}

/**
 * The authentication hook. Return a principal to accept, or undefined (or throw) to reject with
 * `unauthenticated`, which each binding reports natively (HTTP 401 + WWW-Authenticate, gRPC UNAUTHENTICATED).
 * A hook that cannot decide for now throws `McpLiteError('unavailable', …)`, answered as such (HTTP 503, gRPC
 * UNAVAILABLE): the caller retries rather than treating its credential as bad.
 */
export interface Authenticate {
  (credentials: Credentials): Principal | undefined | Promise<Principal | undefined>;
  /**
   * Set by an OAuth hook (`oauthResourceServer`): the protected resource it guards, which the HTTP layer
   * publishes as RFC 9728 metadata and names in every challenge, so a client discovers the authorization
   * server from a 401 alone. Plain hooks leave it unset.
   */
  readonly protectedResource?: ProtectedResource;
}

/**
 * A ready-made bearer-token hook: accepts any of `tokens` (compared in constant time) sent as `Bearer`, and names
 * the caller by the token's index, never by the token itself, so that logs never carry the secret.
 */
export function bearerAuth(tokens: readonly string[]): Authenticate {
  const encoder = new TextEncoder();
  const expected = tokens.map((t) => encoder.encode(t));
  return ({ token, scheme }) => {
    // A token sent as DPoP claims a key binding this hook cannot check: not taken as a bearer token.
    if (!token || scheme === 'dpop') return undefined;
    const given = encoder.encode(token);
    const index = expected.findIndex((e) => equalInConstantTime(e, given));
    return index >= 0 ? { id: `bearer-${index}` } : undefined;
  };
}

/** Runs the hook and turns a rejection into the one error type. */
export async function authenticateOrThrow(
  hook: Authenticate | undefined,
  credentials: Credentials,
): Promise<Principal | undefined> {
  if (!hook) return undefined;
  let principal: Principal | undefined;
  try {
    principal = await hook(credentials);
  } catch (err) {
    // The hook could not decide now (its authorization server is busy), or the caller spent a bound: the token
    // may be good, so no 401.
    if (isPassedThrough(err)) throw err;
    throw refusal(hook, credentials, 'Authentication failed', err);
  }
  if (!principal) throw refusal(hook, credentials, 'A valid bearer token is required');
  return principal;
}

/** Errors a hook raises that are no verdict on the credential: `unavailable` (retry), `resource_exhausted`. */
function isPassedThrough(err: unknown): err is McpLiteError {
  return err instanceof McpLiteError && (err.code === 'unavailable' || err.code === 'resource_exhausted');
}

/**
 * The `unauthenticated` error, its challenge in the data so every wire answers it alike (HTTP: WWW-Authenticate,
 * and a DPoP nonce the hook asks for as `DPoP-Nonce`).
 */
function refusal(
  hook: Authenticate,
  credentials: Credentials,
  message: string,
  cause?: unknown,
): McpLiteError {
  const detail = cause instanceof ChallengedRefusal ? cause.detail : undefined;
  const data: Record<string, unknown> = {
    wwwAuthenticate: unauthenticatedChallenge(hook.protectedResource, credentials.token, detail),
  };
  if (detail?.nonce !== undefined) data.dpopNonce = detail.nonce;
  const why = detail?.description ?? message;
  return new McpLiteError('unauthenticated', why, data, cause === undefined ? undefined : { cause });
}

/**
 * The token and its scheme from an `Authorization` value: `Bearer <token>` or `DPoP <token>` (RFC 9449
 * section 7.1); any other scheme carries no token.
 */
export function authorizationToken(
  authorization: string | undefined,
): { token: string; scheme: 'bearer' | 'dpop' } | undefined {
  if (!authorization) return undefined;
  const match = /^(Bearer|DPoP)\s+(\S+)\s*$/i.exec(authorization);
  if (!match) return undefined;
  return { token: match[2]!, scheme: match[1]!.toLowerCase() === 'dpop' ? 'dpop' : 'bearer' };
}

/**
 * Accepts a caller any of `hooks` accepts, trying them in order (e.g. the bearer-token list and OAuth both on).
 * The first hook that names a protected resource lends it to the combination, so its challenges still point at
 * the metadata. A hook that throws counts as a refusal, so one failing verifier does not shut the others out.
 */
export function anyOf(...hooks: Authenticate[]): Authenticate {
  const protectedResource = hooks.find((h) => h.protectedResource)?.protectedResource;
  const combined = async (credentials: Credentials): Promise<Principal | undefined> => {
    let busy: McpLiteError | undefined;
    let challenged: ChallengedRefusal | undefined;
    for (const hook of hooks) {
      try {
        const principal = await hook(credentials);
        if (principal) return principal;
      } catch (err) {
        // the next hook may still accept
        if (isPassedThrough(err)) busy ??= err;
        else if (err instanceof ChallengedRefusal) challenged ??= err;
      }
    }
    if (busy) throw busy;
    // A refusal that names its own challenge (a DPoP nonce to use) keeps it, so the client can answer it.
    if (challenged) throw challenged;
    return undefined;
  };
  return protectedResource ? Object.assign(combined, { protectedResource }) : combined;
}
