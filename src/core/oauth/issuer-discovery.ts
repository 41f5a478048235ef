import { McpLiteError } from '../errors.js';
import { documentTooLarge, readBoundedBytes, readBoundedJson } from '../read-bounded.js';

/** What the resource server needs of an authorization server's metadata (RFC 8414 / OpenID Connect Discovery). */
export interface IssuerMetadata {
  issuer: string;
  jwks_uri?: string;
  introspection_endpoint?: string;
}

/** How long one metadata or introspection request may take before it counts as failed. */
export const OAUTH_FETCH_TIMEOUT_MS = 5_000;

/** Metadata documents are small; a larger answer is not one. */
const MAX_METADATA_BYTES = 256 * 1024;

/**
 * The metadata URLs to try, in order (RFC 8414 section 3.1 inserts the well-known path before the issuer's path;
 * OpenID Connect Discovery appends it, and some issuers, Keycloak and Entra among them, serve only that).
 */
export function metadataUrls(issuer: string): string[] {
  const url = new URL(issuer);
  const path = url.pathname === '/' ? '' : url.pathname.replace(/\/+$/, '');
  return [
    `${url.origin}/.well-known/oauth-authorization-server${path}`,
    `${url.origin}/.well-known/openid-configuration${path}`,
    `${url.origin}${path}/.well-known/openid-configuration`,
  ].filter((u, i, all) => all.indexOf(u) === i);
}

/** Reads a JSON answer of at most `maxBytes`, bounded while it arrives (a hostile endpoint cannot make the server buffer without end). */
export function boundedJson(response: Response, maxBytes = MAX_METADATA_BYTES): Promise<unknown> {
  return readBoundedJson(response, maxBytes, documentTooLarge('answer', maxBytes));
}

/**
 * A `fetch` whose successful answers are read whole, at most `maxBytes` of them, before they are handed on: for a
 * library that reads the body itself (jose's remote key set calls `.json()`), so that an endless answer is cut
 * while it arrives. The caller's signal still bounds the time, body included.
 */
export function boundedFetch(maxBytes: number, what: string): typeof fetch {
  return async (input, init) => {
    const response = await fetch(input, init);
    if (!response.body) return response;
    const bytes = await readBoundedBytes(response, maxBytes, documentTooLarge(what, maxBytes));
    // The library then parses these bytes, never the peer's stream.
    return new Response(bytes as Uint8Array<ArrayBuffer>, {
      status: response.status,
      headers: response.headers,
    });
  };
}

/**
 * Fetches an issuer's metadata, the first document that answers, and checks it names the same issuer (RFC 8414
 * section 3.3: a document for another issuer would let it vouch for keys it does not own).
 */
export async function discoverIssuer(
  issuer: string,
  fetchImpl: typeof fetch = fetch,
): Promise<IssuerMetadata> {
  const failures: string[] = [];
  for (const url of metadataUrls(issuer)) {
    try {
      const response = await fetchImpl(url, {
        headers: { accept: 'application/json' },
        signal: AbortSignal.timeout(OAUTH_FETCH_TIMEOUT_MS),
        redirect: 'error',
      });
      if (!response.ok) {
        failures.push(`${url}: ${response.status}`);
        await response.body?.cancel();
        continue;
      }
      const metadata = (await boundedJson(response)) as Partial<IssuerMetadata> | null;
      if (!metadata || typeof metadata !== 'object' || metadata.issuer !== issuer) {
        failures.push(`${url}: names issuer ${JSON.stringify(metadata?.issuer)}`);
        continue;
      }
      return metadata as IssuerMetadata;
    } catch (err) {
      failures.push(`${url}: ${(err as Error).message}`);
    }
  }
  throw new McpLiteError('unavailable', `No metadata for the issuer ${issuer}`, undefined, {
    cause: new Error(failures.join('; ')),
  });
}
