/**
 * The protected resource an OAuth hook guards (RFC 9728): what the HTTP layer publishes at
 * `/.well-known/oauth-protected-resource` and names in every `WWW-Authenticate` challenge.
 */
export interface ProtectedResource {
  /** The resource identifier (RFC 8707): the audience tokens must name. */
  readonly resource: string;
  /** The issuers trusted to mint tokens for it, as `authorization_servers`. */
  readonly authorizationServers: readonly string[];
  /** Scopes the resource knows beyond the ones its tools name (`scopes_supported` lists both). */
  readonly scopes: readonly string[];
  /** The absolute URL of its metadata document, as challenges name it (`resource_metadata`). */
  readonly metadataUrl: string;
  /** Optional `resource_name` (RFC 9728 section 2), for people choosing what to authorise. */
  readonly resourceName?: string;
  /** Optional `resource_documentation` URL. */
  readonly documentation?: string;
  /**
   * DPoP (RFC 9449) as the resource advertises it: in its challenges and as `dpop_signing_alg_values_supported` /
   * `dpop_bound_access_tokens_required` in the metadata. Absent when the hook was not told about DPoP.
   */
  readonly dpop?: { readonly mode: 'allowed' | 'required'; readonly algorithms: readonly string[] };
}

/** The path every protected resource metadata document lives under (RFC 9728 section 3). */
export const PROTECTED_RESOURCE_METADATA_PATH = '/.well-known/oauth-protected-resource';

/**
 * The metadata URL of a resource (RFC 9728 section 3.1): the well-known path inserted between the origin and the
 * resource's path, so `https://api.example.com/mcp` has `https://api.example.com/.well-known/oauth-protected-resource/mcp`.
 */
export function protectedResourceMetadataUrl(resource: string): string {
  const url = new URL(resource);
  const path = url.pathname === '/' ? '' : url.pathname.replace(/\/+$/, '');
  return `${url.origin}${PROTECTED_RESOURCE_METADATA_PATH}${path}`;
}

/** The RFC 9728 document: the resource's own scopes and every scope a tool names, without duplicates. */
export function protectedResourceMetadata(
  protectedResource: ProtectedResource,
  toolScopes: Iterable<string>,
): Record<string, unknown> {
  const scopes = [...new Set([...protectedResource.scopes, ...toolScopes])];
  return {
    resource: protectedResource.resource,
    authorization_servers: [...protectedResource.authorizationServers],
    scopes_supported: scopes,
    bearer_methods_supported: ['header'],
    ...(protectedResource.resourceName ? { resource_name: protectedResource.resourceName } : {}),
    ...(protectedResource.documentation ? { resource_documentation: protectedResource.documentation } : {}),
    ...(protectedResource.dpop
      ? {
          dpop_signing_alg_values_supported: [...protectedResource.dpop.algorithms],
          dpop_bound_access_tokens_required: protectedResource.dpop.mode === 'required',
        }
      : {}),
  };
}
