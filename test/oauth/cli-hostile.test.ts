/**
 * The CLI's sign-in against what should not get anywhere, as child processes with a real authorization server
 * (oidc-provider) and hostile parties on real sockets: a forged request to the loopback `/callback` is ignored
 * (the sign-in goes on), a registration the authorization server forgot is replaced instead of sending the user
 * to an error page, an authorization server without PKCE S256 is refused, `$MCPLITE_CLIENT_SECRET` goes only to
 * `--oauth-issuer` (and not at all without it), endless metadata fails the command, and a bearer-protected server
 * without OAuth metadata is said to need a token.
 */
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { bearerAuth, createServer, defineTool } from '../../src/index.js';
import { serve } from '../../src/node.js';
import { signInAndConsent } from '../support/browser-user.js';
import { children, outputMatch, run } from '../support/cli-process.js';
import {
  endlessDocument,
  type Listener,
  startProtectedResource,
  startRecordingIssuer,
} from '../support/hostile-oauth.js';
import { type ProtectedServer, startProtectedServer } from '../support/oauth-protected.js';

let target: ProtectedServer;
let config: string;
const opened: Listener[] = [];

beforeAll(async () => {
  target = await startProtectedServer();
  config = await mkdtemp(join(tmpdir(), 'mcplite-oauth-hostile-'));
}, 30_000);
afterAll(async () => {
  await target?.close();
  await rm(config, { recursive: true, force: true });
});
afterEach(async () => {
  for (const child of children) child.kill('SIGKILL');
  await Promise.all(opened.splice(0).map((l) => l.close()));
});

async function listener(start: Promise<Listener>): Promise<Listener> {
  const l = await start;
  opened.push(l);
  return l;
}

/** `mcplite login` until it shows its sign-in URL. */
async function loginShown(env: Record<string, string>) {
  const login = run(['login', target.mcp, '--no-browser'], env);
  const [, shown] = await outputMatch(login.stderr, /Sign in at:\n\s+(\S+)\n/);
  const url = new URL(shown!);
  return { login, url, redirect: url.searchParams.get('redirect_uri')! };
}

describe('mcplite login', () => {
  it('ignores a forged callback, keeps waiting, then signs in', { timeout: 90_000 }, async () => {
    const { login, url, redirect } = await loginShown({ XDG_CONFIG_HOME: config });
    for (const forged of [`${redirect}?code=x&state=forged`, `${redirect}?code=x`]) {
      const res = await fetch(forged);
      expect(res.status).toBe(400);
    }
    const page = await fetch(await signInAndConsent(url, redirect));
    expect(await page.text()).toContain('Signed in');
    expect(await login.exited).toBe(0);
  });

  it('registers anew when the authorization server forgot its registration', {
    timeout: 90_000,
  }, async () => {
    const home = await mkdtemp(join(tmpdir(), 'mcplite-oauth-forgot-'));
    try {
      const env = { XDG_CONFIG_HOME: home };
      const first = await loginShown(env);
      await fetch(await signInAndConsent(first.url, first.redirect));
      expect(await first.login.exited).toBe(0);
      // The authorization server loses the registration (a reset, an expiry): the id kept is unknown to it.
      const dir = join(home, 'mcplite', 'oauth');
      const [file] = (await readdir(dir)).filter((f) => f.endsWith('.json'));
      const kept = JSON.parse(await readFile(join(dir, file!), 'utf8'));
      kept.record.client.client_id = 'forgotten-registration';
      await writeFile(join(dir, file!), JSON.stringify(kept), { mode: 0o600 });

      const again = await loginShown(env);
      expect(again.url.searchParams.get('client_id')).not.toBe('forgotten-registration');
      await fetch(await signInAndConsent(again.url, again.redirect));
      expect(await again.login.exited).toBe(0);
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  });

  it('refuses an authorization server that does not list PKCE S256', { timeout: 60_000 }, async () => {
    const noPkce = await listener(startRecordingIssuer({ code_challenge_methods_supported: undefined }));
    const resource = await listener(startProtectedResource(() => [noPkce.origin]));
    const login = run(['login', `${resource.origin}/mcp`, '--no-browser'], { XDG_CONFIG_HOME: config });
    expect(await login.exited).toBe(1);
    expect(login.stderr()).toMatch(/does not list S256 in code_challenge_methods_supported/);
    expect(login.stderr()).not.toContain('Sign in at');
    expect(noPkce.received.filter((r) => r.method === 'POST')).toEqual([]);
  });
});

describe('the CLI with a client secret', () => {
  const secret = 'cli-secret-never-sent-0123456789';

  it('refuses $MCPLITE_CLIENT_SECRET without --oauth-issuer before any request', {
    timeout: 60_000,
  }, async () => {
    const resource = await listener(startProtectedResource(() => [target.issuer.issuer]));
    const call = run(['tools', `${resource.origin}/mcp`, '--client-id', 'web', '--no-browser'], {
      XDG_CONFIG_HOME: config,
      MCPLITE_CLIENT_SECRET: secret,
    });
    expect(await call.exited).toBe(2);
    expect(call.stderr()).toContain('--oauth-issuer');
    expect(resource.received).toEqual([]);
  });

  it('sends it only to --oauth-issuer, never to the server a resource names', {
    timeout: 60_000,
  }, async () => {
    const attacker = await listener(startRecordingIssuer());
    const resource = await listener(startProtectedResource(() => [attacker.origin]));
    const call = run(
      ['tools', `${resource.origin}/mcp`, '--client-id', 'web', '--oauth-issuer', target.issuer.issuer],
      { XDG_CONFIG_HOME: config, MCPLITE_CLIENT_SECRET: secret, BROWSER: 'true' },
    );
    expect(await call.exited).not.toBe(0);
    expect(call.stderr()).toContain(`configured for ${target.issuer.issuer} only`);
    expect(attacker.text()).not.toContain(secret);
    expect(attacker.received.filter((r) => r.method === 'POST')).toEqual([]);
  });
});

describe('what the CLI reads and says', () => {
  it('fails `mcplite tools` on endless metadata, hanging up on it', { timeout: 60_000 }, async () => {
    const endless = endlessDocument();
    const resource = await listener(startProtectedResource(() => [], endless.handler));
    const tools = run(['tools', `${resource.origin}/mcp`, '--no-browser'], { XDG_CONFIG_HOME: config });
    expect(await tools.exited).not.toBe(0);
    expect(tools.stderr()).toMatch(/larger than 1048576 bytes/);
    await endless.hungUp;
  });

  it('says a bearer-protected server without OAuth metadata needs a token (its 401 code its own)', {
    timeout: 60_000,
  }, async () => {
    const ping = defineTool({ name: 'ping', description: 'Pings', handler: () => 'pong' });
    const running = await serve(createServer({ tools: [ping], authenticate: bearerAuth(['t0ken']) }), {
      port: 0,
      host: '127.0.0.1',
    });
    try {
      // The 401's JSON-RPC code is unauthenticated's own, not -32002 (MCP's resource-not-found).
      const refused = await fetch(`${running.url}/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
      });
      expect(refused.status).toBe(401);
      expect(((await refused.json()) as { error: { code: number } }).error.code).toBe(-32010);
      const call = run(['call', `${running.url}/mcp`, 'ping', '--no-browser'], { XDG_CONFIG_HOME: config });
      expect(await call.exited).not.toBe(0);
      expect(call.stderr()).toMatch(/needs a bearer token/);
      expect(call.stderr()).toContain('--token');
      expect(call.stderr()).not.toMatch(/Invalid OAuth error response/);
    } finally {
      await running.close(500);
    }
  });
});
