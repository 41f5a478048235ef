import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  createLocalJWKSet,
  decodeProtectedHeader,
  exportJWK,
  generateKeyPair,
  type JWK,
  jwtVerify,
  SignJWT,
} from 'jose';
import Provider, { type Configuration } from 'oidc-provider';
import { applyDpopBinding } from 'oidc-provider/lib/helpers/grant_common.js';
import validateDpop from 'oidc-provider/lib/helpers/validate_dpop.js';

/**
 * A real authorization server for the client's enterprise identity flows: oidc-provider on a loopback port with
 * DPoP (RFC 9449) on and a nonce required at the token endpoint, the client credentials grant, and the RFC 7523
 * jwt-bearer grant for a workload (registered through oidc-provider's `registerGrantType`: it verifies the
 * assertion against the workload platform's key, then issues a JWT access token for the asked resource, bound
 * to the proof's key with oidc-provider's own DPoP helpers); the same grant takes the ID-JAGs of a trusted identity
 * provider (for the asking client and resource). A workload platform signs assertions for it. `startIdentityProvider`
 * is that identity provider: oidc-provider with the RFC 8693 token exchange grant registered.
 */

export const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
/** A confidential machine client (client credentials). */
export const DPOP_MACHINE = { clientId: 'dpop-machine', clientSecret: 'dpop-machine-secret-0123456789' };
/** The enterprise app's confidential client at this authorization server (jwt-bearer with an ID-JAG). */
export const ENTERPRISE_CLIENT = { clientId: 'crm-agent', clientSecret: 'crm-agent-secret-0123456789' };
/** The workload's public client (jwt-bearer, no secret). */
export const WORKLOAD_CLIENT = 'workload';
/** The issuer of workload tokens (the platform: a cluster, a cloud). */
export const PLATFORM = 'https://platform.test';

export interface IdentityIssuer {
  readonly issuer: string;
  /** A workload token from the platform for this issuer (`aud`), for `sub`. */
  workloadToken(sub: string, audience?: string): Promise<string>;
  /** Token requests answered, by grant type, and the `use_dpop_nonce` challenges sent. */
  readonly tokenRequests: Record<string, number>;
  readonly nonceChallenges: number;
  /** Takes the ID-JAGs of this identity provider (enterprise-managed authorization). */
  trustIdentityProvider(idp: { issuer: string; publicJwk: JWK }): void;
  /** The issuer's JWKS, to verify its access tokens. */
  jwks(): Promise<ReturnType<typeof createLocalJWKSet>>;
  close(): Promise<void>;
}

