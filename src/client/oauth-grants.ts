import type { OAuthDiscoveryState } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientInformationMixed } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import { decodeJwt } from 'jose';
import { McpLiteError } from '../core/errors.js';
import type { EnterpriseIdp, OAuthOptions, OAuthSecretSource, OAuthStore } from './oauth.js';
import { sameUrl } from './oauth-discovery.js';
import { StoredOAuthProvider } from './oauth-provider.js';

/** RFC 7523 §2.1: the grant type of a JWT used as an authorization grant. */
export const JWT_BEARER_GRANT = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
/** RFC 8693 token exchange. */
const TOKEN_EXCHANGE_GRANT = 'urn:ietf:params:oauth:grant-type:token-exchange';
/** The token type of an identity assertion JWT authorization grant (enterprise-managed authorization). */
const ID_JAG = 'urn:ietf:params:oauth:token-type:id-jag';
const ID_TOKEN = 'urn:ietf:params:oauth:token-type:id_token';
/** Characters of an assertion read from a function, an ID token, an ID-JAG: JWTs, a few KiB at most. */
const ASSERTION_CHARS = 64 * 1024;

/**
 * The provider of the grants that trade an assertion (RFC 7523 jwt-bearer): `jwt-bearer` (workload identity: the
 * platform's JWT) and `enterprise` (an ID-JAG the identity provider issues for the user's ID token, RFC 8693).
 * The SDK's `auth()` runs it as a non-interactive flow: no redirect, `prepareTokenRequest` gives the grant's
 * parameters, the client authenticates as configured (`none` with `client_id`, or its secret), and the tokens
 * land in the store like a signed-in user's.
 */
export class AssertionGrantProvider extends StoredOAuthProvider {
  /** Set by the session before each `auth()`: the scope to ask for. */
  scope: string | undefined;

  constructor(
    server: string,
    store: OAuthStore,
    private readonly grant: OAuthOptions,
    /** The session's checked discovery, and where it may send (the bounded fetch). */
    private readonly context: () => { discovered: OAuthDiscoveryState | undefined; fetchFn: FetchLike },
    /** `oauth.issuer`, empty when not configured. */
    private readonly issuers: readonly string[],
  ) {
    super(server, store, grant);
    if (!grant.clientId) throw new McpLiteError('invalid_request', `The ${grant.grant} grant needs clientId`);
    if (grant.grant === 'jwt-bearer' && grant.assertion === undefined)
      throw new McpLiteError('invalid_request', 'The jwt-bearer grant needs an assertion');
    if (grant.grant === 'enterprise') checkIdp(grant.idp);
  }

  /** No redirect: the SDK's `auth()` goes straight to the token request. */
  override get redirectUrl(): string | undefined {
    return undefined;
  }

  /** Always the configured client: nothing here registers, and a stored registration is another flow's. */
  override async clientInformation(): Promise<OAuthClientInformationMixed> {
    return {
      client_id: this.grant.clientId ?? '',
      ...(this.grant.clientSecret !== undefined ? { client_secret: this.grant.clientSecret } : {}),
    };
  }

  override async saveClientInformation(): Promise<void> {}

  /** The jwt-bearer grant's parameters, with a fresh assertion (a new ID-JAG, or the workload's current JWT). */
  async prepareTokenRequest(): Promise<URLSearchParams> {
    const { discovered, fetchFn } = this.context();
    const metadata = discovered?.authorizationServerMetadata;
    if (!discovered || !metadata) throw new Error('The authorization server was not discovered');
    const assertion =
      this.grant.grant === 'enterprise'
        ? await exchangeForIdJag(this.grant, discovered, this.server, this.scope, fetchFn)
        : await read(this.grant.assertion, 'assertion');
    if (this.grant.grant === 'jwt-bearer' && this.issuers.length === 0)
      checkAudience(assertion, metadata.issuer);
    const params = new URLSearchParams({ grant_type: JWT_BEARER_GRANT, assertion });
    if (this.scope) params.set('scope', this.scope);
    return params;
  }
}

/**
 * RFC 8693 at the identity provider: the user's ID token for an ID-JAG whose audience is the authorization server
 * (its issuer) and whose resource is this server (its metadata's `resource`, else its URL). The answer must be an
 * ID-JAG from the configured identity provider.
 */
