/**
 * The resource server's introspection is bounded, proved by the requests a real introspection endpoint counts
 * (test/support/hostile-issuer.ts): a refused token is asked about once while its answer is cached, callers with one
 * token share one request, and past the in-flight bound a new token is answered 503 at once instead of becoming one
 * more request. A token that names neither a subject nor a client (introspected, or a JWT from a real issuer) is
 * refused rather than made one principal shared by every such token.
 */
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, defineTool, oauthResourceServer } from '../../src/index.js';
import { type RunningServer, serve } from '../../src/node.js';
import { freePort } from '../support/free-port.js';
import { type HostileIssuer, startHostileIssuer } from '../support/hostile-issuer.js';
import * as probes from '../support/oauth-probes.js';
import { type OidcIssuer, startOidcIssuer } from '../support/oidc-issuer.js';

/** The default bound on introspections in flight. */
const MAX_IN_FLIGHT = 32;

const whoami = defineTool({
  name: 'whoami',
  description: 'Says who called',
  handler: (_args, ctx) => ({ id: ctx.principal?.id ?? null }),
});

let hostile: HostileIssuer;
let issuer: OidcIssuer;
let running: RunningServer;
let resource: string;
let probe: probes.Probe;
let serial = 0;
const bogus = () => `bogus-token-${process.pid}-${++serial}-0123456789`;

beforeAll(async () => {
  [hostile, issuer] = await Promise.all([startHostileIssuer(), startOidcIssuer()]);
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  resource = `${origin}/mcp`;
  const server = createServer({
    name: 'docs',
    tools: [whoami],
    logger: pino({ level: 'silent' }),
    auth: oauthResourceServer({
      issuer: issuer.issuer,
      resource,
      introspection: {
        endpoint: hostile.introspectionEndpoint,
        clientId: 'rs',
        clientSecret: 'rs-secret',
        // Long enough that no answer goes stale and no held request times out on a loaded machine: counts, not
        // clocks.
        negativeCacheTtlMs: 600_000,
        timeoutMs: 600_000,
      },
    }),
  });
  running = await serve(server, { port, host: '127.0.0.1' });
  probe = probes.mcpLiteHttp(origin);
}, 30_000);

afterAll(async () => {
  await running?.close(500);
  await Promise.all([hostile?.close(), issuer?.close()]);
});

describe('introspection bounds', () => {
  it('asks about a refused token once while its answer is cached, however often it comes back', async () => {
    hostile.introspect = () => ({ active: false });
    const token = bogus();
    const before = hostile.requests.introspection;
    for (let i = 0; i < 10; i++) expect((await probe(token, 'whoami')).status).toBe(401);
    const together = await Promise.all(Array.from({ length: 20 }, () => probe(token, 'whoami')));
    expect(together.map((r) => r.status)).toEqual(Array(20).fill(401));
    expect(hostile.requests.introspection - before).toBe(1);
    // Another token is another question.
    expect((await probe(bogus(), 'whoami')).status).toBe(401);
    expect(hostile.requests.introspection - before).toBe(2);
  });

  it('shares one request among callers with one token', async () => {
    let release!: () => void;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    hostile.introspect = async () => {
      await released;
      return { active: true, client_id: 'shared', aud: resource };
    };
    const before = hostile.requests.introspection;
    const token = bogus();
    const calls = Array.from({ length: 20 }, () => probe(token, 'whoami'));
    await hostile.requested('introspection', before + 1);
    release();
    expect((await Promise.all(calls)).map((r) => r.status)).toEqual(Array(20).fill(200));
    expect(hostile.requests.introspection - before).toBe(1);
  });

  it(`keeps at most ${MAX_IN_FLIGHT} introspections in flight: 200 new tokens at once, the rest get 503`, async () => {
    let release!: () => void;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    hostile.introspect = async () => {
      await released;
      return { active: false };
    };
    const before = hostile.requests.introspection;
    const tokens = Array.from({ length: 200 }, bogus);
    // The held requests are released once every other call is answered, or at once if one more request arrives.
    let answered = 0;
    void hostile.requested('introspection', before + MAX_IN_FLIGHT + 1).then(release);
    const results = await Promise.all(
      tokens.map((t) =>
        probe(t, 'whoami').then((r) => {
          if (++answered === tokens.length - MAX_IN_FLIGHT) release();
          return r;
        }),
      ),
    );
    expect(hostile.requests.introspection - before).toBe(MAX_IN_FLIGHT);
    const count = (status: number) => results.filter((r) => r.status === status).length;
    expect({ 401: count(401), 503: count(503) }).toEqual({
      401: MAX_IN_FLIGHT,
      503: tokens.length - MAX_IN_FLIGHT,
    });
    // The refused ones are cached: asking again costs the authorization server nothing.
    const refused = tokens.filter((_, i) => results[i]!.status === 401);
    for (const t of refused) expect((await probe(t, 'whoami')).status).toBe(401);
    expect(hostile.requests.introspection - before).toBe(MAX_IN_FLIGHT);
    // One turned away retries once the crowd is gone and gets its answer.
    expect((await probe(tokens[results.findIndex((r) => r.status === 503)]!, 'whoami')).status).toBe(401);
  });
});

describe('tokens that name no one', () => {
  it('refuses an introspected token with neither sub nor client_id, each such token alike', async () => {
    hostile.introspect = () => ({ active: true, aud: resource, scope: 'tools:read' });
    for (const token of [bogus(), bogus()]) expect((await probe(token, 'whoami')).status).toBe(401);
    hostile.introspect = () => ({ active: true, aud: resource, sub: 'alice' });
    expect(await probe(bogus(), 'whoami')).toMatchObject({ status: 200, answer: { id: '#alice' } });
  });

  it('refuses a JWT from a trusted issuer with neither sub nor client_id', async () => {
    const now = Math.floor(Date.now() / 1000);
    const claims = { iss: issuer.issuer, aud: resource, scope: 'tools:read', iat: now, exp: now + 300 };
    expect((await probe(await issuer.sign(claims), 'whoami')).status).toBe(401);
    const named = await issuer.sign({ ...claims, sub: 'bob' });
    expect(await probe(named, 'whoami')).toMatchObject({
      status: 200,
      answer: { id: `${issuer.issuer}#bob` },
    });
  });
});
