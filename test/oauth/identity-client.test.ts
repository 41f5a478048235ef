/**
 * The client's enterprise identity flows against a real authorization server (oidc-provider, DPoP on with a nonce
 * required at its token endpoint; test/support/oidc-identity-issuer.ts): the RFC 7523 jwt-bearer grant of a
 * workload (its assertion read at each grant, sent only to the authorization server its `aud` names) and
 * DPoP-bound tokens (RFC 9449) for it and for the client credentials grant. The protected mcplite server is
 * mcplite's own resource server with DPoP required (`oauthResourceServer({ dpop: 'required' })`: signature, `typ`,
 * the token's `cnf.jkt`, `ath`, `htm`, `htu`, a fresh `jti`); each proof it accepted is recorded, since the client's
 * proofs are what is under test here. The enterprise grant runs against oidc-provider as the identity provider too
 * (token exchange for an ID-JAG). A resource server's nonces, on every wire, are in oauth-dpop-e2e.test.ts.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { calculateJwkThumbprint, decodeJwt, decodeProtectedHeader, type JWK } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { oauthFlagOptions } from '../../src/cli/oauth-options.js';
import {
  connect,
  McpLiteError,
  memoryOAuthStore,
  type OAuthRecord,
  type OAuthStore,
} from '../../src/client/index.js';
import type { Authenticate, Credentials } from '../../src/core/auth.js';
import { type EntryOAuth, parseGatewayConfig } from '../../src/gateway/config.js';
import { createServer, defineTool, oauthResourceServer } from '../../src/index.js';
import { type RunningServer, serve } from '../../src/node.js';
import { run } from '../support/cli-process.js';
import { freePort } from '../support/free-port.js';
import { startGateway } from '../support/gateway-in-process.js';
import {
  DPOP_MACHINE,
  ENTERPRISE_CLIENT,
  type IdentityIssuer,
  type IdentityProvider,
  JWT_BEARER,
  startIdentityIssuer,
  startIdentityProvider,
  WORKLOAD_CLIENT,
} from '../support/oidc-identity-issuer.js';

/** The caller: the workload (or user) a jwt-bearer token was issued for, else the client. */
const whoami = defineTool({
  name: 'whoami',
  description: 'Says who called',
  handler: (_args, ctx) => ({ id: ctx.principal?.claims?.workload ?? ctx.principal?.clientId ?? null }),
});

/** A proof the server accepted: its key's thumbprint, method, URL and jti. */
interface SeenProof {
  jkt: string;
  htm: string;
  htu: string;
  jti: string;
}

let issuer: IdentityIssuer;
let running: RunningServer;
let resource: string;
const proofs: SeenProof[] = [];

/**
 * mcplite's resource server with DPoP required (RFC 9449 §4.3, §7.1: a JWT of the issuer for this resource, as
 * `Authorization: DPoP`, with a proof signed by the key it is bound to, for this request, carrying the token's hash
 * and a jti not seen before), recording each proof it accepted.
 */
function dpopResourceServer(): Authenticate {
  const hook = oauthResourceServer({
    issuer: issuer.issuer,
    resource,
    scopes: ['tools:read'],
    dpop: 'required',
  });
  const recorded = async (credentials: Credentials) => {
    const principal = await hook(credentials);
    const proof = credentials.headers.dpop ?? '';
    const claims = decodeJwt(proof);
    proofs.push({
      jkt: await calculateJwkThumbprint(decodeProtectedHeader(proof).jwk as JWK),
      htm: String(claims.htm),
      htu: String(claims.htu),
      jti: String(claims.jti),
    });
    return principal;
  };
  return Object.assign(recorded, { protectedResource: hook.protectedResource });
}

beforeAll(async () => {
  issuer = await startIdentityIssuer();
  const port = await freePort();
  resource = `http://127.0.0.1:${port}/mcp`;
  running = await serve(createServer({ tools: [whoami], auth: dpopResourceServer() }), {
    port,
    host: '127.0.0.1',
    grpcPort: 0,
  });
}, 120_000);

afterAll(async () => {
  await running?.close(500);
  await issuer?.close();
});

/** The thumbprint of the DPoP key a store keeps for the server. */
async function storedKeyThumbprint(store: OAuthStore): Promise<string> {
  const key = (await store.load(resource))?.dpopKey;
  expect(key?.d).toBeTypeOf('string');
  const { kty, crv, x, y } = key as JWK;
  return calculateJwkThumbprint({ kty, crv, x, y } as JWK);
}

