import { randomBytes } from 'node:crypto';
import type {
  AuthorizationServerMetadata,
  OAuthClientInformationMixed,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';

/**
 * True when the authorization server no longer knows `client`, a public client (no secret) this client
 * registered dynamically earlier. An authorization request with an unknown `client_id` ends on the server's own
 * error page (it must not redirect, RFC 6749 §4.1.2.1), so the sign-in would wait for a redirect that never
 * comes. The token endpoint says it instead: a code exchange with a made-up code is refused with `invalid_client`
 * for a client it does not know, and with `invalid_grant` for one it does. One request, before the user is sent
 * anywhere; any other answer (or none) keeps the registration.
 */
export async function registrationForgotten(
  metadata: AuthorizationServerMetadata,
  client: OAuthClientInformationMixed,
  redirectUri: string,
  fetchFn: FetchLike,
): Promise<boolean> {
  if ('client_secret' in client && client.client_secret !== undefined) return false;
  try {
    const res = await fetchFn(metadata.token_endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code: randomBytes(16).toString('base64url'),
        code_verifier: randomBytes(32).toString('base64url'),
        redirect_uri: redirectUri,
        client_id: client.client_id,
      }),
    });
    if (res.status !== 400 && res.status !== 401) return false;
    // Already read under its bounds by `fetchFn` (`oauth-fetch.ts`): this parses memory.
    const answer = (await res.json()) as { error?: unknown };
    return answer.error === 'invalid_client';
  } catch {
    return false;
  }
}
