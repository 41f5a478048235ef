/**
 * DPoP on the resource server (RFC 9449) against a real authorization server (oidc-provider with DPoP on, issuing
 * DPoP-bound JWT access tokens by the client credentials grant): a bound token is taken with a valid proof and
 * refused without one (as a plain Bearer token, or with no proof), with a replayed jti, a wrong htu or htm, a
 * proof of another key, on MCP, MCP-lite HTTP, Webtools, both WebSockets and gRPC; `required` refuses unbound
 * tokens; nonces; an opaque bound token's key from introspection; the challenges and the metadata.
 */
import { Metadata } from '@grpc/grpc-js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, defineTool, oauthResourceServer } from '../../src/index.js';
import { type RunningServer, serve } from '../../src/node.js';
import { boundToken, type DpopKey, dpopHeaders, dpopKey, proof } from '../support/dpop.js';
import * as probes from '../support/dpop-probes.js';
import { freePort } from '../support/free-port.js';
import { makeClient, toolRequest, unary } from '../support/grpc-client.js';
import {
  type OidcIssuer,
  OPAQUE_CLIENT,
  RESOURCE_SERVER_CLIENT,
  startOidcIssuer,
} from '../support/oidc-issuer.js';

const whoami = defineTool({
  name: 'whoami',
  description: 'Says who called',
  handler: (_args, ctx) => ({ sub: ctx.principal?.sub ?? null, clientId: ctx.principal?.clientId ?? null }),
});

const ALGS = 'RS256 RS384 RS512 PS256 PS384 PS512 ES256 ES384 ES512 EdDSA';

let issuer: OidcIssuer;
let allowed: RunningServer;
let origin: string;
let resource: string;
let required: RunningServer;
let requiredOrigin: string;
let requiredResource: string;
let key: DpopKey;
let otherKey: DpopKey;

beforeAll(async () => {
  issuer = await startOidcIssuer();
  [key, otherKey] = await Promise.all([dpopKey(), dpopKey()]);
  const [port, requiredPort] = await Promise.all([freePort(), freePort()]);
  origin = `http://127.0.0.1:${port}`;
  resource = `${origin}/mcp`;
  allowed = await serve(
    createServer({
      name: 'allowed',
      tools: [whoami],
      auth: oauthResourceServer({ issuer: issuer.issuer, resource, dpop: 'allowed' }),
    }),
    { port, host: '127.0.0.1', grpcPort: 0 },
  );
  requiredOrigin = `http://127.0.0.1:${requiredPort}`;
  requiredResource = `${requiredOrigin}/mcp`;
  required = await serve(
    createServer({
      name: 'required',
      tools: [whoami],
      auth: oauthResourceServer({
        issuer: issuer.issuer,
        resource: requiredResource,
        dpop: { mode: 'required', nonce: true },
        introspection: { endpoint: issuer.introspectionEndpoint, ...RESOURCE_SERVER_CLIENT },
      }),
    }),
    { port: requiredPort, host: '127.0.0.1', grpcPort: 0 },
  );
}, 120_000);

afterAll(async () => {
  await Promise.all([allowed?.close(500), required?.close(500)]);
  await issuer?.close();
});

const BINDINGS: Array<[string, () => probes.DpopProbe]> = [
  ['MCP Streamable HTTP', () => probes.mcpInitialize(origin)],
  ['MCP-lite HTTP', () => probes.mcpLiteHttp(origin)],
  ['Webtools', () => probes.webtools(origin, 'allowed')],
  [
    'MCP-lite WebSocket',
    () => probes.webSocket(`${origin.replace('http', 'ws')}/mcp-lite/v1/ws`, 'mcp-lite'),
  ],
  ['MCP WebSocket', () => probes.webSocket(`${origin.replace('http', 'ws')}/mcp`, 'mcp')],
  ['gRPC', () => probes.grpc(allowed.grpc!.address)],
];

