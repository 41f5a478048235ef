import { McpLiteError } from './errors.js';
import { unauthenticatedChallenge } from './oauth/challenge.js';
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

/** What a binding extracts from its wire for the authentication hook. */
export interface Credentials {
  /** The bearer token from `Authorization: Bearer …` (HTTP) or the `authorization` metadata (gRPC). */
  token: string | undefined;
  /** Every header / metadata entry, lower-cased names. */
  headers: Readonly<Record<string, string | undefined>>;
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
 * A ready-made bearer-token hook: accepts any of `tokens` (compared in constant time) and names the caller
 * by the token's index, never by the token itself, so that logs never carry the secret.
 */
export function bearerAuth(tokens: readonly string[]): Authenticate {
  const encoder = new TextEncoder();
  const expected = tokens.map((t) => encoder.encode(t));
  return ({ token }) => {
    if (!token) return undefined;
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
    // The hook could not decide now (its authorization server is busy): the token may be good, so no 401.
    if (isUnavailable(err)) throw err;
    throw refusal(hook, credentials, 'Authentication failed', err);
  }
  if (!principal) throw refusal(hook, credentials, 'A valid bearer token is required');
  return principal;
}

function isUnavailable(err: unknown): err is McpLiteError {
  return err instanceof McpLiteError && err.code === 'unavailable';
}

/** The `unauthenticated` error, its challenge in the data so every wire answers it alike (HTTP: WWW-Authenticate). */
function refusal(
  hook: Authenticate,
  credentials: Credentials,
  message: string,
  cause?: unknown,
): McpLiteError {
  const data = { wwwAuthenticate: unauthenticatedChallenge(hook.protectedResource, credentials.token) };
  return new McpLiteError('unauthenticated', message, data, cause === undefined ? undefined : { cause });
}

/** Extracts the token from an `Authorization: Bearer <token>` header value. */
export function bearerToken(authorization: string | undefined): string | undefined {
  if (!authorization) return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
  return match?.[1];
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
    for (const hook of hooks) {
      try {
        const principal = await hook(credentials);
        if (principal) return principal;
      } catch (err) {
        // the next hook may still accept
        if (isUnavailable(err)) busy ??= err;
      }
    }
    if (busy) throw busy;
    return undefined;
  };
  return protectedResource ? Object.assign(combined, { protectedResource }) : combined;
}
