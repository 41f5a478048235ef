import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, type JWK, SignJWT } from 'jose';
import Provider, { type Configuration } from 'oidc-provider';

/**
 * A real OAuth 2.1 / OpenID authorization server for tests: `oidc-provider` on a loopback port, with the
 * client credentials grant, resource indicators (RFC 8707: JWT access tokens, RFC 9068, for whatever resource is
 * asked for), introspection (RFC 7662), dynamic registration and its development login and consent pages (for the
 * authorization-code flow), and DPoP-bound tokens for a token request with a proof. `rotateKeys()` swaps in a new signing key the way an issuer rotates: the new key signs,
 * the old one stays published.
 */

/** The scopes every resource of this issuer knows. */
export const ISSUER_SCOPES = ['tools:read', 'documents:export', 'reports:write'] as const;

/** A confidential client for the client credentials grant (JWT access tokens). */
export const MACHINE_CLIENT = { clientId: 'machine', clientSecret: 'machine-secret-0123456789' };
/** A confidential client whose access tokens are opaque (introspected). */
export const OPAQUE_CLIENT = { clientId: 'opaque-machine', clientSecret: 'opaque-secret-0123456789' };
/** The resource server's own client, which introspects. */
export const RESOURCE_SERVER_CLIENT = { clientId: 'resource-server', clientSecret: 'rs-secret-0123456789' };

/** A running issuer. */
export interface OidcIssuer {
  /** The issuer identifier (`iss`), e.g. `http://127.0.0.1:41234`. */
  readonly issuer: string;
  /** Its introspection endpoint. */
  readonly introspectionEndpoint: string;
  /** A token from the client credentials grant, for `resource`, with `scope` (space-separated). */
  clientCredentialsToken(options: {
    resource: string;
    scope?: string;
    client?: { clientId: string; clientSecret: string };
  }): Promise<string>;
  /** A JWT signed with the issuer's current key (for expired and other hand-made tokens). */
  sign(claims: Record<string, unknown>, header?: { typ?: string }): Promise<string>;
  /** The current public signing key (for the HMAC-with-public-key confusion). */
  publicJwk(): JWK;
  /** A new signing key signs from now on; the old one stays in the JWKS. */
  rotateKeys(): Promise<void>;
  /** How many times the JWKS was fetched (rotation is picked up by a refetch). */
  readonly jwksFetches: number;
  /** How many introspection requests it answered (the resource server caches active answers). */
  readonly introspections: number;
  close(): Promise<void>;
}

async function newKey(): Promise<{ privateJwk: JWK; publicJwk: JWK; privateKey: CryptoKey }> {
  const { privateKey, publicKey } = await generateKeyPair('RS256', { extractable: true });
  const kid = `k-${Math.random().toString(36).slice(2, 10)}`;
  return {
    privateJwk: { ...(await exportJWK(privateKey)), kid, alg: 'RS256', use: 'sig' },
    publicJwk: { ...(await exportJWK(publicKey)), kid, alg: 'RS256', use: 'sig' },
    privateKey: privateKey as CryptoKey,
  };
}