async function exchangeForIdJag(
  options: OAuthOptions,
  discovered: OAuthDiscoveryState,
  server: string,
  scope: string | undefined,
  fetchFn: FetchLike,
): Promise<string> {
  const idp = options.idp as EnterpriseIdp;
  const body = new URLSearchParams({
    grant_type: TOKEN_EXCHANGE_GRANT,
    requested_token_type: ID_JAG,
    audience: discovered.authorizationServerMetadata?.issuer ?? discovered.authorizationServerUrl,
    resource: discovered.resourceMetadata?.resource ?? server,
    subject_token: await read(idp.idToken, 'idp.idToken'),
    subject_token_type: ID_TOKEN,
    client_id: idp.clientId,
  });
  if (scope) body.set('scope', scope);
  const res = await fetchFn(idp.tokenEndpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
    body,
  });
  const answer = (await res.json().catch(() => undefined)) as Record<string, unknown> | undefined;
  if (!res.ok || typeof answer?.access_token !== 'string') {
    const error = typeof answer?.error === 'string' ? answer.error : `HTTP ${res.status}`;
    const description = typeof answer?.error_description === 'string' ? `: ${answer.error_description}` : '';
    throw new McpLiteError(
      'unauthenticated',
      `The identity provider refused the token exchange (${error}${description})`,
      { reason: 'oauth_failed', error },
    );
  }
  if (answer.issued_token_type !== ID_JAG || answer.access_token.length > ASSERTION_CHARS)
    throw new McpLiteError('unauthenticated', 'The identity provider did not answer with an ID-JAG', {
      reason: 'oauth_failed',
    });
  const iss = claims(answer.access_token)?.iss;
  if (typeof iss !== 'string' || !sameUrl(iss, idp.issuer))
    throw new McpLiteError('unauthenticated', `The ID-JAG is issued by ${iss}, not by ${idp.issuer}`, {
      reason: 'issuer_mismatch',
    });
  return answer.access_token;
}

/**
 * Without a configured issuer, an assertion goes only to the authorization server it was issued for: its `aud`
 * names the issuer discovered. One that is not a JWT, or names another, is not sent.
 */
function checkAudience(assertion: string, issuer: string): void {
  const aud = claims(assertion)?.aud;
  const audiences = typeof aud === 'string' ? [aud] : Array.isArray(aud) ? aud : [];
  if (!audiences.some((a) => sameUrl(a, issuer)))
    throw new McpLiteError(
      'unauthenticated',
      `The assertion is not for authorization server ${issuer} (its aud: ${audiences.join(', ') || 'none'}): set oauth.issuer to send it there`,
      { reason: 'issuer_not_configured' },
    );
}

/** A credential's current value, bounded. */
async function read(source: OAuthSecretSource | undefined, name: string): Promise<string> {
  const value = typeof source === 'function' ? await source() : source;
  if (typeof value !== 'string' || value.length === 0 || value.length > ASSERTION_CHARS)
    throw new McpLiteError(
      'invalid_request',
      `oauth.${name} must be a non-empty string of at most ${ASSERTION_CHARS} characters`,
    );
  return value;
}

function checkIdp(idp: EnterpriseIdp | undefined): void {
  for (const key of ['issuer', 'tokenEndpoint', 'clientId'] as const)
    if (typeof idp?.[key] !== 'string' || idp[key] === '')
      throw new McpLiteError('invalid_request', `The enterprise grant needs oauth.idp.${key}`);
  const { issuer, tokenEndpoint, idToken } = idp as EnterpriseIdp;
  for (const url of [issuer, tokenEndpoint])
    if (!/^https?:\/\/[^/]/i.test(url))
      throw new McpLiteError(
        'invalid_request',
        `oauth.idp URLs must be http(s) URLs, got ${JSON.stringify(url)}`,
      );
  if (idToken === undefined)
    throw new McpLiteError('invalid_request', 'The enterprise grant needs oauth.idp.idToken');
}

/** A JWT's claims, unverified (the client only reads where it is meant to go), or undefined. */
function claims(jwt: string): Record<string, unknown> | undefined {
  try {
    return decodeJwt(jwt);
  } catch {
    return undefined;
  }
}
