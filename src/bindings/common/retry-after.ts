import type { McpLiteError } from '../../core/errors.js';

/**
 * The `Retry-After` header of a `rate_limited` refusal (RFC 9110 10.2.3: whole seconds), from the error's
 * `retryAfterMs`; at least 1 so that a client never retries in a tight loop.
 */
function retryAfter(retryAfterMs: unknown): Record<string, string> {
  const ms = typeof retryAfterMs === 'number' && Number.isFinite(retryAfterMs) ? retryAfterMs : 1000;
  return { 'retry-after': String(Math.max(1, Math.ceil(ms / 1000))) };
}

/**
 * `extra` plus, for a rate-limit refusal, its `Retry-After`, and for an authentication or scope refusal the
 * `WWW-Authenticate` challenge core put in its data (`core/oauth/challenge.ts`): the headers of an HTTP response
 * carrying `err`, the one place every HTTP binding reads the challenge from.
 */
export function errorHeaders(
  err: McpLiteError,
  extra?: Record<string, string>,
): Record<string, string> | undefined {
  if (err.code === 'rate_limited') return { ...extra, ...retryAfter(err.data?.retryAfterMs) };
  const challenge = err.data?.wwwAuthenticate;
  if (typeof challenge === 'string' && (err.code === 'unauthenticated' || err.code === 'forbidden')) {
    return { ...extra, 'www-authenticate': challenge };
  }
  return extra;
}
