import type { OAuthClientProvider, OAuthDiscoveryState } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { McpLiteError } from '../core/errors.js';
import { type AuthChallenge, parseChallenge } from './auth-challenge.js';
import { DPOP_ALGORITHM, DpopKey, withDpopProofs } from './dpop.js';
import { type HttpFetch, shown } from './http-fetch.js';
import { configuredIssuers, memoryOAuthStore, type OAuthOptions, type OAuthStore } from './oauth.js';
import { discoverAuthorization } from './oauth-discovery.js';
import { boundedOAuthFetch } from './oauth-fetch.js';
import { AssertionGrantProvider } from './oauth-grants.js';
import { StoredOAuthProvider } from './oauth-provider.js';
import { registrationForgotten } from './oauth-registration.js';

const DEFAULT_MAX_AUTHORIZATIONS = 3;

/**
 * One client's OAuth with one protected server: it puts the current access token on each request and, on a 401
 * or a 403 `insufficient_scope`, signs in (or refreshes, or steps up) and sends the request again. The protocol is
 * the MCP SDK's `auth()`; this adds what the SDK leaves to its caller: the user-agent step, the checks of the
 * authorization response (`state`, RFC 9207 `iss`), the metadata's issuer (RFC 8414 §3.3), `offline_access` where
 * the authorization server offers it, and a limit on sign-ins in a row. Every HTTP transport of the client sends
 * through `fetch(next)`, so MCP (handshake and stateless), MCP-lite HTTP and Webtools behave alike.
 */
export class OAuthSession {
  /** The grant's provider: ours for the authorization code, the SDK's for client credentials (made when needed). */
  private provider: OAuthClientProvider | undefined;
  private readonly interactive: StoredOAuthProvider | undefined;
  private readonly maxAuthorizations: number;
  /** Sign-ins since a request last got through; reset by any answer that is not a 401/403. */
  private attempts = 0;
  /** The scopes the last sign-in asked for, kept in the next (SEP-2350). */
  private requested: string[] = [];
  /** The sign-in in flight: requests refused meanwhile wait for it rather than start their own. */
  private running: Promise<void> | undefined;
  /** `oauth.issuer`: where this client's credentials may go (empty: where the resource says, for a public client). */
  private readonly issuers: readonly string[];
  /** The discovery the last sign-in made and checked; the SDK's `auth()` goes exactly there. */
  private discovered: OAuthDiscoveryState | undefined;
  /** Every OAuth request, bounded in bytes and time (`oauth-fetch.ts`). */
  private readonly oauthFetch = boundedOAuthFetch();
  /** Where tokens, registrations and the DPoP key are kept. */
  private readonly store: OAuthStore;
  /** The provider of the jwt-bearer and enterprise grants, when one of them is configured. */
  private readonly assertionGrant: AssertionGrantProvider | undefined;
  /** This client's DPoP key, once it uses DPoP (loaded from the store, else made at the first sign-in). */
  private dpopKey: DpopKey | undefined;

  constructor(
    readonly server: string,
    private readonly options: OAuthOptions,
  ) {
    this.maxAuthorizations = options.maxAuthorizations ?? DEFAULT_MAX_AUTHORIZATIONS;
    this.issuers = configuredIssuers(options);
    this.store = options.store ?? memoryOAuthStore();
    if (options.grant === 'client_credentials') {
      if (!options.clientId)
        throw new McpLiteError('invalid_request', 'The client credentials grant needs clientId');
    } else if (options.grant === 'jwt-bearer' || options.grant === 'enterprise') {
      const context = () => ({ discovered: this.discovered, fetchFn: this.oauthFetch });
      this.assertionGrant = new AssertionGrantProvider(server, this.store, options, context, this.issuers);
      this.provider = this.assertionGrant;
    } else {
      this.interactive = new StoredOAuthProvider(server, this.store, options);
      this.provider = this.interactive;
    }
  }

  /** The access token to send now, if any. */
  async accessToken(): Promise<string | undefined> {
    return (await this.provider?.tokens())?.access_token;
  }

  /**
   * For a wire that is not `fetch` (gRPC): the headers that carry the current access token to `url` with `method`
   * (`authorization`, and `dpop` with a proof for a bound token), and the token they carry.
   */
  async credentials(url: string, method = 'POST') {
    const tokens = await this.provider?.tokens();
    if (!tokens?.access_token) return { token: undefined, headers: {} };
    const init = await this.authorized(url, { method }, tokens);
    return { token: tokens.access_token, headers: Object.fromEntries(new Headers(init.headers)) };
  }

