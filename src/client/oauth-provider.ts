import { randomBytes } from 'node:crypto';
import type { OAuthClientProvider, OAuthDiscoveryState } from '@modelcontextprotocol/sdk/client/auth.js';
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import type { OAuthOptions, OAuthRecord, OAuthStore } from './oauth.js';

/**
 * The SDK's `OAuthClientProvider` over an `OAuthStore` record, for the authorization code flow: the SDK's `auth()`
 * does the protocol (registration, PKCE, token exchange, refresh, issuer binding), this keeps what it hands over.
 * The user-agent step is not here: `redirectToAuthorization` only records the URL and the `state` sent, and the
 * session (`oauth-session.ts`) shows it and checks the response.
 */
export class StoredOAuthProvider implements OAuthClientProvider {
  /** The authorization URL of the sign-in in progress, and the `state` it carries. */
  pendingAuthorization: { url: URL; state: string } | undefined;
  /** Set by the session before each `auth()`: the discovery it made and checked. */
  discovered: OAuthDiscoveryState | undefined;
  /** `options.redirectUrl`, resolved by the session before a sign-in. */
  redirect: string | undefined;
  private verifier: string | undefined;
  private lastState: string | undefined;

  constructor(
    protected readonly server: string,
    private readonly store: OAuthStore,
    private readonly options: OAuthOptions,
  ) {
    if (typeof options.redirectUrl === 'string') this.redirect = options.redirectUrl;
  }

  get redirectUrl(): string | undefined {
    return this.redirect;
  }

  get clientMetadataUrl(): string | undefined {
    return this.options.clientMetadataUrl;
  }

  get clientMetadata(): OAuthClientMetadata {
    const confidential = this.options.clientSecret !== undefined;
    return {
      client_name: this.options.clientName ?? 'mcplite',
      redirect_uris: this.redirect ? [this.redirect] : [],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: confidential ? 'client_secret_basic' : 'none',
      // A loopback redirect is a native app's (RFC 8252); an https one a web client's.
      application_type: isLoopback(this.redirect) ? 'native' : 'web',
      ...(this.options.scope ? { scope: this.options.scope } : {}),
    } as OAuthClientMetadata;
  }

  state(): string {
    this.lastState = randomBytes(16).toString('base64url');
    return this.lastState;
  }

  async clientInformation(): Promise<OAuthClientInformationMixed | undefined> {
    const stored = (await this.record()).client;
    if (stored) return stored;
    if (this.options.clientId === undefined) return undefined;
    return {
      client_id: this.options.clientId,
      ...(this.options.clientSecret !== undefined ? { client_secret: this.options.clientSecret } : {}),
    };
  }

  async saveClientInformation(client: OAuthClientInformationMixed): Promise<void> {
    await this.update({ client });
  }

  async tokens(): Promise<OAuthTokens | undefined> {
    return (await this.record()).tokens;
  }

  async saveTokens(tokens: OAuthTokens): Promise<void> {
    await this.update({ tokens });
  }

  redirectToAuthorization(url: URL): void {
    this.pendingAuthorization = { url, state: this.lastState ?? '' };
  }

  saveCodeVerifier(verifier: string): void {
    this.verifier = verifier;
  }

  codeVerifier(): string {
    if (this.verifier === undefined) throw new Error('No sign-in is in progress');
    return this.verifier;
  }

  discoveryState(): OAuthDiscoveryState | undefined {
    return this.discovered;
  }

  saveDiscoveryState(state: OAuthDiscoveryState): void {
    this.discovered = state;
  }

  async invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): Promise<void> {
    if (scope === 'verifier' || scope === 'all') this.verifier = undefined;
    // Not on 'all' (the SDK's answer to invalid_client): the discovery is the session's, checked before any
    // credential is sent, and renewed at each sign-in; the SDK's own would not be.
    if (scope === 'discovery') this.discovered = undefined;
    if (scope === 'tokens' || scope === 'all') await this.update({ tokens: undefined });
    if (scope === 'client' || scope === 'all') await this.update({ client: undefined });
  }

  private async record(): Promise<OAuthRecord> {
    return (await this.store.load(this.server)) ?? {};
  }

  private async update(change: Partial<OAuthRecord>): Promise<void> {
    const next: OAuthRecord = { ...(await this.record()), ...change };
    for (const key of Object.keys(next) as Array<keyof OAuthRecord>)
      if (next[key] === undefined) delete next[key];
    await this.store.save(this.server, next);
  }
}

/** True for an http URL on a loopback address (RFC 8252 §7.3). */
function isLoopback(url: string | undefined): boolean {
  if (!url) return false;
  try {
    const { protocol, hostname } = new URL(url);
    return protocol === 'http:' && ['127.0.0.1', '[::1]', 'localhost'].includes(hostname);
  } catch {
    return false;
  }
}
