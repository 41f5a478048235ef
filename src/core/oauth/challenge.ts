import type { ProtectedResource } from './protected-resource.js';

/**
 * `WWW-Authenticate` challenges (RFC 6750 section 3, RFC 9728 section 5.1). Core builds them, so the error a hook or
 * a scope check raises carries its own challenge and every binding answers it the same way.
 */

/** The challenge of a server with a plain hook (no protected resource metadata to point at). */
const REALM = 'realm="mcplite"';

/** A quoted-string parameter (RFC 9110 section 5.6.4): backslash and quote escaped, controls dropped. */
function param(name: string, value: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: controls are what is being removed
  const clean = value.replace(/[\u0000-\u001f\u007f]/g, '').replace(/["\\]/g, '\\$&');
  return `${name}="${clean}"`;
}

/**
 * The challenge of a 401: `error="invalid_token"` when a token was given (RFC 6750: none when the request had no
 * credentials), and the metadata URL when the hook guards a protected resource.
 */
export function unauthenticatedChallenge(
  protectedResource: ProtectedResource | undefined,
  token: string | undefined,
): string {
  const invalid = token !== undefined ? `${param('error', 'invalid_token')}, ` : '';
  if (!protectedResource) return `Bearer ${REALM}${invalid ? `, ${param('error', 'invalid_token')}` : ''}`;
  return `Bearer ${invalid}${param('resource_metadata', protectedResource.metadataUrl)}`;
}

/** The step-up challenge of a 403 (MCP authorization, "scope challenge"): the scopes the call needs. */
export function insufficientScopeChallenge(
  protectedResource: ProtectedResource | undefined,
  scopes: readonly string[],
): string {
  const params = [param('error', 'insufficient_scope'), param('scope', scopes.join(' '))];
  params.push(protectedResource ? param('resource_metadata', protectedResource.metadataUrl) : REALM);
  return `Bearer ${params.join(', ')}`;
}
