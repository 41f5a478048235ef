/**
 * `mcplite serve --oauth-dpop allowed|required` (and `--oauth-dpop-nonce`), as a child process, against a real
 * authorization server (oidc-provider issuing DPoP-bound tokens): the challenge and metadata name DPoP, a bound
 * token is taken with its proof and refused as Bearer, `required` refuses unbound tokens, the nonce is asked for,
 * and the settings it refuses to start with.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { children, run, start } from '../support/cli-process.js';
import { boundToken, dpopHeaders, dpopKey } from '../support/dpop.js';
import { freePort } from '../support/free-port.js';
import { type OidcIssuer, startOidcIssuer } from '../support/oidc-issuer.js';

let issuer: OidcIssuer;

beforeAll(async () => {
  issuer = await startOidcIssuer();
});
afterAll(async () => {
  await issuer?.close();
});
afterEach(() => {
  for (const child of children) child.kill('SIGKILL');
});

/** `tools/list` over MCP-lite HTTP with the given headers. */
function list(origin: string, headers: Record<string, string>): Promise<Response> {
  return fetch(`${origin}/mcp-lite/v1/tools`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: '{}',
  });
}

describe('mcplite serve --oauth-dpop', { timeout: 60_000 }, () => {
  for (const mode of ['allowed', 'required'] as const) {
    it(`${mode}: takes a bound token with its proof, never as Bearer`, async () => {
      const port = await freePort();
      const origin = `http://127.0.0.1:${port}`;
      const resource = `${origin}/mcp`;
      const args = ['--demo', '--port', String(port), '--oauth-issuer', issuer.issuer];
      await start([...args, '--oauth-resource', resource, '--oauth-dpop', mode]);
      const refused = await list(origin, {});
      expect(refused.status).toBe(401);
      const challenge = refused.headers.get('www-authenticate')!;
      expect(challenge).toContain('DPoP algs="');
      expect(challenge.startsWith('Bearer ')).toBe(mode === 'allowed');
      const metadata = await (await fetch(`${origin}/.well-known/oauth-protected-resource/mcp`)).json();
      expect(metadata).toMatchObject({ dpop_bound_access_tokens_required: mode === 'required' });

      const key = await dpopKey();
      const bound = await boundToken(issuer.issuer, key, { resource });
      const url = `${origin}/mcp-lite/v1/tools`;
      expect((await list(origin, await dpopHeaders(key, bound, 'POST', url))).status).toBe(200);
      expect((await list(origin, { authorization: `Bearer ${bound}` })).status).toBe(401);
      const unbound = await issuer.clientCredentialsToken({ resource });
      const plain = await list(origin, { authorization: `Bearer ${unbound}` });
      expect(plain.status).toBe(mode === 'allowed' ? 200 : 401);
      await plain.body?.cancel();
    });
  }

  it('--oauth-dpop-nonce: asks for the nonce, then takes it', async () => {
    const port = await freePort();
    const origin = `http://127.0.0.1:${port}`;
    const resource = `${origin}/mcp`;
    await start(
      [
        '--demo',
        '--port',
        String(port),
        '--oauth-issuer',
        issuer.issuer,
        '--oauth-resource',
        resource,
      ].concat(['--oauth-dpop', 'required', '--oauth-dpop-nonce']),
      { MCPLITE_DPOP_NONCE_SECRET: 'a-secret-shared-by-every-instance' },
    );
    const key = await dpopKey();
    const bound = await boundToken(issuer.issuer, key, { resource });
    const url = `${origin}/mcp-lite/v1/tools`;
    const asked = await list(origin, await dpopHeaders(key, bound, 'POST', url));
    expect(asked.status).toBe(401);
    expect(asked.headers.get('www-authenticate')).toMatch(/^DPoP error="use_dpop_nonce"/);
    const nonce = asked.headers.get('dpop-nonce')!;
    expect((await list(origin, await dpopHeaders(key, bound, 'POST', url, { nonce }))).status).toBe(200);
  });

  it('refuses a mode it does not know, and DPoP without OAuth', async () => {
    const oauth = ['--oauth-issuer', issuer.issuer, '--oauth-resource', 'http://x/mcp'];
    const unknown = run(['serve', '--demo', ...oauth, '--oauth-dpop', 'maybe']);
    expect(await unknown.exited).not.toBe(0);
    expect(unknown.stderr()).toMatch(/allowed, required/);
    const alone = run(['serve', '--demo', '--oauth-dpop', 'required']);
    expect(await alone.exited).toBe(2);
    expect(alone.stderr()).toMatch(/--oauth-dpop goes with --oauth-issuer/);
  });
});