describe.each(BINDINGS)('DPoP on %s', (binding, makeProbe) => {
  let probe: probes.DpopProbe;
  let token: string;
  beforeAll(async () => {
    probe = makeProbe();
    token = await boundToken(issuer.issuer, key, { resource });
  });

  it('takes a bound token with a valid proof, as its client', async () => {
    const r = await probe.send(await dpopHeaders(key, token, probe.htm, probe.htu));
    expect(r.status).toBe(200);
    if (binding !== 'MCP Streamable HTTP') expect(JSON.stringify(r.answer)).toContain('"clientId":"machine"');
  });

  it('refuses the bound token as a plain Bearer token, and under DPoP without a proof', async () => {
    const asBearer = await probe.send({ authorization: `Bearer ${token}` });
    expect(asBearer).toMatchObject({ status: 401 });
    expect(asBearer.challenge).toContain('Bearer error="invalid_token"');
    expect(asBearer.challenge).toContain(`DPoP algs="${ALGS}"`);
    const noProof = await probe.send({ authorization: `DPoP ${token}` });
    expect(noProof.status).toBe(401);
    expect(noProof.challenge).toContain('DPoP error="invalid_dpop_proof"');
  });

  it('refuses a replayed proof', async () => {
    const headers = await dpopHeaders(key, token, probe.htm, probe.htu);
    expect((await probe.send(headers)).status).toBe(200);
    const replayed = await probe.send(headers);
    expect(replayed.status).toBe(401);
    expect(replayed.challenge).toMatch(/DPoP error="invalid_dpop_proof", error_description="[^"]*\(jti\)"/);
  });

  it('refuses a proof for another URL or another method', async () => {
    const elsewhere = new URL(probe.htu);
    elsewhere.pathname = '/elsewhere';
    const wrongUrl = await probe.send(await dpopHeaders(key, token, probe.htm, elsewhere.href));
    expect(wrongUrl.status).toBe(401);
    expect(wrongUrl.challenge).toContain('(htu)');
    const wrongMethod = await probe.send(
      await dpopHeaders(key, token, probe.htm === 'GET' ? 'POST' : 'GET', probe.htu),
    );
    expect(wrongMethod.status).toBe(401);
    expect(wrongMethod.challenge).toContain('(htm)');
    // The query is no part of htu: a proof naming one is for the same resource.
    const withQuery = await probe.send(await dpopHeaders(key, token, probe.htm, `${probe.htu}?x=1#f`));
    expect(withQuery.status).toBe(200);
  });

  it("refuses a proof of another key than the token's", async () => {
    const r = await probe.send(await dpopHeaders(otherKey, token, probe.htm, probe.htu));
    expect(r.status).toBe(401);
    expect(r.challenge).toContain('DPoP error="invalid_token"');
  });

  it('takes an unbound token as Bearer in the allowed mode', async () => {
    const bearer = await issuer.clientCredentialsToken({ resource });
    expect((await probe.send({ authorization: `Bearer ${bearer}` })).status).toBe(200);
    // ...but never under the DPoP scheme: it is bound to no key.
    const asDpop = await probe.send(await dpopHeaders(key, bearer, probe.htm, probe.htu));
    expect(asDpop.status).toBe(401);
  });
});

