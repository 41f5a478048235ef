/**
 * The mcplite client's own OAuth (issue 25) against an mcplite server protected by `oauthResourceServer`, with a
 * real authorization server (oidc-provider): the client starts from the server's URL alone, signs the user in
 * (authorization code, PKCE, dynamic registration; the test submits the login and consent pages as the user),
 * refreshes an access token the server refuses, steps up on a 403 `insufficient_scope`, and reports what it
 * cannot fix as `unauthenticated` / `forbidden` with the challenge, on MCP (handshake and stateless), MCP-lite
 * HTTP and Webtools.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  connect,
  McpLiteError,
  memoryOAuthStore,
  type OAuthOptions,
  type OAuthStore,
} from '../../src/client/index.js';
import { createServer, defineTool, oauthResourceServer } from '../../src/index.js';
import { type RunningServer, serve } from '../../src/node.js';
import { signInAndConsent } from '../support/browser-user.js';
import { freePort } from '../support/free-port.js';
import { type OidcIssuer, startOidcIssuer } from '../support/oidc-issuer.js';

const whoami = defineTool({
  name: 'whoami',
  description: 'Says who called',
  handler: (_args, ctx) => ({ sub: ctx.principal?.sub ?? null }),
});
const exportDocuments = defineTool({
  name: 'export_documents',
  description: 'Exports every document',
  auth: { scopes: ['documents:export'] },
  handler: () => ({ exported: 3 }),
});

let issuer: OidcIssuer;
let running: RunningServer;
let origin: string;
/** The redirect URL the app registers; the test's "browser" stops there and hands the URL back. */
const REDIRECT = 'http://127.0.0.1:1/callback';

beforeAll(async () => {
  issuer = await startOidcIssuer();
  const port = await freePort();
  origin = `http://127.0.0.1:${port}`;
  const server = createServer({
    tools: [whoami, exportDocuments],
    // The whole origin is the resource, so one token serves /mcp and /mcp-lite/v1/ alike.
    auth: oauthResourceServer({ issuer: issuer.issuer, resource: `${origin}/`, scopes: ['tools:read'] }),
  });
  running = await serve(server, { port, host: '127.0.0.1', grpcPort: 0 });
}, 120_000);

afterAll(async () => {
  await running?.close(500);
  await issuer?.close();
});

/** OAuth options whose user-agent step is the test's browser user; `shown` collects each authorization URL. */
function asUser(store: OAuthStore, shown: URL[]): OAuthOptions {
  return {
    store,
    redirectUrl: REDIRECT,
    onAuthorizationUrl: async (url) => {
      shown.push(url);
      return signInAndConsent(url, REDIRECT);
    },
  };
}

