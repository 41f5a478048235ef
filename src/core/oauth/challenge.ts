import type { ProtectedResource } from './protected-resource.js';

/**
 * `WWW-Authenticate` challenges (RFC 6750 section 3, RFC 9728 section 5.1, RFC 9449 section 7.1). Core builds them,
 * so the error a hook or a scope check raises carries its own challenge and every binding answers it the same way.
 */

/** The challenge of a server with a plain hook (no protected resource metadata to point at). */
const REALM = 'realm="mcplite"';

/** A quoted-string parameter (RFC 9110 section 5.6.4): backslash and quote escaped, controls dropped. */
function param(name: string, value: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: controls are what is being removed
  const clean = value.replace(/[\u0000-\u001f\u007f]/g, '').replace(/["\\]/g, '\\$&');
  return `${name}="${clean}"`;
}

/** Why a hook refused, in the terms its challenge names (RFC 6750 section 3.1, RFC 9449 sections 7.1 and 9). */
export interface RefusalDetail {
  /** The error code the challenge carries. */
  readonly error: 'invalid_token' | 'invalid_dpop_proof' | 'use_dpop_nonce';
  /** The scheme whose challenge carries it: the one the request used. */
  readonly scheme: 'bearer' | 'dpop';
  /** `error_description`: what was wrong, never a credential. */
  readonly description?: string;
  /** A nonce the client must put in its next proof, sent as `DPoP-Nonce`. */
  readonly nonce?: string;
}

/**
 * A hook's refusal that names its own challenge (a DPoP proof refused, a nonce to use): `authenticateOrThrow`
 * answers it with that challenge rather than the generic one.
 */
export class ChallengedRefusal extends Error {
  override readonly name = 'ChallengedRefusal';

  constructor(readonly detail: RefusalDetail) {
    super(detail.description ?? detail.error);
  }
}

/**
 * The challenge of a 401. The Bearer one has `error="invalid_token"` when a token was given (RFC 6750: none when
 * the request had no credentials) and the metadata URL when the hook guards a protected resource; a resource that
 * takes DPoP adds a `DPoP` challenge with its algorithms (only that one when DPoP is required), and a refusal of a
 * DPoP request puts its error there.
 */
export function unauthenticatedChallenge(
  protectedResource: ProtectedResource | undefined,
  token: string | undefined,
  detail?: RefusalDetail,
): string {
  const invalid = token !== undefined ? `${param('error', 'invalid_token')}, ` : '';
  if (!protectedResource) return `Bearer ${REALM}${invalid ? `, ${param('error', 'invalid_token')}` : ''}`;
  const metadata = param('resource_metadata', protectedResource.metadataUrl);
  const dpop = protectedResource.dpop;
  const challenges: string[] = [];
  if (dpop?.mode !== 'required') {
    const error = detail && detail.scheme === 'dpop' ? '' : invalid;
    challenges.push(`Bearer ${error}${metadata}`);
  }
  if (dpop || detail?.scheme === 'dpop') {
    const params: string[] = [];
    if (detail?.scheme === 'dpop' || (dpop?.mode === 'required' && token !== undefined)) {
      params.push(param('error', detail?.error ?? 'invalid_token'));
      if (detail?.description) params.push(param('error_description', detail.description));
    }
    if (dpop) params.push(param('algs', dpop.algorithms.join(' ')));
    if (dpop?.mode === 'required') params.push(metadata);
    challenges.push(params.length > 0 ? `DPoP ${params.join(', ')}` : 'DPoP');
  }
  return challenges.join(', ');
}

/**
 * The step-up challenge of a 403 (MCP authorization, "scope challenge"): the scopes the call needs, under the DPoP
 * scheme when the resource takes DPoP-bound tokens only.
 */
export function insufficientScopeChallenge(
  protectedResource: ProtectedResource | undefined,
  scopes: readonly string[],
): string {
  const params = [param('error', 'insufficient_scope'), param('scope', scopes.join(' '))];
  params.push(protectedResource ? param('resource_metadata', protectedResource.metadataUrl) : REALM);
  const scheme = protectedResource?.dpop?.mode === 'required' ? 'DPoP' : 'Bearer';
  return `${scheme} ${params.join(', ')}`;
}