  /**
   * `init` carrying `tokens`: `Authorization: DPoP` with a proof for this request (RFC 9449 §7.1) when they are
   * bound to this client's key, else `Authorization: Bearer`.
   */
  private async authorized(url: string | URL, init: RequestInit, tokens: OAuthTokens): Promise<RequestInit> {
    const headers = new Headers(init.headers);
    const key = tokens.token_type?.toLowerCase() === 'dpop' ? await this.key(false) : undefined;
    if (key) {
      headers.set('authorization', `DPoP ${tokens.access_token}`);
      headers.set('dpop', await key.proof(init.method ?? 'GET', url, tokens.access_token));
    } else headers.set('authorization', `Bearer ${tokens.access_token}`);
    return { ...init, headers };
  }

  /**
   * The DPoP key for this sign-in, or undefined when it goes without: `oauth.dpop` true; or unset, and the
   * resource takes DPoP (its metadata, RFC 9728: ES256 in `dpop_signing_alg_values_supported` while the
   * authorization server offers ES256 too, or `dpop_bound_access_tokens_required`). An authorization server
   * offering DPoP alone is not enough: many do while their resources take only bearer tokens.
   */
  private async dpopFor(discovered: OAuthDiscoveryState | undefined) {
    if (this.options.dpop === false) return undefined;
    const offers = (document: unknown) => {
      const algs = (document as { dpop_signing_alg_values_supported?: unknown } | undefined)
        ?.dpop_signing_alg_values_supported;
      return Array.isArray(algs) && algs.includes(DPOP_ALGORITHM);
    };
    const resource = discovered?.resourceMetadata as
      | { dpop_bound_access_tokens_required?: unknown }
      | undefined;
    const wanted =
      this.options.dpop === true ||
      resource?.dpop_bound_access_tokens_required === true ||
      (offers(resource) && offers(discovered?.authorizationServerMetadata));
    return wanted ? this.key(true) : undefined;
  }

  /**
   * The DPoP key: this session's, else the store's, else (`create`) a new one, saved with the tokens. A stored key
   * that is not an ES256 private key (a damaged or edited record) is replaced as if absent: the tokens bound to it
   * are then refused and signed in again.
   */
  private async key(create: boolean): Promise<DpopKey | undefined> {
    if (this.dpopKey) return this.dpopKey;
    const record = (await this.store.load(this.server)) ?? {};
    const stored = record.dpopKey ? await DpopKey.fromJwk(record.dpopKey).catch(() => undefined) : undefined;
    if (stored) this.dpopKey = stored;
    else if (create) {
      this.dpopKey = await DpopKey.generate();
      await this.store.save(this.server, { ...record, dpopKey: this.dpopKey.privateJwk });
    }
    return this.dpopKey;
  }

  /**
   * The provider of the grant. The SDK's auth module is loaded here, at the first sign-in, not with the client:
   * a connection to a server that asks for none never pays for it.
   */
  private async grantProvider(expectedIssuer: string): Promise<OAuthClientProvider> {
    if (this.provider) return this.provider;
    const { ClientCredentialsProvider, PrivateKeyJwtProvider } = await import(
      '@modelcontextprotocol/sdk/client/auth-extensions.js'
    );
    const { clientId = '', privateKey, scope } = this.options;
    const provider: OAuthClientProvider = privateKey
      ? new PrivateKeyJwtProvider({
          clientId,
          privateKey,
          algorithm: this.options.signingAlgorithm ?? 'ES256',
          expectedIssuer,
          ...(scope ? { scope } : {}),
        })
      : new ClientCredentialsProvider({
          clientId,
          clientSecret: this.options.clientSecret ?? '',
          expectedIssuer,
          ...(scope ? { scope } : {}),
        });
    // The SDK's machine providers keep no discovery: this one is the session's, checked, so `auth()` neither
    // repeats it (a resource could answer differently the second time) nor goes anywhere else.
    provider.discoveryState = () => this.discovered;
    provider.saveDiscoveryState = (state) => {
      this.discovered = state;
    };
    this.provider = provider;
    return provider;
  }

  /**
   * `next` with the access token on each request (with a DPoP proof for a bound one), a sign-in and one retry
   * after a refusal it can fix, and one retry with the server's new nonce after a `use_dpop_nonce` (RFC 9449 §9).
   */
  fetch(next: HttpFetch): HttpFetch {
    return async (url, init) => {
      let nonceRetried = false;
      for (;;) {
        const tokens = await this.provider?.tokens();
        const sent = tokens?.access_token;
        const request = tokens && sent ? await this.authorized(url, init, tokens) : init;
        const res = await next(url, request);
        // The challenge of the scheme the request used: a DPoP request's nonce or proof error is in `DPoP …`.
        const scheme = new Headers(request.headers).get('authorization')?.split(' ')[0];
        const challenge = parseChallenge(res.headers.get('www-authenticate'), scheme);
        const renewed = this.dpopKey?.noteNonce(url, res.headers) ?? false;
        if (res.status === 401 && challenge?.error === 'use_dpop_nonce' && renewed && !nonceRetried) {
          nonceRetried = true;
          await res.body?.cancel().catch(() => {});
          continue;
        }
        const stepUp = res.status === 403 && challenge?.error === 'insufficient_scope';
        if (res.status !== 401 && !stepUp) {
          if (res.ok) this.attempts = 0;
          return res;
        }
        if (!(await this.authorize(res.status, challenge, sent))) return res;
        await res.body?.cancel().catch(() => {});
      }
    };
  }