/** Starts the issuer on 127.0.0.1 (a free port). */
export async function startIdentityIssuer(): Promise<IdentityIssuer> {
  const http: Server = createServer();
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  const signing = await generateKeyPair('RS256', { extractable: true });
  const signingJwk: JWK = { ...(await exportJWK(signing.privateKey)), kid: 'as-1', alg: 'RS256', use: 'sig' };
  const platform = await generateKeyPair('ES256');
  const platformKeys = createLocalJWKSet({ keys: [await exportJWK(platform.publicKey)] });
  const tokenRequests: Record<string, number> = {};
  let nonceChallenges = 0;
  let trustedIdp: { issuer: string; keys: ReturnType<typeof createLocalJWKSet> } | undefined;

  const provider = new Provider(issuer, configuration(signingJwk)) as unknown as GrantRegistry & Provider;
  provider.registerGrantType(
    JWT_BEARER,
    async (ctx: GrantContext) => {
      const { params, client } = ctx.oidc;
      let sub: string;
      try {
        const assertion = String(params.assertion);
        if (decodeProtectedHeader(assertion).typ === 'oauth-id-jag+jwt') {
          // An ID-JAG: from the trusted identity provider, for this client and the resource asked for.
          if (!trustedIdp) throw new Error('no identity provider is trusted');
          const { payload } = await jwtVerify(assertion, trustedIdp.keys, {
            issuer: trustedIdp.issuer,
            audience: issuer,
            typ: 'oauth-id-jag+jwt',
          });
          if (payload.client_id !== client.clientId) throw new Error('the ID-JAG is for another client');
          if (payload.resource !== params.resource) throw new Error('the ID-JAG is for another resource');
          sub = String(payload.sub);
        } else {
          const { payload } = await jwtVerify(assertion, platformKeys, {
            issuer: PLATFORM,
            audience: issuer,
          });
          sub = String(payload.sub);
        }
      } catch (err) {
        ctx.status = 400;
        ctx.body = { error: 'invalid_grant', error_description: (err as Error).message };
        return;
      }
      const dPoP = await validateDpop(provider, ctx);
      const resource = String(params.resource);
      const token = new provider.ClientCredentials({ client, scope: params.scope || undefined });
      token.resourceServer = new provider.ResourceServer(resource, resourceServerInfo(resource));
      token.extra = { workload: sub };
      await applyDpopBinding(provider, ctx, dPoP, token);
      ctx.body = {
        access_token: await token.save(),
        token_type: token.tokenType,
        expires_in: token.expiration,
        ...(token.scope ? { scope: token.scope } : {}),
      };
    },
    ['assertion', 'scope', 'resource'],
  );
  http.on('request', (req, res) => {
    if (req.method === 'POST' && req.url === '/token') {
      let body = '';
      req.on('data', (c: Buffer) => {
        body += c;
      });
      req.on('end', () => {
        const grant = new URLSearchParams(body).get('grant_type') ?? '';
        tokenRequests[grant] = (tokenRequests[grant] ?? 0) + 1;
      });
      // oidc-provider answers a proof without its nonce with 400 use_dpop_nonce and the nonce to use.
      res.on('finish', () => {
        if (res.statusCode === 400 && res.getHeader('dpop-nonce')) nonceChallenges++;
      });
    }
    provider.callback()(req, res);
  });

  return {
    issuer,
    tokenRequests,
    trustIdentityProvider: (idp) => {
      trustedIdp = { issuer: idp.issuer, keys: createLocalJWKSet({ keys: [idp.publicJwk] }) };
    },
    get nonceChallenges() {
      return nonceChallenges;
    },
    workloadToken: (sub, audience = issuer) =>
      new SignJWT({})
        .setProtectedHeader({ alg: 'ES256' })
        .setIssuer(PLATFORM)
        .setSubject(sub)
        .setAudience(audience)
        .setIssuedAt()
        .setExpirationTime('5m')
        .sign(platform.privateKey),
    jwks: async () => createLocalJWKSet({ keys: [{ ...(await exportJWK(signing.publicKey)), kid: 'as-1' }] }),
    close: () =>
      new Promise<void>((resolve) => {
        http.closeAllConnections();
        http.close(() => resolve());
      }),
  };
}

/** The little of oidc-provider's grant API the jwt-bearer grant uses. */
interface GrantRegistry {
  registerGrantType(name: string, handler: (ctx: GrantContext) => Promise<void>, params: string[]): void;
  ClientCredentials: new (init: {
    client: unknown;
    scope?: string;
  }) => {
    resourceServer: unknown;
    extra: Record<string, unknown>;
    scope?: string;
    tokenType: string;
    expiration: number;
    save(): Promise<string>;
  };
  ResourceServer: new (resource: string, info: unknown) => unknown;
}

interface GrantContext {
  oidc: { params: Record<string, string | undefined>; client: { clientId: string } };
  status: number;
  body: unknown;
}

function resourceServerInfo(resource: string) {
  return {
    audience: resource,
    scope: 'tools:read',
    accessTokenTTL: 300,
    accessTokenFormat: 'jwt',
    jwt: { sign: { alg: 'RS256' } },
  };
}

function configuration(signingJwk: JWK): Configuration {
  return {
    clients: [
      {
        client_id: DPOP_MACHINE.clientId,
        client_secret: DPOP_MACHINE.clientSecret,
        token_endpoint_auth_method: 'client_secret_basic',
        grant_types: ['client_credentials'],
        response_types: [],
        redirect_uris: [],
        scope: 'tools:read',
      },
      {
        client_id: ENTERPRISE_CLIENT.clientId,
        client_secret: ENTERPRISE_CLIENT.clientSecret,
        token_endpoint_auth_method: 'client_secret_basic',
        grant_types: [JWT_BEARER],
        response_types: [],
        redirect_uris: [],
        scope: 'tools:read',
      },
      {
        client_id: WORKLOAD_CLIENT,
        token_endpoint_auth_method: 'none',
        grant_types: [JWT_BEARER],
        response_types: [],
        redirect_uris: [],
        scope: 'tools:read',
      },
    ],
    jwks: { keys: [signingJwk] },
    scopes: ['tools:read'],
    features: {
      devInteractions: { enabled: false },
      clientCredentials: { enabled: true },
      // A nonce at every token request: the client must answer use_dpop_nonce (RFC 9449 §8).
      dPoP: { enabled: true, nonceSecret: randomBytes(32), requireNonce: () => true },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => undefined as unknown as string,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx: unknown, resource: string) => resourceServerInfo(resource),
      },
    },
    // The workload a jwt-bearer token was issued for, as its principal (`extra`, set by the grant).
    extraTokenClaims: (_ctx: unknown, token: { extra?: Record<string, unknown> }) => token.extra ?? {},
    ttl: { ClientCredentials: 300 },
  };
}

const TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
const ID_JAG = 'urn:ietf:params:oauth:token-type:id-jag';

/** A company's identity provider: it signs users' ID tokens and exchanges them for ID-JAGs (RFC 8693). */
export interface IdentityProvider {
  readonly issuer: string;
  readonly tokenEndpoint: string;
  /** The enterprise app's (public) client here. */
  readonly clientId: string;
  /** Its signing key, which authorization servers trust for ID-JAGs. */
  readonly publicJwk: JWK;
  /** A user's ID token for the app. */
  idToken(sub: string): Promise<string>;
  /** Lets the app get ID-JAGs for `audience` (an authorization server), as `clientId` there. */
  allow(audience: string, clientId: string): void;
  /** Token exchanges answered. */
  readonly exchanges: number;
  close(): Promise<void>;
}

/**
 * The identity provider of enterprise-managed authorization: oidc-provider with the token exchange grant
 * registered (`registerGrantType`): an ID token of its own for the app, for an ID-JAG (`typ: oauth-id-jag+jwt`)
 * naming the audience it was asked for (an authorization server the company allows), the resource, the user
 * and the app's client there.
 */
export async function startIdentityProvider(): Promise<IdentityProvider> {
  const http: Server = createServer();
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  const appClient = 'crm-agent-at-acme';
  const key = await generateKeyPair('ES256', { extractable: true });
  const publicJwk = await exportJWK(key.publicKey);
  const oidcKey = await generateKeyPair('RS256', { extractable: true });
  const allowed = new Map<string, string>();
  let exchanges = 0;
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: appClient,
        token_endpoint_auth_method: 'none',
        grant_types: [TOKEN_EXCHANGE],
        response_types: [],
        redirect_uris: [],
      },
    ],
    jwks: { keys: [{ ...(await exportJWK(oidcKey.privateKey)), kid: 'idp-1', alg: 'RS256', use: 'sig' }] },
    features: { devInteractions: { enabled: false } },
  }) as unknown as GrantRegistry & Provider;
  provider.registerGrantType(
    TOKEN_EXCHANGE,
    async (ctx: GrantContext) => {
      exchanges++;
      const { params } = ctx.oidc;
      const refuse = (error: string, description: string) => {
        ctx.status = 400;
        ctx.body = { error, error_description: description };
      };
      if (params.requested_token_type !== ID_JAG || params.subject_token_type !== ID_TOKEN_TYPE)
        return refuse('invalid_request', 'only an ID token for an ID-JAG');
      const audience = String(params.audience);
      const clientThere = allowed.get(audience);
      if (!clientThere) return refuse('invalid_target', `no ID-JAG for ${audience}`);
      let sub: string;
      try {
        const { payload } = await jwtVerify(String(params.subject_token), key.publicKey, {
          issuer,
          audience: appClient,
        });
        sub = String(payload.sub);
      } catch (err) {
        return refuse('invalid_grant', (err as Error).message);
      }
      ctx.body = {
        access_token: await new SignJWT({ client_id: clientThere, resource: params.resource })
          .setProtectedHeader({ alg: 'ES256', typ: 'oauth-id-jag+jwt' })
          .setIssuer(issuer)
          .setSubject(sub)
          .setAudience(audience)
          .setIssuedAt()
          .setExpirationTime('5m')
          .setJti(randomUUID())
          .sign(key.privateKey),
        issued_token_type: ID_JAG,
        token_type: 'N_A',
        expires_in: 300,
      };
    },
    ['subject_token', 'subject_token_type', 'requested_token_type', 'audience', 'resource', 'scope'],
  );
  http.on('request', (req, res) => provider.callback()(req, res));
  return {
    issuer,
    tokenEndpoint: `${issuer}/token`,
    clientId: appClient,
    publicJwk,
    idToken: (sub) =>
      new SignJWT({})
        .setProtectedHeader({ alg: 'ES256' })
        .setIssuer(issuer)
        .setSubject(sub)
        .setAudience(appClient)
        .setIssuedAt()
        .setExpirationTime('1h')
        .sign(key.privateKey),
    allow: (audience, clientId) => {
      allowed.set(audience, clientId);
    },
    get exchanges() {
      return exchanges;
    },
    close: () =>
      new Promise<void>((resolve) => {
        http.closeAllConnections();
        http.close(() => resolve());
      }),
  };
}

const ID_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:id_token';
