import type { Authenticate, Principal } from '../auth.js';
import { authenticateOrThrow, bearerToken } from '../auth.js';
import type { MaybePromise } from '../maybe-promise.js';

const NO_PRINCIPAL = undefined;

/**
 * Authentication, written once for every binding: a binding hands over the request's headers (HTTP headers, gRPC
 * metadata, the WebSocket upgrade's headers, legacy SSE's) and gets the principal its operations carry as
 * `op.caller.principal`, or the `unauthenticated` error it answers natively. Without a hook it answers
 * synchronously, so a server without authentication pays nothing.
 */
export function authenticateHeaders(
  hook: Authenticate | undefined,
  headers: Readonly<Record<string, string | undefined>>,
): MaybePromise<Principal | undefined> {
  if (!hook) return NO_PRINCIPAL;
  return authenticateOrThrow(hook, { token: bearerToken(headers.authorization), headers });
}