  /**
   * For a wire without HTTP responses (gRPC): after a refusal (`status` 401, or 403 with an `insufficient_scope`
   * challenge) carrying `wwwAuthenticate`, the challenge the server put in its error, signs in or refreshes as
   * `fetch` would; false when the request should not be retried. `sent` is the token the refused request carried.
   */
  async recover(status: 401 | 403, wwwAuthenticate: string | undefined, sent: string | undefined) {
    const challenge = parseChallenge(wwwAuthenticate ?? null, this.dpopKey ? 'DPoP' : 'Bearer');
    if (status === 403 && challenge?.error !== 'insufficient_scope') return false;
    return this.authorize(status, challenge, sent);
  }

  /**
   * For a wire without HTTP responses (gRPC): keeps the DPoP nonce a refusal of `url` carried; true when the
   * refusal's `DPoP` challenge asks for it (`use_dpop_nonce`) and it is not the one the proof had, as `fetch` retries.
   */
  useNonce(url: string, wwwAuthenticate: string | undefined, nonce: string | undefined): boolean {
    if (nonce === undefined || !this.dpopKey) return false;
    const renewed = this.dpopKey.keepNonce(url, nonce);
    return renewed && parseChallenge(wwwAuthenticate ?? null, 'DPoP')?.error === 'use_dpop_nonce';
  }

  /** A request got through on a wire without HTTP responses: sign-ins in a row count from zero again. */
  accepted(): void {
    this.attempts = 0;
  }

  /**
   * Signs in after a refusal; false when it should not be retried (the limit reached). A request refused with a
   * token older than the current one is simply retried: another request signed in meanwhile.
   */
  private async authorize(status: number, challenge: AuthChallenge | undefined, sent: string | undefined) {
    while (this.running) await this.running.catch(() => {});
    const current = await this.accessToken();
    if (current !== undefined && current !== sent) return true;
    if (this.attempts >= this.maxAuthorizations) return false;
    this.attempts++;
    // A second refusal in a row, or a larger scope: a refresh would not help, a new sign-in may.
    const fresh = status === 403 || this.attempts > 1;
    this.running = this.signIn(challenge, fresh);
    try {
      await this.running;
    } finally {
      this.running = undefined;
    }
    return true;
  }

  private async signIn(challenge: AuthChallenge | undefined, fresh: boolean): Promise<void> {
    try {
      const { auth } = await import('@modelcontextprotocol/sdk/client/auth.js');
      if (this.interactive && typeof this.options.redirectUrl === 'function')
        this.interactive.redirect ??= await this.options.redirectUrl();
      const resourceMetadataUrl = challenge?.resource_metadata
        ? new URL(challenge.resource_metadata)
        : undefined;
      const scope = await this.discover(challenge, resourceMetadataUrl);
      const provider = await this.grantProvider(this.discovered?.authorizationServerUrl ?? '');
      if (fresh) await provider.invalidateCredentials?.('tokens');
      if (this.assertionGrant) this.assertionGrant.scope = scope;
      const metadata = this.discovered?.authorizationServerMetadata;
      const key = await this.dpopFor(this.discovered);
      // The proofs go with the token endpoint's requests only: discovery and registration carry none.
      const tokenEndpoint = metadata?.token_endpoint;
      const fetchFn = key
        ? withDpopProofs(
            this.oauthFetch,
            key,
            (url, method) => method === 'POST' && shown(url) === tokenEndpoint,
          )
        : this.oauthFetch;
      const base = {
        serverUrl: this.server,
        fetchFn,
        ...(resourceMetadataUrl ? { resourceMetadataUrl } : {}),
        ...(scope ? { scope } : {}),
      };
      const kept = (await this.interactive?.clientInformation())?.client_id;
      if ((await auth(provider, base)) === 'AUTHORIZED') return;
      // A registration the authorization server has forgotten would send the user to an error page, and the
      // sign-in would wait for a redirect that never comes: it is registered anew instead.
      if (kept !== undefined && (await this.forgotten(kept))) {
        await provider.invalidateCredentials?.('client');
        if ((await auth(provider, base)) === 'AUTHORIZED') return;
      }
      const code = await this.userAgentStep();
      if ((await auth(provider, { ...base, authorizationCode: code })) !== 'AUTHORIZED')
        throw new Error('The authorization server did not issue a token');
    } catch (err) {
      throw err instanceof McpLiteError
        ? err
        : new McpLiteError('unauthenticated', `OAuth sign-in failed: ${(err as Error).message}`, {
            reason: 'oauth_failed',
            ...(challenge ? { challenge } : {}),
          });
    }
  }

