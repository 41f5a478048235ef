/**
 * DPoP end to end: mcplite's client (`connect(url, { oauth: { grant, dpop } })`) signs in at a real authorization
 * server (oidc-provider issuing DPoP-bound JWTs, a nonce required at its token endpoint;
 * test/support/oidc-identity-issuer.ts) by the client credentials and the jwt-bearer grants, and calls a tool on
 * a server guarded by mcplite's own `oauthResourceServer({ dpop })`, in `required` and `allowed` mode, both asking
 * for a DPoP nonce, over MCP Streamable HTTP (the stateless wire and the official SDK's handshake transport),
 * MCP-lite HTTP, and gRPC (mcplite.MCPLite and MCP over gRPC). Each first request is refused with
 * `use_dpop_nonce` by the resource server and sent once more with its nonce, without a new grant. (The client has
 * no WebSocket transport; the resource server's WebSocket checks are in oauth-dpop-resource-server.test.ts.)
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, memoryOAuthStore, type OAuthOptions } from '../../src/client/index.js';
import type { Authenticate } from '../../src/core/auth.js';
import { ChallengedRefusal } from '../../src/core/oauth/challenge.js';
import { createServer, defineTool, oauthResourceServer } from '../../src/index.js';
import { type RunningServer, serve } from '../../src/node.js';
import { freePort } from '../support/free-port.js';
import {
  DPOP_MACHINE,
  type IdentityIssuer,
  JWT_BEARER,
  startIdentityIssuer,
  WORKLOAD_CLIENT,
} from '../support/oidc-identity-issuer.js';

const CLIENT_CREDENTIALS = 'client_credentials';

const whoami = defineTool({
  name: 'whoami',
  description: 'Says who called',
  handler: (_args, ctx) => ({
    clientId: ctx.principal?.clientId ?? null,
    workload: ctx.principal?.claims?.workload ?? null,
  }),
});

/** One protected server, with what its resource server refused, by error. */
interface Guarded {
  running: RunningServer;
  origin: string;
  resource: string;
  refusals: Record<string, number>;
}

let issuer: IdentityIssuer;
const servers = {} as Record<'required' | 'allowed', Guarded>;

/** The resource server's hook, each `ChallengedRefusal` counted by its error (the hook itself unchanged). */
function counting(hook: Authenticate, refusals: Record<string, number>): Authenticate {
  const counted = async (credentials: Parameters<Authenticate>[0]) => {
    try {
      return await hook(credentials);
    } catch (err) {
      const error = err instanceof ChallengedRefusal ? err.detail.error : 'other';
      refusals[error] = (refusals[error] ?? 0) + 1;
      throw err;
    }
  };
  return Object.assign(counted, { protectedResource: hook.protectedResource });
}

async function guarded(mode: 'required' | 'allowed'): Promise<Guarded> {
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const resource = `${origin}/mcp`;
  const refusals: Record<string, number> = {};
  const hook = oauthResourceServer({ issuer: issuer.issuer, resource, dpop: { mode, nonce: true } });
  const running = await serve(createServer({ name: mode, tools: [whoami], auth: counting(hook, refusals) }), {
    port,
    host: '127.0.0.1',
    grpcPort: 0,
  });
  return { running, origin, resource, refusals };
}

beforeAll(async () => {
  issuer = await startIdentityIssuer();
  servers.required = await guarded('required');
  servers.allowed = await guarded('allowed');
}, 120_000);

afterAll(async () => {
  await Promise.all(Object.values(servers).map((s) => s.running.close(500)));
  await issuer?.close();
});

/** The wires the client speaks to a server: the target and the options that pick the binding. */
const WIRES: Array<[string, (s: Guarded) => { target: string; mcpRevision?: 'stateless' | 'handshake' }]> = [
  ['MCP Streamable HTTP (stateless)', (s) => ({ target: s.resource })],
  ['MCP Streamable HTTP (official SDK transport)', (s) => ({ target: s.resource, mcpRevision: 'handshake' })],
  ['MCP-lite HTTP', (s) => ({ target: `${s.origin}/mcp-lite/v1/` })],
  ['gRPC mcplite.MCPLite', (s) => ({ target: `grpc://${s.running.grpc?.address}` })],
  ['MCP over gRPC', (s) => ({ target: `grpc://${s.running.grpc?.address}/model_context_protocol.Mcp` })],
];

