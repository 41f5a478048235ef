/**
 * The official MCP SDK client's own OAuth against an mcplite server protected by `oauthResourceServer`, with a real
 * authorization server (oidc-provider): the client starts with nothing but the server's URL and discovers everything
 * from the 401 (the challenge's resource_metadata, the protected resource metadata, the issuer's metadata), for
 * the client credentials grant (ClientCredentialsProvider) and for the authorization-code flow with PKCE, dynamic
 * registration and the login and consent the test submits as a user would.
 */

import { type OAuthClientProvider, UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { ClientCredentialsProvider } from '@modelcontextprotocol/sdk/client/auth-extensions.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, defineTool, oauthResourceServer } from '../../src/index.js';
import { type RunningServer, serve } from '../../src/node.js';
import { signInAndConsent } from '../support/browser-user.js';
import { freePort } from '../support/free-port.js';
import { MACHINE_CLIENT, type OidcIssuer, startOidcIssuer } from '../support/oidc-issuer.js';

const whoami = defineTool({
  name: 'whoami',
  description: 'Says who called',
  handler: (_args, ctx) => ({ sub: ctx.principal?.sub ?? null, scopes: ctx.principal?.scopes ?? [] }),
});
const exportDocuments = defineTool({
  name: 'export_documents',
  description: 'Exports every document',
  auth: { scopes: ['documents:export'] },
  handler: () => ({ exported: 3 }),
});

let issuer: OidcIssuer;
let running: RunningServer;
let mcpUrl: URL;

beforeAll(async () => {
  issuer = await startOidcIssuer();
  const port = await freePort();
  mcpUrl = new URL(`http://127.0.0.1:${port}/mcp`);
  const server = createServer({
    tools: [whoami, exportDocuments],
    auth: oauthResourceServer({ issuer: issuer.issuer, resource: mcpUrl.href, scopes: ['tools:read'] }),
  });
  running = await serve(server, { port, host: '127.0.0.1' });
}, 120_000);

afterAll(async () => {
  await running?.close(500);
  await issuer?.close();
});

async function connected(authProvider: OAuthClientProvider): Promise<Client> {
  const client = new Client({ name: 'oauth-e2e', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(mcpUrl, { authProvider }));
  return client;
}

describe('the MCP SDK client, client credentials', () => {
  it('discovers the issuer from the 401, gets a token for this resource and calls', async () => {
    const provider = new ClientCredentialsProvider({
      clientId: MACHINE_CLIENT.clientId,
      clientSecret: MACHINE_CLIENT.clientSecret,
      expectedIssuer: issuer.issuer,
      scope: 'tools:read',
    });
    const client = await connected(provider);
    try {
      const result = await client.callTool({ name: 'whoami', arguments: {} });
      expect(result.structuredContent).toEqual({ sub: MACHINE_CLIENT.clientId, scopes: ['tools:read'] });
      // The token the SDK got names this server as its audience (RFC 8707), from the metadata it discovered.
      const token = provider.tokens()!.access_token;
      expect(JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()).aud).toBe(mcpUrl.href);
      // A scope its client may not have: the step-up challenge reaches the SDK, which retries once and gives up.
      await expect(client.callTool({ name: 'export_documents', arguments: {} })).rejects.toThrow(/403/);
    } finally {
      await client.close();
    }
  });

  it('calls a scoped tool with a token that grants its scope', async () => {
    const provider = new ClientCredentialsProvider({
      clientId: MACHINE_CLIENT.clientId,
      clientSecret: MACHINE_CLIENT.clientSecret,
      expectedIssuer: issuer.issuer,
      scope: 'tools:read documents:export',
    });
    const client = await connected(provider);
    try {
      const result = await client.callTool({ name: 'export_documents', arguments: {} });
      expect(result.structuredContent).toEqual({ exported: 3 });
    } finally {
      await client.close();
    }
  });
});

/** A browser-less OAuth client as an app would write it: keeps what the SDK hands it, remembers the redirect. */
class AppProvider implements OAuthClientProvider {
  authorizationUrl: URL | undefined;
  private info: OAuthClientInformationMixed | undefined;
  private saved: OAuthTokens | undefined;
  private verifier = '';
  readonly redirectUrl = 'http://127.0.0.1:1/callback';
  readonly clientMetadata: OAuthClientMetadata = {
    client_name: 'mcplite e2e app',
    redirect_uris: [this.redirectUrl],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
  };
  clientInformation() {
    return this.info;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.info = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
}

/** The code the sign-in's final redirect carries back to the app (the user played by `signInAndConsent`). */
async function codeAfterSignIn(authorizationUrl: URL, redirectUrl: string): Promise<string> {
  const landed = new URL(await signInAndConsent(authorizationUrl, redirectUrl));
  const code = landed.searchParams.get('code');
  if (!code) throw new Error(`no code in ${landed.href}`);
  return code;
}

describe('the MCP SDK client, authorization code with PKCE', () => {
  it('registers, sends the user to sign in and consent, trades the code and calls as the user', async () => {
    const provider = new AppProvider();
    const first = new Client({ name: 'oauth-e2e', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider });
    await expect(first.connect(transport)).rejects.toBeInstanceOf(UnauthorizedError);
    const authorizationUrl = provider.authorizationUrl!;
    // What the SDK learnt from the 401 alone: the issuer, PKCE S256 and this server as the resource.
    expect(authorizationUrl.origin).toBe(new URL(issuer.issuer).origin);
    expect(authorizationUrl.searchParams.get('code_challenge_method')).toBe('S256');
    expect(authorizationUrl.searchParams.get('resource')).toBe(mcpUrl.href);
    const code = await codeAfterSignIn(authorizationUrl, provider.redirectUrl);
    await transport.finishAuth(code);
    const client = await connected(provider);
    try {
      const who = await client.callTool({ name: 'whoami', arguments: {} });
      expect(who.structuredContent).toMatchObject({ sub: 'alice' });
      // The SDK asked for every scope the metadata lists, the scoped tool's among them.
      const exported = await client.callTool({ name: 'export_documents', arguments: {} });
      expect(exported.structuredContent).toEqual({ exported: 3 });
    } finally {
      await client.close();
    }
  });
});