  /**
   * True when `kept`, a registration from before this sign-in (one just made needs no check), is a dynamic one the
   * authorization server no longer knows.
   */
  private async forgotten(kept: string): Promise<boolean> {
    const client = await this.interactive?.clientInformation();
    const metadata = this.discovered?.authorizationServerMetadata;
    if (client?.client_id !== kept || !metadata || !this.interactive?.redirect) return false;
    // A configured or CIMD client is not one to register again.
    if (client.client_id === this.options.clientId || client.client_id === this.options.clientMetadataUrl)
      return false;
    return registrationForgotten(metadata, client, this.interactive.redirect, this.oauthFetch);
  }

  /**
   * Discovers and checks the authorization server (`oauth-discovery.ts`), keeps it as the discovery `auth()`
   * uses, and answers the scope to ask for: the challenge's, else the resource's `scopes_supported`, else the
   * configured one; plus `offline_access` where the authorization server lists it, so a refresh token comes
   * with the grant.
   */
  private async discover(challenge: AuthChallenge | undefined, resourceMetadataUrl: URL | undefined) {
    const info = await discoverAuthorization(this.server, {
      ...(resourceMetadataUrl ? { resourceMetadataUrl } : {}),
      issuers: this.issuers,
      pkce: this.interactive !== undefined,
      fetchFn: this.oauthFetch,
    });
    this.discovered = info;
    if (this.interactive) this.interactive.discovered = info;
    const metadata = info.authorizationServerMetadata;
    const asked = (
      challenge?.scope ||
      info.resourceMetadata?.scopes_supported?.join(' ') ||
      this.options.scope ||
      ''
    )
      .split(' ')
      .filter(Boolean);
    // A re-authorization asks for what was asked before as well (SEP-2350): a step-up that dropped the
    // scopes already granted would trade one refusal for another.
    const scopes = [...new Set([...this.requested, ...asked])];
    this.requested = scopes.filter((s) => s !== 'offline_access');
    if (
      this.interactive &&
      scopes.length > 0 &&
      metadata?.scopes_supported?.includes('offline_access') &&
      !scopes.includes('offline_access')
    )
      scopes.push('offline_access');
    return scopes.join(' ') || undefined;
  }

  /** Shows the authorization URL and checks what comes back: no error, the `state` sent, the right `iss`. */
  private async userAgentStep(): Promise<string> {
    const pending = this.interactive?.pendingAuthorization;
    if (!this.interactive || !pending) throw new Error('The sign-in did not start');
    this.interactive.pendingAuthorization = undefined;
    if (!this.options.onAuthorizationUrl)
      throw new McpLiteError(
        'unauthenticated',
        'The server needs a sign-in and no onAuthorizationUrl was given',
        {
          reason: 'sign_in_required',
          authorization_url: pending.url.href,
        },
      );
    const back = new URL(String(await this.options.onAuthorizationUrl(pending.url)));
    const params = back.searchParams;
    const error = params.get('error');
    if (error)
      throw new McpLiteError(
        'unauthenticated',
        `Sign-in refused: ${params.get('error_description') ?? error}`,
        {
          reason: 'authorization_denied',
          error,
        },
      );
    if (params.get('state') !== pending.state)
      throw new McpLiteError('unauthenticated', 'The authorization response carries another state', {
        reason: 'state_mismatch',
      });
    checkIss(params.get('iss'), this.interactive.discovered?.authorizationServerMetadata);
    const code = params.get('code');
    if (!code)
      throw new McpLiteError('unauthenticated', 'The authorization response has no code', {
        reason: 'no_code',
      });
    return code;
  }
}

/**
 * RFC 9207: an `iss` present must be the issuer, compared as strings (no normalisation); one promised by
 * `authorization_response_iss_parameter_supported` must be present.
 */
function checkIss(iss: string | null, metadata: { issuer: string } | undefined): void {
  const promised = (metadata as { authorization_response_iss_parameter_supported?: boolean } | undefined)
    ?.authorization_response_iss_parameter_supported;
  if (iss === null) {
    if (promised)
      throw new McpLiteError('unauthenticated', 'The authorization response lacks the promised iss', {
        reason: 'iss_missing',
      });
    return;
  }
  if (!metadata || iss !== metadata.issuer)
    throw new McpLiteError(
      'unauthenticated',
      `The authorization response comes from issuer ${iss}, not ${metadata?.issuer}`,
      {
        reason: 'iss_mismatch',
      },
    );
}
