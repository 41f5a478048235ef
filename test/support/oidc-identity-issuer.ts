import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createLocalJWKSet, exportJWK, generateKeyPair, type JWK, jwtVerify, SignJWT } from 'jose';
import Provider, { type Configuration } from 'oidc-provider';
import { applyDpopBinding } from 'oidc-provider/lib/helpers/grant_common.js';
import validateDpop from 'oidc-provider/lib/helpers/validate_dpop.js';

/**
 * A real authorization server for the client's enterprise identity flows: oidc-provider on a loopback port with
 * DPoP (RFC 9449) on and a nonce required at the token endpoint, the client credentials grant, and the RFC 7523
 * jwt-bearer grant for a workload (registered through oidc-provider's `registerGrantType`: it verifies the
 * assertion against the workload platform's key, then issues a JWT access token for the asked resource, bound
 * to the proof's key with oidc-provider's own DPoP helpers). A workload platform signs assertions for it.
 */

export const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
/** A confidential machine client (client credentials). */
export const DPOP_MACHINE = { clientId: 'dpop-machine', clientSecret: 'dpop-machine-secret-0123456789' };
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

  const provider = new Provider(issuer, configuration(signingJwk)) as unknown as GrantRegistry & Provider;
  provider.registerGrantType(
    JWT_BEARER,
    async (ctx: GrantContext) => {
      const { params, client } = ctx.oidc;
      let sub: string;
      try {
        const { payload } = await jwtVerify(String(params.assertion), platformKeys, {
          issuer: PLATFORM,
          audience: issuer,
        });
        sub = String(payload.sub);
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
  oidc: { params: Record<string, string | undefined>; client: unknown };
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
