import type { OAuthClientInformationMixed, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { JWK } from 'jose';
import { McpLiteError } from '../core/errors.js';

/**
 * What the client keeps for one protected server between runs: its registration with the authorization server
 * (stamped with that server's issuer, so a migration re-registers), and the tokens it was given. Nothing else:
 * the PKCE verifier and the `state` of a sign-in in progress never leave memory.
 */
export interface OAuthRecord {
  client?: OAuthClientInformationMixed;
  tokens?: OAuthTokens;
  /** The client's DPoP private key, when it uses DPoP: its tokens are bound to it, so it is kept with them. */
  dpopKey?: JWK;
}

/**
 * Where tokens live: one record per server, keyed by the server's URL. The client writes through it after each
 * registration, sign-in and refresh. `memoryOAuthStore()` is the default (gone with the process); the CLI keeps
 * a file per server that only the user can read (`src/cli/token-file.ts`).
 */
export interface OAuthStore {
  load(server: string): OAuthRecord | undefined | Promise<OAuthRecord | undefined>;
  save(server: string, record: OAuthRecord): void | Promise<void>;
  /** Forgets a server (sign-out). */
  delete?(server: string): void | Promise<void>;
}

/** The `data.reason` of the errors a failed sign-in ends with (`oauth-session.ts`). */
const SIGN_IN_FAILURES: ReadonlySet<unknown> = new Set([
  'sign_in_required',
  'authorization_denied',
  'state_mismatch',
  'iss_missing',
  'iss_mismatch',
  'issuer_mismatch',
  'issuer_not_configured',
  'no_oauth_metadata',
  'pkce_unsupported',
  'no_code',
  'oauth_failed',
]);

/** True for the error of a sign-in that failed, as opposed to a server's plain 401. */
export function isSignInFailure(err: unknown): err is McpLiteError {
  return (
    err instanceof McpLiteError && err.code === 'unauthenticated' && SIGN_IN_FAILURES.has(err.data?.reason)
  );
}

/** An `OAuthStore` in this process's memory: the default, so a client signs in once per process. */
export function memoryOAuthStore(): OAuthStore {
  const records = new Map<string, OAuthRecord>();
  return {
    load: (server) => records.get(server),
    save: (server, record) => {
      records.set(server, record);
    },
    delete: (server) => {
      records.delete(server);
    },
  };
}

/**
 * OAuth 2.1 for a protected server (docs/client.md, "OAuth"). On a 401 the client discovers the authorization
 * server (RFC 9728, RFC 8414 / OpenID discovery), identifies itself (pre-registered `clientId`, else a Client ID
 * Metadata Document at `clientMetadataUrl` where the server takes one, else dynamic registration), signs in with
 * the authorization code and PKCE (or the client credentials grant), and retries the request; a 403
 * `insufficient_scope` asks for the larger scope (step-up), at most `maxAuthorizations` times in a row.
 */
export interface OAuthOptions {
  /**
   * The user-agent step of the authorization code flow: show `url` to the user (open a browser, print it) and
   * resolve with the URL the authorization server redirected back to (`redirectUrl` with `code`, `state`,
   * `iss`). Without it, a server that needs a sign-in fails with `unauthenticated` whose
   * `data.authorization_url` says where to sign in.
   */
  onAuthorizationUrl?: (url: URL) => Promise<string | URL>;
  /**
   * Where the authorization server sends the user back (a loopback URL for a CLI, RFC 8252). A function is
   * called when a sign-in first needs it, so a redirect catcher listens only when there is something to catch.
   */
  redirectUrl?: string | (() => Promise<string>);
  /**
   * The protected resource the target's tokens belong to, when the target's own URL is not it: for a gRPC target
   * (`grpc://host:port` has no HTTP of its own), the server's HTTP URL (`http://host:3000/mcp`) or its resource
   * URI. Tokens are then kept under this URL (one `mcplite login <it>` serves both wires), and signed in and
   * refreshed through its authorization server. Default: the target (a gRPC target as `http://host:port/`).
   */
  resource?: string;
  /** Pre-registered client id (used before CIMD and registration). */
  clientId?: string;
  /**
   * Its secret, for a confidential client (`client_secret_basic` or `client_secret_post`, as advertised). Needs
   * `issuer`: the secret is sent only to an authorization server named there.
   */
  clientSecret?: string;
  /**
   * The authorization server (issuer URL, or a list of them) this client signs in with. A client with a
   * `clientSecret` or a `privateKey` must name it: its credentials go only there, whichever authorization server
   * a resource's metadata names (a server naming none of them fails the sign-in with `data.reason:
   * "issuer_not_configured"`, nothing sent), and `connect()` refuses a secret or key without it before any
   * request. A public client (PKCE, no secret) may leave it out and follow the resource's metadata; given, it
   * restricts a public client the same way.
   */
  issuer?: string | readonly string[];
  /**
   * The grant, when not the authorization code (a user in a browser):
   * - `client_credentials` (machine clients, no user): with `clientId` and `clientSecret` (`client_secret_basic`),
   *   or `clientId` and `privateKey` (`private_key_jwt`, RFC 7523);
   * - `jwt-bearer` (workload identity, RFC 7523 §2.1): `clientId` and `assertion`, a JWT the workload's platform
   *   issued, no secret;
   * - `enterprise` (enterprise-managed authorization): the user's ID token at `idp` is exchanged (RFC 8693) for an
   *   identity assertion (ID-JAG) for this server's authorization server, which it then trades with the jwt-bearer
   *   grant, as `clientId` (with `clientSecret` where the authorization server registered one, which needs
   *   `issuer`).
   */
  grant?: 'authorization_code' | 'client_credentials' | 'jwt-bearer' | 'enterprise';
  /**
   * The `jwt-bearer` grant's assertion, or a function giving it (sync or async), called at each grant: a
   * workload's token rotates. Without `issuer` it goes only to the authorization server its `aud` names.
   */
  assertion?: OAuthSecretSource;
  /** The `enterprise` grant's identity provider, where the user's ID token is exchanged for an ID-JAG. */
  idp?: EnterpriseIdp;
  /**
   * DPoP (RFC 9449): tokens bound to a key of this client, a proof with each token request and each request to
   * the server (`Authorization: DPoP`). `true`: always; `false`: never; unset: when the server's resource
   * metadata (RFC 9728) lists ES256 in `dpop_signing_alg_values_supported` and the authorization server's does
   * too, or says `dpop_bound_access_tokens_required`. The key is kept in `store` with the tokens.
   */
  dpop?: boolean;
  /** `private_key_jwt`: the signing key (PEM or JWK) and its algorithm (default ES256). Needs `issuer`. */
  privateKey?: string | Record<string, unknown>;
  signingAlgorithm?: string;
  /** An https URL of this client's Client ID Metadata Document (CIMD), used where the server supports it. */
  clientMetadataUrl?: string;
  /** The client's name in a dynamic registration. Default `mcplite`. */
  clientName?: string;
  /** Scope asked for when neither the challenge nor the resource's metadata names one. */
  scope?: string;
  /** Where tokens and registrations are kept. Default: memory. */
  store?: OAuthStore;
  /** Sign-ins (and step-ups) in a row, without a request succeeding in between, before giving up. Default 3. */
  maxAuthorizations?: number;
}

/** A credential given as is, or by a function called each time it is needed (sync or async). */
export type OAuthSecretSource = string | (() => string | Promise<string>);

/** The identity provider of enterprise-managed authorization: it exchanges the user's ID token for an ID-JAG. */
export interface EnterpriseIdp {
  /** Its issuer: the ID-JAG it answers with must name it (`iss`). */
  issuer: string;
  /** Its token endpoint, where the exchange (RFC 8693) is posted; the ID token goes nowhere else. */
  tokenEndpoint: string;
  /** This client's id at the identity provider. */
  clientId: string;
  /** The user's ID token from it, or a function giving the current one. */
  idToken: OAuthSecretSource;
}

/**
 * `options.issuer` as a list, after checking the rule it carries: a client with a secret or a key names the
 * authorization server(s) they belong to, so a resource cannot pick where they go.
 */
export function configuredIssuers(options: OAuthOptions): readonly string[] {
  const issuers = [options.issuer ?? []].flat();
  for (const issuer of issuers) {
    if (!/^https?:\/\/[^/]/i.test(issuer))
      throw new McpLiteError(
        'invalid_request',
        `oauth.issuer must be an http(s) URL, got ${JSON.stringify(issuer)}`,
      );
  }
  if (issuers.length === 0 && (options.clientSecret !== undefined || options.privateKey !== undefined))
    throw new McpLiteError(
      'invalid_request',
      `A client ${options.privateKey !== undefined ? 'key' : 'secret'} is sent only to the authorization server configured with it: set oauth.issuer to its issuer URL`,
    );
  return issuers;
}
