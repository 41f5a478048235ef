/**
 * OAuth 2.1 resource server (issue 24) on every binding, against a real authorization server (oidc-provider,
 * test/support/oidc-issuer.ts): the challenge without a token, calls with a valid one, 401 for tokens of another
 * audience, from an untrusted issuer, expired, tampered, unsigned or HMAC-signed with the public key, the step-up
 * 403 for a missing scope, opaque tokens by introspection, key rotation, and the protected resource metadata.
 */
import { createHmac } from 'node:crypto';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, defineTool, oauthResourceServer, type Principal } from '../../src/index.js';
import { type RunningServer, serve } from '../../src/node.js';
import { freePort } from '../support/free-port.js';
import * as probes from '../support/oauth-probes.js';
import {
  type OidcIssuer,
  OPAQUE_CLIENT,
  RESOURCE_SERVER_CLIENT,
  startOidcIssuer,
} from '../support/oidc-issuer.js';

const whoami = defineTool({
  name: 'whoami',
  description: 'Says who called',
  handler: (_args, ctx) => {
    // The principal goes to the log whole: nothing of the token may be in it.
    ctx.log.info({ principal: ctx.principal }, 'whoami called');
    return whoIs(ctx.principal);
  },
});
const whoIs = (principal: Principal | undefined) => ({
  sub: principal?.sub ?? null,
  clientId: principal?.clientId ?? null,
  scopes: principal?.scopes ?? null,
});
const exportDocuments = defineTool({
  name: 'export_documents',
  description: 'Exports every document',
  auth: { scopes: ['documents:export'] },
  handler: () => ({ exported: 3 }),
});

let trusted: OidcIssuer;
let untrusted: OidcIssuer;
let running: RunningServer;
let origin: string;
let resource: string;
let metadataUrl: string;
const logLines: string[] = [];
const tokensSeen: string[] = [];

beforeAll(async () => {
  [trusted, untrusted] = await Promise.all([startOidcIssuer(), startOidcIssuer()]);
  const port = await freePort();
  origin = `http://127.0.0.1:${port}`;
  resource = `${origin}/mcp`;
  metadataUrl = `${origin}/.well-known/oauth-protected-resource/mcp`;
  const server = createServer({
    name: 'docs',
    tools: [whoami, exportDocuments],
    logger: pino({ level: 'trace' }, { write: (line: string) => logLines.push(line) }),
    auth: oauthResourceServer({
      issuer: trusted.issuer,
      resource,
      scopes: ['tools:read'],
      // A rotation is picked up at the next unknown key id, not half a minute later.
      jwksCooldownMs: 0,
      introspection: { endpoint: trusted.introspectionEndpoint, ...RESOURCE_SERVER_CLIENT },
    }),
  });
  running = await serve(server, { port, host: '127.0.0.1', grpcPort: 0 });
}, 120_000);

afterAll(async () => {
  await running?.close(500);
  await Promise.all([trusted?.close(), untrusted?.close()]);
});

async function token(scope: string, options: { resource?: string; from?: OidcIssuer } = {}): Promise<string> {
  const t = await (options.from ?? trusted).clientCredentialsToken({
    resource: options.resource ?? resource,
    scope,
  });
  tokensSeen.push(t);
  return t;
}

const b64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

/** Every way a token must be refused with 401, each made the way an attacker or a clock would make it. */
async function refusedTokens(): Promise<Record<string, string>> {
  const now = Math.floor(Date.now() / 1000);
  const claims = {
    iss: trusted.issuer,
    aud: resource,
    sub: 'machine',
    client_id: 'machine',
    scope: 'tools:read',
  };
  const valid = await token('tools:read');
  const [header, payload, signature] = valid.split('.') as [string, string, string];
  const forged = b64url({
    ...JSON.parse(Buffer.from(payload, 'base64url').toString()),
    scope: 'documents:export',
  });
  const hmacHeader = b64url({ alg: 'HS256', typ: 'at+jwt', kid: trusted.publicJwk().kid });
  const hmacBody = b64url({ ...claims, iat: now, exp: now + 300 });
  const hmacSignature = createHmac('sha256', JSON.stringify(trusted.publicJwk()))
    .update(`${hmacHeader}.${hmacBody}`)
    .digest('base64url');
  const refused: Record<string, string> = {
    'another audience': await token('tools:read', { resource: 'https://elsewhere.example/api' }),
    'an untrusted issuer': await token('tools:read', { from: untrusted }),
    expired: await trusted.sign({ ...claims, iat: now - 3600, exp: now - 600 }),
    'a tampered payload': `${header}.${forged}.${signature}`,
    'alg none': `${b64url({ alg: 'none', typ: 'at+jwt' })}.${b64url({ ...claims, iat: now, exp: now + 300 })}.`,
    'HMAC with the public key': `${hmacHeader}.${hmacBody}.${hmacSignature}`,
    'an unknown opaque token': 'opaque-but-never-issued-0123456789abcdef',
  };
  tokensSeen.push(...Object.values(refused));
  return refused;
}