/** A grant's options, and who the resource server says the caller is. */
const GRANTS: Array<[string, (sub: string) => { oauth: OAuthOptions; caller: object }]> = [
  [
    CLIENT_CREDENTIALS,
    () => ({
      oauth: { grant: 'client_credentials', ...DPOP_MACHINE, issuer: issuer.issuer },
      caller: { clientId: DPOP_MACHINE.clientId },
    }),
  ],
  [
    JWT_BEARER,
    (sub) => ({
      oauth: {
        grant: 'jwt-bearer',
        clientId: WORKLOAD_CLIENT,
        assertion: () => issuer.workloadToken(sub),
      },
      caller: { clientId: WORKLOAD_CLIENT, workload: sub },
    }),
  ],
];

const CASES = (['required', 'allowed'] as const).flatMap((mode) =>
  WIRES.flatMap(([wire, targetOf]) =>
    GRANTS.map(([grant, grantOf]) => [mode, wire, grant, targetOf, grantOf] as const),
  ),
);

describe.each(CASES)('dpop %s, over %s, grant %s', (mode, wire, grant, targetOf, grantOf) => {
  it('signs in with a bound token, answers the resource server nonce once, and calls the tool as the caller', async () => {
    const server = servers[mode];
    const { target, mcpRevision } = targetOf(server);
    const sub = `spiffe://cluster/${mode}/${wire.replace(/\W+/g, '-')}`;
    const { oauth, caller } = grantOf(sub);
    const store = memoryOAuthStore();
    const granted = issuer.tokenRequests[grant] ?? 0;
    const nonces = server.refusals.use_dpop_nonce ?? 0;
    const others = Object.entries(server.refusals).filter(([e]) => e !== 'use_dpop_nonce');
    const client = await connect(target, {
      ...(mcpRevision ? { mcpRevision } : {}),
      oauth: { ...oauth, store, dpop: true, resource: server.resource },
    });
    try {
      expect(await client.call('whoami', {})).toMatchObject({ type: 'answer', value: caller });
    } finally {
      await client.close();
    }
    // The key the token is bound to is the one the store keeps (the grant's tokens too, jwt-bearer's).
    expect((await store.load(server.resource))?.dpopKey?.d).toBeTypeOf('string');
    // The resource server asked for its nonce; the client answered it with the same token: no refusal of any
    // other kind, and no grant beyond the authorization server's own nonce round (use_dpop_nonce, then the token).
    expect(server.refusals.use_dpop_nonce ?? 0).toBeGreaterThan(nonces);
    expect(Object.entries(server.refusals).filter(([e]) => e !== 'use_dpop_nonce')).toEqual(others);
    expect(issuer.tokenRequests[grant]).toBe(granted + 2);
  }, 60_000);
});

describe('what the client uses where DPoP is not asked for', () => {
  it('takes DPoP up by itself from a resource that requires it (its metadata, its DPoP-only challenge)', async () => {
    const server = servers.required;
    const store = memoryOAuthStore();
    const client = await connect(server.resource, {
      oauth: { grant: 'client_credentials', ...DPOP_MACHINE, issuer: issuer.issuer, store },
    });
    try {
      expect(await client.call('whoami', {})).toMatchObject({
        type: 'answer',
        value: { clientId: DPOP_MACHINE.clientId },
      });
    } finally {
      await client.close();
    }
    expect((await store.load(server.resource))?.dpopKey?.d).toBeTypeOf('string');
  }, 60_000);

  it('with dpop: false, a Bearer token: taken where DPoP is allowed, refused where it is required', async () => {
    const oauth = {
      grant: 'client_credentials' as const,
      ...DPOP_MACHINE,
      issuer: issuer.issuer,
      dpop: false,
    };
    const store = memoryOAuthStore();
    const allowed = await connect(servers.allowed.resource, { oauth: { ...oauth, store } });
    try {
      expect(await allowed.call('whoami', {})).toMatchObject({
        type: 'answer',
        value: { clientId: DPOP_MACHINE.clientId },
      });
    } finally {
      await allowed.close();
    }
    expect((await store.load(servers.allowed.resource))?.dpopKey).toBeUndefined();
    const refused = await connect(servers.required.resource, { oauth }).catch((e: unknown) => e);
    expect(refused).toMatchObject({ code: 'unauthenticated' });
  }, 60_000);
});
