/**
 * What the OAuth resource server reads from an authorization server is bounded while it arrives: a metadata
 * document, a key set or an introspection answer that never ends (a real HTTP server streaming it, test/support/
 * hostile-issuer.ts) costs a refused token, not the server's memory; the server stays up and the endless answer's
 * connection is closed after a bounded number of bytes.
 */
import { generateKeyPair, SignJWT } from 'jose';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { createServer, defineTool, oauthResourceServer } from '../../src/index.js';
import { type RunningServer, serve } from '../../src/node.js';
import { freePort } from '../support/free-port.js';
import { type HostileIssuer, startHostileIssuer } from '../support/hostile-issuer.js';
import * as probes from '../support/oauth-probes.js';

/** The bound is 256 KiB; what the sockets buffer on both sides of loopback comes on top, a few MB at most. */
const READ_AT_MOST = 32 * 1024 * 1024;

const whoami = defineTool({
  name: 'whoami',
  description: 'Says who called',
  handler: (_args, ctx) => ({ clientId: ctx.principal?.clientId ?? null }),
});

interface Setup {
  hostile: HostileIssuer;
  running: RunningServer;
  resource: string;
  probe: probes.Probe;
}
const started: Setup[] = [];

async function start(): Promise<Setup> {
  const hostile = await startHostileIssuer();
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const resource = `${origin}/mcp`;
  const server = createServer({
    name: 'docs',
    tools: [whoami],
    logger: pino({ level: 'silent' }),
    auth: oauthResourceServer({
      issuer: hostile.issuer,
      resource,
      introspection: {
        endpoint: hostile.introspectionEndpoint,
        clientId: 'rs',
        clientSecret: 'rs-secret',
      },
    }),
  });
  const running = await serve(server, { port, host: '127.0.0.1' });
  const setup = { hostile, running, resource, probe: probes.mcpLiteHttp(origin) };
  started.push(setup);
  return setup;
}

afterEach(async () => {
  for (const { hostile, running } of started.splice(0)) {
    await running.close(500);
    await hostile.close();
  }
});

async function jwtFor({ hostile, resource }: Setup): Promise<string> {
  const { privateKey } = await generateKeyPair('RS256');
  return new SignJWT({ client_id: 'machine', scope: 'tools:read' })
    .setProtectedHeader({ alg: 'RS256', typ: 'at+jwt', kid: 'k1' })
    .setIssuer(hostile.issuer)
    .setAudience(resource)
    .setIssuedAt()
    .setExpirationTime('5m')
    .sign(privateKey);
}

const active = (setup: Setup) => () => ({
  active: true,
  client_id: 'machine',
  aud: setup.resource,
  iss: setup.hostile.issuer,
});

describe('documents an authorization server sends without end', () => {
  it('refuses an opaque token whose introspection answer never ends, and closes that connection', async () => {
    const setup = await start();
    setup.hostile.endless.add('introspection');
    const closed = setup.hostile.endlessClosed();
    expect((await setup.probe('opaque-token-0123456789', 'whoami')).status).toBe(401);
    expect(await closed).toBeLessThan(READ_AT_MOST);
    setup.hostile.endless.clear();
    setup.hostile.introspect = active(setup);
    const r = await setup.probe('opaque-token-abcdefghij', 'whoami');
    expect(r).toMatchObject({ status: 200, answer: { clientId: 'machine' } });
  });

  it('refuses a JWT whose issuer serves a key set that never ends, and closes that connection', async () => {
    const setup = await start();
    setup.hostile.endless.add('jwks');
    const closed = setup.hostile.endlessClosed();
    expect((await setup.probe(await jwtFor(setup), 'whoami')).status).toBe(401);
    expect(await closed).toBeLessThan(READ_AT_MOST);
    expect(setup.hostile.requests.jwks).toBe(1);
    // Still serving: an introspected token is taken.
    setup.hostile.introspect = active(setup);
    expect((await setup.probe('opaque-token-abcdefghij', 'whoami')).status).toBe(200);
  });

  it('refuses a JWT whose issuer serves metadata that never ends, closing every such connection', async () => {
    const setup = await start();
    setup.hostile.endless.add('metadata');
    expect((await setup.probe(await jwtFor(setup), 'whoami')).status).toBe(401);
    // Each well-known location is tried, each cut at the bound.
    const tried = setup.hostile.requests.metadata;
    expect(tried).toBeGreaterThan(0);
    for (let i = 0; i < tried; i++) expect(await setup.hostile.endlessClosed()).toBeLessThan(READ_AT_MOST);
    expect(setup.hostile.requests.jwks).toBe(0);
    setup.hostile.introspect = active(setup);
    expect((await setup.probe('opaque-token-abcdefghij', 'whoami')).status).toBe(200);
  });
});