/** Starts an issuer on 127.0.0.1 (a free port). */
export async function startOidcIssuer(): Promise<OidcIssuer> {
  const http: Server = createServer();
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  const keys = [await newKey()];
  let jwksFetches = 0;
  let introspections = 0;
  let provider = makeProvider(
    issuer,
    keys.map((k) => k.privateJwk),
  );
  http.on('request', (req, res) => {
    if (req.url?.startsWith('/jwks')) jwksFetches++;
    if (req.url?.startsWith('/token/introspection')) introspections++;
    provider.callback()(req, res);
  });

  return {
    issuer,
    introspectionEndpoint: `${issuer}/token/introspection`,
    get jwksFetches() {
      return jwksFetches;
    },
    get introspections() {
      return introspections;
    },
    async clientCredentialsToken({ resource, scope, client = MACHINE_CLIENT }) {
      const body = new URLSearchParams({ grant_type: 'client_credentials', resource });
      if (scope) body.set('scope', scope);
      const res = await fetch(`${issuer}/token`, {
        method: 'POST',
        headers: {
          authorization: `Basic ${btoa(`${client.clientId}:${client.clientSecret}`)}`,
          'content-type': 'application/x-www-form-urlencoded',
        },
        body,
      });
      const json = (await res.json()) as {
        access_token?: string;
        error?: string;
        error_description?: string;
      };
      if (!json.access_token)
        throw new Error(`token request failed: ${json.error} ${json.error_description}`);
      return json.access_token;
    },
    async sign(claims, header = {}) {
      const key = keys[0]!;
      return new SignJWT(claims)
        .setProtectedHeader({ alg: 'RS256', kid: key.privateJwk.kid!, typ: header.typ ?? 'at+jwt' })
        .sign(key.privateKey);
    },
    publicJwk: () => keys[0]!.publicJwk,
    async rotateKeys() {
      keys.unshift(await newKey());
      // oidc-provider reads its keys at construction: a new instance over the same issuer and port is the rotation.
      provider = makeProvider(
        issuer,
        keys.map((k) => k.privateJwk),
      );
    },
    close: () =>
      new Promise<void>((resolve) => {
        http.closeAllConnections();
        http.close(() => resolve());
      }),
  };
}

/** What the callbacks read of a client (or of a token: its `clientId`). */
interface Client {
  clientId: string;
}

function makeProvider(issuer: string, jwks: JWK[]): Provider {
  const scope = ISSUER_SCOPES.join(' ');
  const configuration: Configuration = {
    clients: [
      {
        ...asClient(MACHINE_CLIENT),
        grant_types: ['client_credentials'],
        response_types: [],
        redirect_uris: [],
        scope,
      },
      {
        ...asClient(OPAQUE_CLIENT),
        grant_types: ['client_credentials'],
        response_types: [],
        redirect_uris: [],
        scope,
      },
      { ...asClient(RESOURCE_SERVER_CLIENT), grant_types: [], response_types: [], redirect_uris: [] },
    ],
    jwks: { keys: jwks as never },
    scopes: ['openid', 'offline_access', ...ISSUER_SCOPES],
    features: {
      devInteractions: { enabled: true },
      clientCredentials: { enabled: true },
      // DPoP (RFC 9449): a token request with a DPoP proof gets a token bound to the proof's key (cnf.jkt).
      dPoP: { enabled: true },
      introspection: {
        enabled: true,
        // The resource server may introspect any token; a client only its own.
        allowedPolicy: (ctx: { oidc: { client?: Client } }, client: Client, token: Client) =>
          client.clientId === RESOURCE_SERVER_CLIENT.clientId || token.clientId === ctx.oidc.client?.clientId,
      },
      registration: { enabled: true },
      resourceIndicators: {
        enabled: true,
        // Any resource may be asked for: the tests ask for theirs, and for others to be refused.
        defaultResource: () => undefined as unknown as string,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx: unknown, resourceIndicator: string, client: Client) => ({
          audience: resourceIndicator,
          scope,
          accessTokenTTL: 300,
          accessTokenFormat: client.clientId === OPAQUE_CLIENT.clientId ? 'opaque' : 'jwt',
          jwt: { sign: { alg: 'RS256' } },
        }),
      },
    },
    pkce: { required: () => true },
    findAccount: (_ctx: unknown, id: string) => ({ accountId: id, claims: () => ({ sub: id }) }),
    // Short-lived only in tests; loopback issuers on http are what tests have.
    ttl: { AccessToken: 300, ClientCredentials: 300, Session: 600, Interaction: 600, Grant: 600 },
  };
  const provider = new Provider(issuer, configuration);
  return provider;
}

function asClient(c: { clientId: string; clientSecret: string }) {
  return {
    client_id: c.clientId,
    client_secret: c.clientSecret,
    token_endpoint_auth_method: 'client_secret_basic',
  };
}