describe('the proof itself', () => {
  const probe = () => probes.mcpLiteHttp(origin);
  let token: string;
  beforeAll(async () => {
    token = await boundToken(issuer.issuer, key, { resource });
  });

  it('refuses each malformed proof', async () => {
    const p = probe();
    const now = Math.floor(Date.now() / 1000);
    const { d: _d, ...publicOnly } = { ...key.publicJwk, d: undefined };
    const privateJwk = { ...publicOnly, d: 'AAAA' };
    const cases: Record<string, Partial<Parameters<typeof proof>[1]>> = {
      'another typ': { header: { typ: 'jwt' } },
      'a private jwk': { header: { jwk: privateJwk } },
      'an old iat': { iat: now - 600 },
      'a future iat': { iat: now + 600 },
      'another access token (ath)': { accessToken: `${token}x` },
    };
    for (const [why, extra] of Object.entries(cases)) {
      const headers = {
        authorization: `DPoP ${token}`,
        dpop: await proof(key, { htm: p.htm, htu: p.htu, accessToken: token, ...extra }),
      };
      const r = await p.send(headers);
      expect({ why, status: r.status, error: r.challenge?.match(/DPoP error="([^"]+)"/)?.[1] }).toEqual({
        why,
        status: 401,
        error: 'invalid_dpop_proof',
      });
    }
    const twoProofs = await p.send({
      authorization: `DPoP ${token}`,
      dpop: `${await proof(key, { htm: p.htm, htu: p.htu, accessToken: token })}, x.y.z`,
    });
    expect(twoProofs.status).toBe(401);
  });

  it('refuses a bound token minted for another resource, whatever its proof', async () => {
    const p = probe();
    const elsewhere = await boundToken(issuer.issuer, key, { resource: 'https://elsewhere.example/mcp' });
    const r = await p.send(await dpopHeaders(key, elsewhere, p.htm, p.htu));
    expect(r.status).toBe(401);
    expect(r.challenge).toContain(
      'DPoP error="invalid_token", error_description="the access token is not valid here"',
    );
  });

  it('refuses two dpop metadata entries on gRPC, the first valid', async () => {
    const p = probes.grpc(allowed.grpc!.address);
    const metadata = new Metadata();
    metadata.set('authorization', `DPoP ${token}`);
    metadata.add('dpop', await proof(key, { htm: p.htm, htu: p.htu, accessToken: token }));
    metadata.add('dpop', await proof(key, { htm: p.htm, htu: p.htu, accessToken: token }));
    const client = makeClient(allowed.grpc!.address, 'full');
    const { error } = await unary(client, 'CallTool', toolRequest('whoami', {}), { metadata });
    client.close();
    expect(error?.code).toBe(16);
  });

  it('takes the official MCP SDK client through a fetch that adds a proof to each request', async () => {
    const sdkFetch: typeof fetch = async (input, init) => {
      const url = new URL(input instanceof Request ? input.url : input.toString());
      const method = init?.method ?? 'GET';
      const headers = new Headers(init?.headers);
      for (const [name, value] of Object.entries(await dpopHeaders(key, token, method, url.href))) {
        headers.set(name, value);
      }
      return fetch(input, { ...init, headers });
    };
    const client = new Client({ name: 'dpop-sdk', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(resource), { fetch: sdkFetch }));
    try {
      const result = await client.callTool({ name: 'whoami', arguments: {} });
      expect(result.structuredContent).toEqual({ sub: 'machine', clientId: 'machine' });
    } finally {
      await client.close();
    }
  });
});

