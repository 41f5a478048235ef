import type { OAuthDiscoveryState } from '@modelcontextprotocol/sdk/client/auth.js';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import { McpLiteError } from '../core/errors.js';
import { isOAuthBoundError } from './oauth-fetch.js';

/** What a discovery is asked for. */
export interface DiscoveryOptions {
  /** The challenge's `resource_metadata`, when it named one. */
  resourceMetadataUrl?: URL;
  /**
   * The authorization servers this client may use (`oauth.issuer`); empty: whichever the resource names. A client
   * with a secret or a key always has some, so its credentials go nowhere else.
   */
  issuers: readonly string[];
  /** The authorization code flow: the authorization server must offer PKCE with S256. */
  pkce: boolean;
  fetchFn: FetchLike;
}

/**
 * Finds the authorization server of a protected resource (RFC 9728, then RFC 8414 / OpenID discovery, through the
 * SDK's fetchers and `fetchFn`) and checks it before anything is sent to it: it is one the client was configured
 * with (the first the resource lists that is), its metadata names the issuer it was looked up by (RFC 8414 §3.3),
 * and for the authorization code flow it lists S256 in `code_challenge_methods_supported` (the MCP
 * authorization spec: refuse otherwise). The answer is handed to the SDK's `auth()` as its discovery state, so
 * the flow goes exactly where it was checked.
 */
export async function discoverAuthorization(
  server: string,
  { resourceMetadataUrl, issuers, pkce, fetchFn }: DiscoveryOptions,
): Promise<OAuthDiscoveryState> {
  const { discoverAuthorizationServerMetadata, discoverOAuthProtectedResourceMetadata } = await import(
    '@modelcontextprotocol/sdk/client/auth.js'
  );
  const resourceMetadata = await discoverOAuthProtectedResourceMetadata(
    server,
    resourceMetadataUrl ? { resourceMetadataUrl } : {},
    fetchFn,
  ).catch((err: unknown) => {
    // Absent or malformed metadata falls back to the server's origin (2025-03-26); a bound reached does not.
    if (isOAuthBoundError(err)) throw err;
    return undefined;
  });
  const listed = resourceMetadata?.authorization_servers ?? [];
  const candidates = listed.length > 0 ? listed : [String(new URL('/', server))];
  const authorizationServerUrl =
    issuers.length === 0 ? candidates[0] : candidates.find((c) => issuers.some((i) => sameUrl(i, c)));
  if (authorizationServerUrl === undefined)
    throw new McpLiteError(
      'unauthenticated',
      `The server names authorization server ${candidates.join(', ')}; this client is configured for ${issuers.join(', ')} only, and its credentials go nowhere else`,
      { reason: 'issuer_not_configured', authorization_servers: candidates },
    );
  const metadata = await discoverAuthorizationServerMetadata(authorizationServerUrl, { fetchFn });
  if (!metadata)
    throw new McpLiteError(
      'unauthenticated',
      resourceMetadata
        ? `The authorization server ${authorizationServerUrl} publishes no metadata (RFC 8414) to sign in with`
        : `${server} needs a bearer token and publishes no OAuth metadata (RFC 9728) to sign in with: give it a token (the CLI's --token, or -H "Authorization: Bearer …")`,
      { reason: 'no_oauth_metadata' },
    );
  if (!sameIssuer(metadata.issuer, authorizationServerUrl))
    throw new McpLiteError(
      'unauthenticated',
      `The authorization server's metadata names issuer ${metadata.issuer}, not ${authorizationServerUrl} it was fetched for`,
      { reason: 'issuer_mismatch' },
    );
  if (pkce && !metadata.code_challenge_methods_supported?.includes('S256'))
    throw new McpLiteError(
      'unauthenticated',
      `The authorization server ${authorizationServerUrl} does not list S256 in code_challenge_methods_supported: no sign-in without PKCE`,
      { reason: 'pkce_unsupported' },
    );
  return {
    authorizationServerUrl,
    authorizationServerMetadata: metadata,
    ...(resourceMetadata ? { resourceMetadata } : {}),
    ...(resourceMetadataUrl ? { resourceMetadataUrl: String(resourceMetadataUrl) } : {}),
  };
}

/** Two issuer URLs the same once parsed (`https://as.example` and `https://as.example/` are one). */
export function sameUrl(a: string, b: string): boolean {
  try {
    return new URL(a).href === new URL(b).href;
  } catch {
    return a === b;
  }
}

/**
 * RFC 8414 §3.3: the metadata's issuer is the identifier it was looked up by. The one slash a URL parser adds to a
 * bare origin (the 2025-03-26 fallback's `new URL('/', server)`) is the only difference allowed.
 */
function sameIssuer(issuer: string, lookedUp: string): boolean {
  return (
    issuer === lookedUp ||
    (lookedUp.endsWith('/') && new URL(lookedUp).pathname === '/' && issuer === lookedUp.slice(0, -1))
  );
}