describe('jwt-bearer (workload identity) with DPoP, against oidc-provider', () => {
  it('trades the workload token for a DPoP-bound token, kept with its key, and proves possession on each request', async () => {
    const store = memoryOAuthStore();
    let reads = 0;
    const assertion = async () => {
      reads++;
      return issuer.workloadToken('spiffe://cluster/ns/jobs/sa/indexer');
    };
    const granted = issuer.tokenRequests[JWT_BEARER] ?? 0;
    const challenged = issuer.nonceChallenges;
    const client = await connect(resource, {
      oauth: { grant: 'jwt-bearer', clientId: WORKLOAD_CLIENT, assertion, store, dpop: true },
    });
    try {
      const first = await client.call('whoami', {});
      const second = await client.call('whoami', {});
      expect(first).toMatchObject({ type: 'answer', value: { id: 'spiffe://cluster/ns/jobs/sa/indexer' } });
      expect(second).toMatchObject({ type: 'answer' });
    } finally {
      await client.close();
    }
    expect(reads).toBe(1);
    // The authorization server asked for its nonce, and the grant went through on the retry.
    expect(issuer.nonceChallenges).toBeGreaterThan(challenged);
    expect(issuer.tokenRequests[JWT_BEARER]).toBe(granted + 2);
    const record = await store.load(resource);
    expect(record?.tokens?.token_type).toMatch(/^dpop$/i);
    const jkt = await storedKeyThumbprint(store);
    const mine = proofs.filter((p) => p.jkt === jkt);
    expect(mine.length).toBeGreaterThanOrEqual(2);
    expect(new Set(mine.map((p) => p.jti)).size).toBe(mine.length);
    expect(mine.every((p) => p.htu === resource)).toBe(true);

    // Another client over the same store: the tokens and their key are reused, no new grant.
    const again = await connect(resource, {
      oauth: { grant: 'jwt-bearer', clientId: WORKLOAD_CLIENT, assertion, store, dpop: true },
    });
    try {
      expect(await again.call('whoami', {})).toMatchObject({ type: 'answer' });
    } finally {
      await again.close();
    }
    expect(reads).toBe(1);
    expect(issuer.tokenRequests[JWT_BEARER]).toBe(granted + 2);
    expect(proofs.filter((p) => p.jkt === jkt).length).toBeGreaterThan(mine.length);
  }, 60_000);

  it('reads the assertion again at each grant', async () => {
    let reads = 0;
    const assertion = () => {
      reads++;
      return issuer.workloadToken(`job-${reads}`);
    };
    for (let i = 0; i < 2; i++) {
      const client = await connect(resource, {
        oauth: {
          grant: 'jwt-bearer',
          clientId: WORKLOAD_CLIENT,
          assertion,
          store: memoryOAuthStore(),
          dpop: true,
        },
      });
      try {
        expect(await client.call('whoami', {})).toMatchObject({
          type: 'answer',
          value: { id: `job-${i + 1}` },
        });
      } finally {
        await client.close();
      }
    }
    expect(reads).toBe(2);
  }, 60_000);

  it('proves possession on gRPC too: the proof names the RPC at the authority the channel addresses', async () => {
    const store = memoryOAuthStore();
    const assertion = () => issuer.workloadToken('grpc-job');
    const target = `grpc://${running.grpc?.address}`;
    const client = await connect(target, {
      oauth: { grant: 'jwt-bearer', clientId: WORKLOAD_CLIENT, assertion, store, dpop: true, resource },
    });
    try {
      expect(await client.call('whoami', {})).toMatchObject({ type: 'answer', value: { id: 'grpc-job' } });
    } finally {
      await client.close();
    }
    const jkt = await storedKeyThumbprint(store);
    expect(proofs.filter((p) => p.jkt === jkt).map((p) => p.htu)).toContain(
      `http://${running.grpc?.address}/mcplite.MCPLite/CallTool`,
    );
  }, 60_000);

  it('replaces a damaged stored key instead of failing', async () => {
    const store = memoryOAuthStore();
    await store.save(resource, { dpopKey: { kty: 'EC', crv: 'P-256', x: 'AAAA', y: 'AAAA', d: 'AAAA' } });
    const assertion = () => issuer.workloadToken('job-after-damage');
    const client = await connect(resource, {
      oauth: { grant: 'jwt-bearer', clientId: WORKLOAD_CLIENT, assertion, store, dpop: true },
    });
    try {
      expect(await client.call('whoami', {})).toMatchObject({
        type: 'answer',
        value: { id: 'job-after-damage' },
      });
    } finally {
      await client.close();
    }
    expect((await store.load(resource))?.dpopKey?.x).not.toBe('AAAA');
  }, 60_000);

  it('sends an assertion for another authorization server nowhere', async () => {
    const granted = issuer.tokenRequests[JWT_BEARER] ?? 0;
    const elsewhere = await issuer.workloadToken('job', 'https://elsewhere.test');
    const err = await connect(resource, {
      oauth: { grant: 'jwt-bearer', clientId: WORKLOAD_CLIENT, assertion: elsewhere },
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(McpLiteError);
    expect((err as McpLiteError).data?.reason).toBe('issuer_not_configured');
    expect(issuer.tokenRequests[JWT_BEARER] ?? 0).toBe(granted);
  }, 60_000);
});

describe('enterprise-managed authorization, against oidc-provider as identity provider and authorization server', () => {
  let idp: IdentityProvider;
  beforeAll(async () => {
    idp = await startIdentityProvider();
    issuer.trustIdentityProvider(idp);
  });
  afterAll(() => idp?.close());

  const enterprise = (idToken: () => Promise<string>, idpIssuer = idp.issuer) => ({
    grant: 'enterprise' as const,
    ...ENTERPRISE_CLIENT,
    issuer: issuer.issuer,
    dpop: true,
    idp: { issuer: idpIssuer, tokenEndpoint: idp.tokenEndpoint, clientId: idp.clientId, idToken },
  });

  it("exchanges the user's ID token for an ID-JAG, then trades it for a DPoP-bound token as the user", async () => {
    idp.allow(issuer.issuer, ENTERPRISE_CLIENT.clientId);
    const exchanges = idp.exchanges;
    const client = await connect(resource, { oauth: enterprise(() => idp.idToken('alice@acme.example')) });
    try {
      expect(await client.call('whoami', {})).toMatchObject({
        type: 'answer',
        value: { id: 'alice@acme.example' },
      });
    } finally {
      await client.close();
    }
    expect(idp.exchanges).toBe(exchanges + 1);
  }, 60_000);

  it('stops where the identity provider refuses, or answers as another issuer: nothing reaches the authorization server', async () => {
    const granted = issuer.tokenRequests[JWT_BEARER] ?? 0;
    const bad = await connect(resource, {
      oauth: enterprise(() => idp.idToken('mallory'), 'https://other-idp.example'),
    }).catch((e: unknown) => e);
    expect((bad as McpLiteError).data?.reason).toBe('issuer_mismatch');
    const forged = await connect(resource, {
      oauth: enterprise(async () => `${await idp.idToken('mallory')}x`),
    }).catch((e: unknown) => e);
    expect((forged as McpLiteError).data).toMatchObject({ reason: 'oauth_failed', error: 'invalid_grant' });
    expect(issuer.tokenRequests[JWT_BEARER] ?? 0).toBe(granted);
  }, 60_000);
});

describe('client credentials with DPoP, against oidc-provider', () => {
  it('binds the token to the key the store keeps', async () => {
    const store = memoryOAuthStore();
    const client = await connect(resource, {
      oauth: { grant: 'client_credentials', ...DPOP_MACHINE, issuer: issuer.issuer, store, dpop: true },
    });
    try {
      expect(await client.call('whoami', {})).toMatchObject({
        type: 'answer',
        value: { id: DPOP_MACHINE.clientId },
      });
    } finally {
      await client.close();
    }
    const jkt = await storedKeyThumbprint(store);
    expect(proofs.some((p) => p.jkt === jkt)).toBe(true);
  }, 60_000);

  it('goes without DPoP when told to (dpop: false): the DPoP-only resource server refuses the bearer token', async () => {
    const err = await connect(resource, {
      oauth: { grant: 'client_credentials', ...DPOP_MACHINE, issuer: issuer.issuer, dpop: false },
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(McpLiteError);
    expect((err as McpLiteError).code).toBe('unauthenticated');
  }, 60_000);
});

describe('the gateway and the CLI take the same grants', () => {
  it('a gateway entry signs in with "grant": "jwt-bearer", its assertion from the environment', async () => {
    const token = await issuer.workloadToken('gateway-workload');
    const gateway = await startGateway(
      {
        mcpServers: {
          wl: {
            url: resource,
            oauth: { grant: 'jwt-bearer', clientId: WORKLOAD_CLIENT, assertionEnv: 'WL_TOKEN', dpop: true },
          },
        },
      },
      { env: { WL_TOKEN: token } },
    );
    try {
      const tool = (await gateway.client.listTools()).find((t) => t.name.endsWith('whoami'));
      expect(tool).toBeDefined();
      expect(await gateway.client.call(tool?.name ?? '', {})).toMatchObject({
        type: 'answer',
        value: { id: 'gateway-workload' },
      });
    } finally {
      await gateway.close();
    }
  }, 60_000);

  it('the gateway config names each credential by its variable, and checks what goes with which grant', () => {
    const [entry] = parseGatewayConfig(
      JSON.stringify({
        mcpServers: {
          corp: {
            url: 'https://mcp.example.com/mcp',
            oauth: {
              grant: 'enterprise',
              clientId: 'app',
              dpop: true,
              idp: {
                issuer: 'https://idp.example.com',
                tokenEndpoint: 'https://idp.example.com/token',
                clientId: 'app-at-idp',
                idTokenEnv: 'ID_TOKEN',
              },
            },
          },
        },
      }),
      { ID_TOKEN: 'id-token-value' },
    );
    const oauth = (entry as { oauth?: EntryOAuth }).oauth;
    expect(oauth).toMatchObject({
      grant: 'enterprise',
      clientId: 'app',
      dpop: true,
      idp: { clientId: 'app-at-idp' },
    });
    expect(typeof oauth?.idp?.idToken === 'function' ? oauth.idp.idToken() : undefined).toBe(
      'id-token-value',
    );
    const refused = (oauth: object, env: NodeJS.ProcessEnv = {}) => {
      try {
        parseGatewayConfig(JSON.stringify({ mcpServers: { x: { url: 'https://x/mcp', oauth } } }), env);
      } catch (err) {
        return (err as Error).message;
      }
      throw new Error('accepted');
    };
    expect(refused({ grant: 'jwt-bearer', clientId: 'a', assertionEnv: 'NOPE' })).toContain('NOPE');
    expect(refused({ grant: 'jwt-bearer', assertionEnv: 'A' }, { A: 'never-shown' })).toMatch(/clientId/);
    expect(refused({ clientId: 'a', assertionEnv: 'A' }, { A: 'x' })).toMatch(
      /goes with "grant": "jwt-bearer"/,
    );
    expect(refused({ grant: 'enterprise', clientId: 'a' })).toMatch(/needs "idp"/);
    expect(refused({ grant: 'password', clientId: 'a' })).toMatch(/grant must be one of/);
    expect(refused({ dpop: 'yes' })).toMatch(/dpop must be true or false/);
  });

  it('mcplite login --grant jwt-bearer --dpop keeps the bound tokens and their key; the next command proves with it', async () => {
    const config = mkdtempSync(join(tmpdir(), 'mcplite-wl-'));
    try {
      const token = await issuer.workloadToken('cli-workload');
      const args = ['login', resource, '--grant', 'jwt-bearer', '--client-id', WORKLOAD_CLIENT, '--dpop'];
      const login = run(args, { XDG_CONFIG_HOME: config, MCPLITE_OAUTH_ASSERTION: token });
      expect(await login.exited, login.stderr()).toBe(0);
      expect(login.stdout()).toContain('Signed in to');
      const dir = join(config, 'mcplite', 'oauth');
      const [file] = readdirSync(dir);
      const { record } = JSON.parse(readFileSync(join(dir, file ?? ''), 'utf8')) as { record: OAuthRecord };
      expect(record.tokens?.token_type).toMatch(/^dpop$/i);
      expect(record.dpopKey?.d).toBeTypeOf('string');
      // No grant flags, no assertion: the kept token and its key.
      const call = run(['call', resource, 'whoami', '--timeout', '20000'], { XDG_CONFIG_HOME: config });
      expect(await call.exited, call.stderr()).toBe(0);
      expect(call.stdout()).toContain('cli-workload');
    } finally {
      rmSync(config, { recursive: true, force: true });
    }
  }, 90_000);

  it('mcplite --grant reads the assertion and the ID token from the environment, at each grant', () => {
    const saved = { ...process.env };
    try {
      process.env.MCPLITE_OAUTH_ASSERTION = 'first';
      const options = oauthFlagOptions({ grant: 'jwt-bearer', clientId: 'wl', dpop: true });
      expect(options).toMatchObject({ grant: 'jwt-bearer', clientId: 'wl', dpop: true });
      process.env.MCPLITE_OAUTH_ASSERTION = 'rotated';
      expect(typeof options.assertion === 'function' ? options.assertion() : undefined).toBe('rotated');
      process.env.MCPLITE_IDP_ID_TOKEN = 'id-token';
      const enterprise = oauthFlagOptions({
        grant: 'enterprise',
        clientId: 'app',
        idpIssuer: 'https://idp.example.com',
        idpTokenEndpoint: 'https://idp.example.com/token',
        idpClientId: 'app-at-idp',
      });
      expect(enterprise.idp).toMatchObject({ issuer: 'https://idp.example.com', clientId: 'app-at-idp' });
      expect(() => oauthFlagOptions({ grant: 'enterprise', clientId: 'app' })).toThrow(/--idp-issuer/);
      delete process.env.MCPLITE_OAUTH_ASSERTION;
      expect(() => oauthFlagOptions({ grant: 'jwt-bearer', clientId: 'wl' })).toThrow(
        /MCPLITE_OAUTH_ASSERTION/,
      );
      expect(() => oauthFlagOptions({ grant: 'jwt-bearer' })).toThrow(/--client-id/);
    } finally {
      process.env = saved;
    }
  });
});