describe('the mcplite client against a protected server (oidc-provider)', () => {
  it('signs in, then refreshes a refused token without the user, then steps up for a larger scope', async () => {
    const store = memoryOAuthStore();
    const shown: URL[] = [];
    const mcp = `${origin}/mcp`;
    const client = await connect(mcp, { oauth: asUser(store, shown), mcpRevision: 'handshake' });
    try {
      expect(await client.call('whoami')).toMatchObject({ type: 'answer', value: { sub: 'alice' } });
      expect(shown).toHaveLength(1);
      const asked = shown[0]!;
      // PKCE S256, this server as the resource (RFC 8707), a state, and a refresh token asked for.
      expect(asked.origin).toBe(new URL(issuer.issuer).origin);
      expect(asked.searchParams.get('code_challenge_method')).toBe('S256');
      expect(asked.searchParams.get('resource')).toBe(`${origin}/`);
      expect(asked.searchParams.get('state')).toBeTruthy();
      expect(asked.searchParams.get('scope')?.split(' ')).toContain('offline_access');
      const signedIn = (await store.load(new URL(mcp).href))!;
      expect(signedIn.tokens?.refresh_token).toBeTruthy();
      expect(signedIn.client?.client_id).toBeTruthy();

      // The server refuses the access token (as it would an expired one): the refresh token gets a new one.
      await store.save(new URL(mcp).href, {
        ...signedIn,
        tokens: { ...signedIn.tokens!, access_token: 'revoked' },
      });
      expect(await client.call('whoami')).toMatchObject({ type: 'answer', value: { sub: 'alice' } });
      expect(shown).toHaveLength(1);
      const refreshed = (await store.load(new URL(mcp).href))!.tokens!;
      expect(refreshed.access_token).not.toBe('revoked');
      expect(refreshed.access_token).not.toBe(signedIn.tokens!.access_token);
    } finally {
      await client.close();
    }

    // A token without documents:export (another principal's, so on a connection of its own: an MCP session is
    // bound to its principal), no refresh token to fall back on: the 403 challenge's scope is asked for in a new
    // sign-in, with the scopes asked before (SEP-2350), and the call then goes through.
    const narrow = await issuer.clientCredentialsToken({ resource: `${origin}/`, scope: 'tools:read' });
    await store.save(new URL(mcp).href, {
      ...(await store.load(new URL(mcp).href)),
      tokens: { access_token: narrow, token_type: 'Bearer' },
    });
    const stepping = await connect(mcp, { oauth: asUser(store, shown), mcpRevision: 'stateless' });
    try {
      expect(await stepping.call('export_documents')).toMatchObject({
        type: 'answer',
        value: { exported: 3 },
      });
      expect(shown).toHaveLength(2);
      expect(shown[1]!.searchParams.get('scope')?.split(' ')).toContain('documents:export');
    } finally {
      await stepping.close();
    }
  }, 60_000);

  it('signs in on MCP stateless, MCP-lite HTTP and Webtools, each URL once, through one store; gRPC carries it', async () => {
    const store = memoryOAuthStore();
    const shown: URL[] = [];
    const stateless = await connect(`${origin}/mcp`, {
      oauth: asUser(store, shown),
      mcpRevision: 'stateless',
    });
    try {
      expect(await stateless.call('whoami')).toMatchObject({ type: 'answer', value: { sub: 'alice' } });
    } finally {
      await stateless.close();
    }
    expect(shown).toHaveLength(1);
    const lite = await connect(`${origin}/mcp-lite/v1/`, { oauth: asUser(store, shown) });
    try {
      expect(await lite.call('whoami')).toMatchObject({ type: 'answer', value: { sub: 'alice' } });
    } finally {
      await lite.close();
    }
    // A store is per server URL: MCP-lite's URL signed in on its own, through the same authorization server.
    expect(shown).toHaveLength(2);
    const webtools = await connect(`${origin}/webtools/mcplite/`, { oauth: asUser(store, shown) });
    try {
      expect(webtools.binding).toBe('webtools');
      expect(await webtools.call('whoami')).toMatchObject({ type: 'answer', value: { sub: 'alice' } });
    } finally {
      await webtools.close();
    }
    expect(shown).toHaveLength(3);

    // gRPC has no challenge to sign in from: it sends the token the store holds for its host and port.
    const grpc = `grpc://${running.grpc!.address}`;
    const signedIn = (await store.load(`${origin}/webtools/mcplite/`))!;
    await store.save(`http://${running.grpc!.address}/`, signedIn);
    const overGrpc = await connect(grpc, { oauth: { store } });
    try {
      expect(await overGrpc.call('whoami')).toMatchObject({ type: 'answer', value: { sub: 'alice' } });
    } finally {
      await overGrpc.close();
    }
    const withoutToken = await connect(grpc, { oauth: {} });
    try {
      const err = (await withoutToken.call('whoami').catch((e: unknown) => e)) as McpLiteError;
      expect(err.code).toBe('unauthenticated');
    } finally {
      await withoutToken.close();
    }
  }, 60_000);

  it('says unauthenticated with where to sign in when it cannot, forbidden with the challenge scope', async () => {
    const mcp = `${origin}/mcp`;
    // No user-agent step: the error says where the user would sign in, and what the server asked.
    const headless = await connect(mcp, { oauth: { redirectUrl: REDIRECT }, mcpRevision: 'stateless' });
    try {
      const err = (await headless.call('whoami').catch((e: unknown) => e)) as McpLiteError;
      expect(err).toBeInstanceOf(McpLiteError);
      expect(err.code).toBe('unauthenticated');
      expect(err.data?.reason).toBe('sign_in_required');
      expect(String(err.data?.authorization_url)).toContain(new URL(issuer.issuer).origin);
    } finally {
      await headless.close();
    }

    // The user declines: the connection fails with what happened, asked once (the revision probe does not
    // hand the refusal to the handshake to ask again).
    const asked: URL[] = [];
    const declined = (await connect(mcp, {
      oauth: {
        redirectUrl: REDIRECT,
        onAuthorizationUrl: async (url) => {
          asked.push(url);
          return `${REDIRECT}?error=access_denied&error_description=No%20thanks&state=${url.searchParams.get('state')}`;
        },
      },
    }).catch((e: unknown) => e)) as McpLiteError;
    expect(declined).toBeInstanceOf(McpLiteError);
    expect(declined.code).toBe('unauthenticated');
    expect(declined.data?.reason).toBe('authorization_denied');
    expect(declined.message).toContain('No thanks');
    expect(asked).toHaveLength(1);

    // A token without the scope and no OAuth to step up with: forbidden, with the scope the server wants.
    const narrow = await issuer.clientCredentialsToken({ resource: `${origin}/`, scope: 'tools:read' });
    const limited = await connect(mcp, { token: narrow, mcpRevision: 'stateless' });
    try {
      const err = (await limited.call('export_documents').catch((e: unknown) => e)) as McpLiteError;
      expect(err).toBeInstanceOf(McpLiteError);
      expect(err.code).toBe('forbidden');
      expect(err.data?.challenge).toMatchObject({ error: 'insufficient_scope', scope: 'documents:export' });
    } finally {
      await limited.close();
    }
  }, 60_000);
});
