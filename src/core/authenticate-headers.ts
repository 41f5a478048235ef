import type { Authenticate, Principal, RequestTarget } from './auth.js';
import { authenticateOrThrow, authorizationToken } from './auth.js';
import type { MaybePromise } from './maybe-promise.js';

const NO_PRINCIPAL = undefined;

/**
 * Authentication, written once for every binding: a binding hands over the request's headers (HTTP headers, gRPC
 * metadata, the WebSocket upgrade's headers, legacy SSE's) and gets the principal its operations carry as
 * `op.caller.principal`, or the `unauthenticated` error it answers natively. Without a hook it answers
 * synchronously, so a server without authentication pays nothing. `target` is the request the headers came with
 * (method, path): what a DPoP proof is checked against, so every binding that carries a token passes it.
 */
export function authenticateHeaders(
  hook: Authenticate | undefined,
  headers: Readonly<Record<string, string | undefined>>,
  target?: RequestTarget,
): MaybePromise<Principal | undefined> {
  if (!hook) return NO_PRINCIPAL;
  const given = authorizationToken(headers.authorization);
  return authenticateOrThrow(hook, {
    token: given?.token,
    ...(given ? { scheme: given.scheme } : {}),
    headers,
    ...(target ? { target } : {}),
  });
}