describe('DPoP required, with nonces and introspection', () => {
  const BOUND: Array<[string, () => probes.DpopProbe]> = [
    ['MCP-lite HTTP', () => probes.mcpLiteHttp(requiredOrigin)],
    ['MCP Streamable HTTP', () => probes.mcpInitialize(requiredOrigin)],
    [
      'MCP-lite WebSocket',
      () => probes.webSocket(`${requiredOrigin.replace('http', 'ws')}/mcp-lite/v1/ws`, 'mcp-lite'),
    ],
    ['gRPC', () => probes.grpc(required.grpc!.address)],
  ];

  it.each(BOUND)('asks %s for the nonce, then takes the proof that has it', async (_binding, makeProbe) => {
    const probe = makeProbe();
    const token = await boundToken(issuer.issuer, key, { resource: requiredResource });
    const first = await probe.send(await dpopHeaders(key, token, probe.htm, probe.htu));
    expect(first.status).toBe(401);
    expect(first.challenge).toMatch(/^DPoP error="use_dpop_nonce", /);
    expect(first.nonce).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const second = await probe.send(
      await dpopHeaders(key, token, probe.htm, probe.htu, { nonce: first.nonce! }),
    );
    expect(second.status).toBe(200);
    const stale = await probe.send(
      await dpopHeaders(key, token, probe.htm, probe.htu, { nonce: 'not-a-nonce' }),
    );
    expect(stale.challenge).toContain('use_dpop_nonce');
  });

  it.each(BOUND)(
    'refuses an unbound token on %s, naming only the DPoP scheme',
    async (_binding, makeProbe) => {
      const probe = makeProbe();
      const bearer = await issuer.clientCredentialsToken({ resource: requiredResource });
      const r = await probe.send({ authorization: `Bearer ${bearer}` });
      expect(r.status).toBe(401);
      expect(r.challenge).toMatch(
        /^DPoP error="invalid_token", error_description="[^"]+", algs="[^"]+", resource_metadata="/,
      );
      const none = await probe.send({});
      expect(none.challenge).toBe(
        `DPoP algs="${ALGS}", resource_metadata="${requiredOrigin}/.well-known/oauth-protected-resource/mcp"`,
      );
    },
  );

  it("reads an opaque token's binding from the introspection answer", async () => {
    const probe = probes.mcpLiteHttp(requiredOrigin);
    const opaque = await boundToken(issuer.issuer, key, {
      resource: requiredResource,
      client: OPAQUE_CLIENT,
    });
    expect(opaque.split('.')).toHaveLength(1);
    const ask = await probe.send(await dpopHeaders(key, opaque, probe.htm, probe.htu));
    const ok = await probe.send(await dpopHeaders(key, opaque, probe.htm, probe.htu, { nonce: ask.nonce! }));
    expect(ok.status).toBe(200);
    expect(JSON.stringify(ok.answer)).toContain('"clientId":"opaque-machine"');
    const other = await probe.send(
      await dpopHeaders(otherKey, opaque, probe.htm, probe.htu, { nonce: ask.nonce! }),
    );
    expect(other.status).toBe(401);
    expect((await probe.send({ authorization: `Bearer ${opaque}` })).status).toBe(401);
  });

  it('publishes the DPoP algorithms and the requirement in the metadata', async () => {
    const res = await fetch(`${requiredOrigin}/.well-known/oauth-protected-resource/mcp`);
    expect(await res.json()).toMatchObject({
      dpop_signing_alg_values_supported: ALGS.split(' '),
      dpop_bound_access_tokens_required: true,
    });
  });
});

describe('the replay cache, bounded per caller', () => {
  it("answers a caller past its bound with 429, and another caller's proofs are still taken", async () => {
    const port = await freePort();
    const small = `http://127.0.0.1:${port}`;
    const running = await serve(
      createServer({
        name: 'small',
        tools: [whoami],
        auth: oauthResourceServer({
          issuer: issuer.issuer,
          resource: `${small}/mcp`,
          dpop: { mode: 'allowed', maxReplayEntriesPerCaller: 2 },
          introspection: { endpoint: issuer.introspectionEndpoint, ...RESOURCE_SERVER_CLIENT },
        }),
      }),
      { port, host: '127.0.0.1' },
    );
    try {
      const probe = probes.mcpLiteHttp(small);
      const machine = await boundToken(issuer.issuer, key, { resource: `${small}/mcp` });
      const other = await boundToken(issuer.issuer, otherKey, {
        resource: `${small}/mcp`,
        client: OPAQUE_CLIENT,
      });
      const send = (k: DpopKey, t: string) => dpopHeaders(k, t, probe.htm, probe.htu).then(probe.send);
      expect((await send(key, machine)).status).toBe(200);
      expect((await send(key, machine)).status).toBe(200);
      expect((await send(key, machine)).status).toBe(429);
      expect((await send(otherKey, other)).status).toBe(200);
    } finally {
      await running.close(500);
    }
  });
});