const BINDINGS: Array<[string, () => probes.Probe]> = [
  ['MCP-lite HTTP', () => probes.mcpLiteHttp(origin)],
  ['MCP Streamable HTTP', () => probes.mcpStreamableHttp(origin)],
  ['Webtools', () => probes.webtools(origin, 'docs')],
  ['MCP legacy HTTP+SSE', () => probes.legacySse(origin)],
  [
    'MCP-lite WebSocket',
    () => probes.webSocket(`${origin.replace('http', 'ws')}/mcp-lite/v1/ws`, 'mcp-lite'),
  ],
  ['MCP WebSocket', () => probes.webSocket(`${origin.replace('http', 'ws')}/mcp`, 'mcp')],
  ['gRPC', () => probes.grpc(running.grpc!.address)],
];

describe.each(BINDINGS)('OAuth on %s', (binding, makeProbe) => {
  const isGrpc = binding === 'gRPC';
  let probe: probes.Probe;
  beforeAll(() => {
    probe = makeProbe();
  });

  it('answers a call without a token with 401 and the challenge that names the metadata', async () => {
    const r = await probe(undefined, 'whoami');
    expect(r.status).toBe(401);
    expect(r.challenge).toBe(`Bearer resource_metadata="${metadataUrl}"`);
  });

  it('runs a call with a valid JWT access token, as its subject', async () => {
    const r = await probe(await token('tools:read'), 'whoami');
    expect(r).toMatchObject({ status: 200 });
    if (!isGrpc || r.answer) expect(JSON.stringify(r.answer)).toContain('"sub":"machine"');
  });

  it('refuses each bad token with 401 and error="invalid_token"', async () => {
    for (const [why, bad] of Object.entries(await refusedTokens())) {
      const r = await probe(bad, 'whoami');
      expect({ why, ...r }).toEqual({
        why,
        status: 401,
        challenge: `Bearer error="invalid_token", resource_metadata="${metadataUrl}"`,
      });
    }
  });

  it('answers a missing scope with the step-up 403 naming it; with the scope the call runs', async () => {
    const r = await probe(await token('tools:read'), 'export_documents');
    expect(r.status).toBe(403);
    expect(r.challenge).toBe(
      `Bearer error="insufficient_scope", scope="documents:export", resource_metadata="${metadataUrl}"`,
    );
    const stepped = await probe(await token('tools:read documents:export'), 'export_documents');
    expect(stepped.status).toBe(200);
    expect(JSON.stringify(stepped.answer)).toContain('"exported":3');
  });

  it('takes an opaque token by introspection, and refuses one minted for another resource', async () => {
    const opaque = await trusted.clientCredentialsToken({
      resource,
      scope: 'tools:read',
      client: OPAQUE_CLIENT,
    });
    const elsewhere = await trusted.clientCredentialsToken({
      resource: 'https://elsewhere.example/api',
      scope: 'tools:read',
      client: OPAQUE_CLIENT,
    });
    tokensSeen.push(opaque, elsewhere);
    expect(opaque.split('.')).toHaveLength(1);
    const r = await probe(opaque, 'whoami');
    expect(r.status).toBe(200);
    if (!isGrpc || r.answer) expect(JSON.stringify(r.answer)).toContain('"clientId":"opaque-machine"');
    expect((await probe(elsewhere, 'whoami')).status).toBe(401);
  });
});

describe('OAuth keys and metadata', () => {
  it("picks up a rotation of the issuer's signing key", async () => {
    const probe = probes.mcpLiteHttp(origin);
    expect((await probe(await token('tools:read'), 'whoami')).status).toBe(200);
    const fetches = trusted.jwksFetches;
    await trusted.rotateKeys();
    const rotated = await token('tools:read');
    expect(JSON.parse(Buffer.from(rotated.split('.')[0]!, 'base64url').toString()).kid).toBe(
      trusted.publicJwk().kid,
    );
    expect((await probe(rotated, 'whoami')).status).toBe(200);
    expect(trusted.jwksFetches).toBeGreaterThan(fetches);
  });

  it.each([
    '/.well-known/oauth-protected-resource',
    '/.well-known/oauth-protected-resource/mcp',
    '/.well-known/oauth-protected-resource/mcp-lite/v1',
    '/.well-known/oauth-protected-resource/webtools/docs',
  ])('serves the protected resource metadata at %s, without a token', async (path) => {
    const res = await fetch(`${origin}${path}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(await res.json()).toEqual({
      resource,
      authorization_servers: [trusted.issuer],
      // The resource's own scope and every scope a tool names.
      scopes_supported: ['tools:read', 'documents:export'],
      bearer_methods_supported: ['header'],
    });
  });

  it('lists a scoped tool to a caller without its scope, so the client can step up', async () => {
    const res = await fetch(`${origin}/mcp-lite/v1/tools`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${await token('tools:read')}` },
      body: '{}',
    });
    expect(res.status).toBe(200);
    const names = ((await res.json()) as { tools: Array<{ name: string }> }).tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['whoami', 'export_documents']));
  });

  it('logs nothing of any token it was given, accepted or refused', () => {
    expect(tokensSeen.length).toBeGreaterThan(50);
    expect(logLines.length).toBeGreaterThan(0);
    const log = logLines.join('\n');
    for (const token of tokensSeen) {
      expect(log).not.toContain(token);
      const signature = token.split('.')[2];
      if (signature) expect(log).not.toContain(signature);
    }
  });
});
