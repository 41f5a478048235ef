import { timingSafeEqual } from 'node:crypto';
import { McpLiteError } from './errors.js';

/** Who is calling, as established by the authentication hook. Handlers see it as `ctx.principal`. */
export interface Principal {
  /** A stable identifier of the caller (never the raw credential). */
  id: string;
  /** Optional scopes or roles the hook granted. */
  scopes?: string[];
  /** Anything else the hook wants handlers to see. */
  claims?: Record<string, unknown>;
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
 */
export type Authenticate = (
  credentials: Credentials,
) => Principal | undefined | Promise<Principal | undefined>;

/**
 * A ready-made bearer-token hook: accepts any of `tokens` (compared in constant time) and names the caller
 * by the token's index, never by the token itself, so that logs never carry the secret.
 */
export function bearerAuth(tokens: readonly string[]): Authenticate {
  const expected = tokens.map((t) => Buffer.from(t));
  return ({ token }) => {
    if (!token) return undefined;
    const given = Buffer.from(token);
    const index = expected.findIndex((e) => e.length === given.length && timingSafeEqual(e, given));
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
    throw new McpLiteError('unauthenticated', 'Authentication failed', undefined, { cause: err });
  }
  if (!principal) throw new McpLiteError('unauthenticated', 'A valid bearer token is required');
  return principal;
}

/** Extracts the token from an `Authorization: Bearer <token>` header value. */
export function bearerToken(authorization: string | undefined): string | undefined {
  if (!authorization) return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
  return match?.[1];
}
