/**
 * OAuth over gRPC (issue 25): a server serving MCP-lite gRPC and MCP over HTTP behind one `oauthResourceServer`,
 * with a real authorization server (oidc-provider). gRPC has no HTTP of its own to sign in through, so the client
 * names the server's HTTP resource (`oauth.resource`, `mcplite call --oauth-resource`): the challenge the gRPC
 * error carries starts the sign-in, the tokens are kept under the HTTP URL (one `mcplite login` serves both
 * wires), and a refused token is refreshed through that resource's authorization server without the user.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { connect, McpLiteError, memoryOAuthStore, type OAuthOptions } from '../../src/client/index.js';
import { createServer, defineTool, oauthResourceServer } from '../../src/index.js';
import { type RunningServer, serve } from '../../src/node.js';
import { signInAndConsent } from '../support/browser-user.js';
import { children, outputMatch, run } from '../support/cli-process.js';
import { freePort } from '../support/free-port.js';
import { type OidcIssuer, startOidcIssuer } from '../support/oidc-issuer.js';

const whoami = defineTool({
  name: 'whoami',
  description: 'Says who called',
  handler: (_args, ctx) => ({ sub: ctx.principal?.sub ?? null }),
});

const REDIRECT = 'http://127.0.0.1:1/callback';
let issuer: OidcIssuer;
let running: RunningServer;
let mcp: string;
let grpc: string;
let config: string;

beforeAll(async () => {
  issuer = await startOidcIssuer();
  const port = await freePort();
  mcp = `http://127.0.0.1:${port}/mcp`;
  running = await serve(
    createServer({
      tools: [whoami],
      auth: oauthResourceServer({ issuer: issuer.issuer, resource: mcp, scopes: ['tools:read'] }),
    }),
    { port, host: '127.0.0.1', grpcPort: 0 },
  );
  grpc = `grpc://${running.grpc!.address}`;
  config = await mkdtemp(join(tmpdir(), 'mcplite-oauth-grpc-'));
}, 120_000);

afterAll(async () => {
  await running?.close(500);
  await issuer?.close();
  await rm(config, { recursive: true, force: true });
});

afterEach(() => {
  for (const child of children) child.kill('SIGKILL');
});

describe('OAuth for a gRPC target through the server’s HTTP resource', () => {
  it('signs in from the gRPC challenge, keeps the token under the HTTP URL, refreshes a refused one', async () => {
    const store = memoryOAuthStore();
    const shown: URL[] = [];
    const oauth: OAuthOptions = {
      resource: mcp,
      store,
      redirectUrl: REDIRECT,
      onAuthorizationUrl: async (url) => {
        shown.push(url);
        return signInAndConsent(url, REDIRECT);
      },
    };
    const client = await connect(grpc, { oauth });
    try {
      expect(client.binding).toBe('grpc');
      expect(await client.call('whoami')).toMatchObject({ type: 'answer', value: { sub: 'alice' } });
      expect(shown).toHaveLength(1);
      // The HTTP resource is what the token is for (RFC 8707), and where it is kept.
      expect(shown[0]!.searchParams.get('resource')).toBe(mcp);
      const signedIn = (await store.load(mcp))!;
      expect(signedIn.tokens?.refresh_token).toBeTruthy();
      expect(await store.load(`http://${running.grpc!.address}/`)).toBeUndefined();

      // The server refuses the access token (as an expired one): refreshed through the authorization server.
      await store.save(mcp, { ...signedIn, tokens: { ...signedIn.tokens!, access_token: 'expired' } });
      expect(await client.call('whoami')).toMatchObject({ type: 'answer', value: { sub: 'alice' } });
      expect(shown).toHaveLength(1);
      const refreshed = (await store.load(mcp))!.tokens!.access_token;
      expect(refreshed).not.toBe('expired');
      expect(refreshed).not.toBe(signedIn.tokens!.access_token);
    } finally {
      await client.close();
    }

    // The same token serves the HTTP wire: one sign-in for both.
    const overHttp = await connect(mcp, { oauth: { store, redirectUrl: REDIRECT } });
    try {
      expect(await overHttp.call('whoami')).toMatchObject({ type: 'answer', value: { sub: 'alice' } });
    } finally {
      await overHttp.close();
    }

    // And MCP over gRPC on the same port, with the same kept token.
    const overMcpGrpc = await connect(grpc, {
      binding: 'mcp-grpc',
      oauth: { resource: mcp, store, redirectUrl: REDIRECT },
    });
    try {
      expect(overMcpGrpc.binding).toBe('mcp-grpc');
      expect(await overMcpGrpc.call('whoami')).toMatchObject({ type: 'answer', value: { sub: 'alice' } });
    } finally {
      await overMcpGrpc.close();
    }

    // Without a user-agent step the refusal says where to sign in, as on HTTP.
    const headless = await connect(grpc, { oauth: { resource: mcp, redirectUrl: REDIRECT } });
    try {
      const err = (await headless.call('whoami').catch((e: unknown) => e)) as McpLiteError;
      expect(err).toBeInstanceOf(McpLiteError);
      expect(err.code).toBe('unauthenticated');
      expect(err.data?.reason).toBe('sign_in_required');
    } finally {
      await headless.close();
    }
  }, 60_000);

  it('mcplite call grpc://… --oauth-resource <url> uses the token of mcplite login <url>', async () => {
    const env = { XDG_CONFIG_HOME: config };
    const login = run(['login', mcp, '--no-browser'], env);
    const [, shown] = await outputMatch(login.stderr, /Sign in at:\n\s+(\S+)\n/);
    const authorizationUrl = new URL(shown!);
    const back = await signInAndConsent(authorizationUrl, authorizationUrl.searchParams.get('redirect_uri')!);
    expect((await fetch(back)).status).toBe(200);
    expect(await login.exited).toBe(0);

    const call = run(
      ['call', grpc, 'whoami', '--oauth-resource', mcp, '--no-browser', '--timeout', '20000'],
      env,
    );
    expect(await call.exited).toBe(0);
    expect(call.stdout()).toContain('alice');
    expect(call.stderr()).not.toContain('Sign in at');

    // Without the flag the gRPC address is taken for a resource of its own: the sign-in its challenge starts is
    // refused, since the resource's metadata names the HTTP URL (no token is got for a resource not asked for).
    const bare = run(['call', grpc, 'whoami', '--no-browser', '--timeout', '20000'], env);
    expect(await bare.exited).not.toBe(0);
    expect(bare.stderr()).toContain(`Protected resource ${mcp} does not match`);
  }, 90_000);
});
