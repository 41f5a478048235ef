/**
 * `mcplite serve --oauth-issuer <url> (repeatable) --oauth-resource <uri> --oauth-introspection <url>`, as a child
 * process, against two real authorization servers (oidc-provider): the challenge and the metadata, JWTs of either
 * trusted issuer, an opaque token introspected with the resource server's credentials from the environment, and
 * the settings it refuses to start with. Neither a token nor the client secret reaches its output.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { children, run, start } from '../support/cli-process.js';
import { freePort } from '../support/free-port.js';
import {
  type OidcIssuer,
  OPAQUE_CLIENT,
  RESOURCE_SERVER_CLIENT,
  startOidcIssuer,
} from '../support/oidc-issuer.js';

let first: OidcIssuer;
let second: OidcIssuer;

beforeAll(async () => {
  [first, second] = await Promise.all([startOidcIssuer(), startOidcIssuer()]);
});
afterAll(async () => {
  await Promise.all([first?.close(), second?.close()]);
});
afterEach(() => {
  for (const child of children) child.kill('SIGKILL');
});

const introspectionEnv = {
  MCPLITE_OAUTH_CLIENT_ID: RESOURCE_SERVER_CLIENT.clientId,
  MCPLITE_OAUTH_CLIENT_SECRET: RESOURCE_SERVER_CLIENT.clientSecret,
};

describe('mcplite serve --oauth-*', { timeout: 60_000 }, () => {
  it('protects every binding with OAuth: challenge, metadata, JWTs of each issuer, opaque tokens', async () => {
    const port = await freePort();
    const origin = `http://127.0.0.1:${port}`;
    const resource = `${origin}/mcp`;
    const cli = await start(
      [
        '--demo',
        '--port',
        String(port),
        '--oauth-issuer',
        first.issuer,
        '--oauth-issuer',
        second.issuer,
        '--oauth-resource',
        resource,
        '--oauth-introspection',
        first.introspectionEndpoint,
      ],
      introspectionEnv,
    );
    const list = (token?: string) =>
      fetch(`${origin}/mcp-lite/v1/tools`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...(token ? { authorization: `Bearer ${token}` } : {}),
        },
        body: '{}',
      });
    const refused = await list();
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toBe(
      `Bearer resource_metadata="${origin}/.well-known/oauth-protected-resource/mcp"`,
    );
    const metadata = await (await fetch(`${origin}/.well-known/oauth-protected-resource/mcp`)).json();
    expect(metadata).toMatchObject({ resource, authorization_servers: [first.issuer, second.issuer] });

    const tokens = [
      await first.clientCredentialsToken({ resource, scope: 'tools:read' }),
      await second.clientCredentialsToken({ resource, scope: 'tools:read' }),
      await first.clientCredentialsToken({ resource, scope: 'tools:read', client: OPAQUE_CLIENT }),
    ];
    for (const token of tokens) expect((await list(token)).status).toBe(200);
    const elsewhere = await first.clientCredentialsToken({
      resource: 'https://elsewhere.example/',
      scope: 'tools:read',
    });
    expect((await list(elsewhere)).status).toBe(401);

    const output = cli.stdout() + cli.stderr();
    for (const secret of [...tokens, elsewhere, RESOURCE_SERVER_CLIENT.clientSecret]) {
      expect(output).not.toContain(secret);
    }
  });

  it('refuses to start without the introspection credentials, or without the resource', async () => {
    const noSecret = run([
      'serve',
      '--demo',
      '--port',
      '0',
      '--oauth-introspection',
      first.introspectionEndpoint,
      '--oauth-resource',
      'http://127.0.0.1/mcp',
    ]);
    expect(await noSecret.exited).toBe(2);
    expect(noSecret.stderr()).toMatch(/MCPLITE_OAUTH_CLIENT_ID and MCPLITE_OAUTH_CLIENT_SECRET/);
    const noResource = run(['serve', '--demo', '--port', '0', '--oauth-issuer', first.issuer]);
    expect(await noResource.exited).toBe(2);
    expect(noResource.stderr()).toMatch(/--oauth-resource/);
  });
});
