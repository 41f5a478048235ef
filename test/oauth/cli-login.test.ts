/**
 * `mcplite login`, `call` and `logout` as child processes against an mcplite server protected by
 * `oauthResourceServer`, with a real authorization server (oidc-provider): the CLI prints the sign-in URL
 * (`--no-browser`), catches the redirect on a loopback port (RFC 8252), keeps the tokens in a file only the user
 * can read under `$XDG_CONFIG_HOME/mcplite/oauth`, and the next command uses them without asking again. No token
 * reaches the CLI's output. `mcplite inspect` signs in from its page (the API offers the authorization URL, the
 * redirect comes back to the inspector's own callback route).
 */
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
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

let issuer: OidcIssuer;
let running: RunningServer;
let mcp: string;
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
    { port, host: '127.0.0.1' },
  );
  config = await mkdtemp(join(tmpdir(), 'mcplite-oauth-cli-'));
}, 120_000);

afterAll(async () => {
  await running?.close(500);
  await issuer?.close();
  await rm(config, { recursive: true, force: true });
});

afterEach(() => {
  for (const child of children) child.kill('SIGKILL');
});

describe('mcplite login / call / logout against a protected server', () => {
  it('signs in through the loopback redirect, keeps the tokens 0600, reuses them, and forgets them', async () => {
    const env = { XDG_CONFIG_HOME: config };
    const login = run(['login', mcp, '--no-browser'], env);
    const [, shown] = await outputMatch(login.stderr, /Sign in at:\n\s+(\S+)\n/);
    const authorizationUrl = new URL(shown!);
    const redirect = authorizationUrl.searchParams.get('redirect_uri')!;
    // RFC 8252: a loopback IP literal, a port the system picked.
    expect(redirect).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
    // The user signs in and consents; the browser then lands on the CLI's catcher.
    const back = await signInAndConsent(authorizationUrl, redirect);
    const page = await fetch(back);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('Signed in');
    expect(await login.exited).toBe(0);
    expect(login.stdout()).toContain(`Signed in to ${mcp}`);

    const dir = join(config, 'mcplite', 'oauth');
    expect((await stat(dir)).mode & 0o777).toBe(0o700);
    const files = (await readdir(dir)).filter((f) => f.endsWith('.json'));
    expect(files).toHaveLength(1);
    const file = join(dir, files[0]!);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    const kept = JSON.parse(await readFile(file, 'utf8')) as {
      server: string;
      record: { tokens: { access_token: string; refresh_token?: string } };
    };
    expect(kept.server).toBe(mcp);
    const { access_token } = kept.record.tokens;
    expect(access_token).toBeTruthy();
    expect(login.stdout() + login.stderr()).not.toContain(access_token);

    // The next command signs in with the kept tokens: no URL to visit.
    const call = run(['call', mcp, 'whoami', '--timeout', '20000'], env);
    expect(await call.exited).toBe(0);
    expect(call.stdout()).toContain('alice');
    expect(call.stderr()).not.toContain('Sign in at');

    const logout = run(['logout', mcp], env);
    expect(await logout.exited).toBe(0);
    expect(logout.stdout()).toContain(`Signed out of ${mcp}`);
    expect((await readdir(dir)).filter((f) => f.endsWith('.json'))).toHaveLength(0);
  }, 90_000);

  it('mcplite inspect signs in from its page: the API offers the URL, the redirect lands on the page', async () => {
    const fresh = await mkdtemp(join(tmpdir(), 'mcplite-oauth-inspect-'));
    try {
      // A client registered by `mcplite login` (on another loopback port) whose tokens are gone: the inspector's
      // sign-in reuses the registration, its redirect being the same loopback path (RFC 8252: any port).
      const login = run(['login', mcp, '--no-browser'], { XDG_CONFIG_HOME: fresh });
      const [, loginUrl] = await outputMatch(login.stderr, /Sign in at:\n\s+(\S+)\n/);
      const loginAuthorization = new URL(loginUrl!);
      await fetch(
        await signInAndConsent(loginAuthorization, loginAuthorization.searchParams.get('redirect_uri')!),
      );
      expect(await login.exited).toBe(0);
      const oauthDir = join(fresh, 'mcplite', 'oauth');
      const [recordFile] = (await readdir(oauthDir)).filter((f) => f.endsWith('.json'));
      const registered = JSON.parse(await readFile(join(oauthDir, recordFile!), 'utf8')) as {
        server: string;
        record: { client: { client_id: string }; tokens?: unknown };
      };
      delete registered.record.tokens;
      await writeFile(join(oauthDir, recordFile!), JSON.stringify(registered), { mode: 0o600 });

      const inspect = run(['inspect', mcp, '--no-open'], { XDG_CONFIG_HOME: fresh });
      // The page opens while the connection waits for the sign-in: nothing is asked of the terminal.
      const [, pageUrl] = await outputMatch(inspect.stdout, /mcplite inspector on (\S+) /);
      expect(inspect.stderr()).not.toContain('Sign in at');
      const token = new URL(pageUrl!).searchParams.get('token')!;
      const api = (route: string) =>
        fetch(new URL(`api/${route}`, pageUrl), { headers: { 'x-mcplite-inspector': token } });
      const listing = api('tools');
      let auth: { state: string; server: string; authorizationUrl?: string; subject?: string };
      for (;;) {
        auth = (await (await api('auth')).json()) as typeof auth;
        if (auth.state === 'pending') break;
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(auth.server).toBe(mcp);
      const authorizationUrl = new URL(auth.authorizationUrl!);
      const redirect = authorizationUrl.searchParams.get('redirect_uri')!;
      // The inspector's own loopback route on its own port, for the client `mcplite login` registered.
      expect(redirect).toBe(new URL('/callback', pageUrl).href);
      expect(authorizationUrl.searchParams.get('client_id')).toBe(registered.record.client.client_id);
      // A redirect without the pending state neither completes nor cancels the sign-in.
      const forged = await fetch(`${redirect}?code=x&state=forged`);
      expect(forged.status).toBe(400);
      const back = await signInAndConsent(authorizationUrl, redirect);
      const landed = await fetch(back);
      expect(landed.status).toBe(200);
      expect(await landed.text()).toContain(`Signed in to ${mcp}`);
      const listed = await listing;
      expect(listed.status).toBe(200);
      const body = (await listed.json()) as { tools: Array<{ name: string }> };
      expect(body.tools.map((t) => t.name)).toContain('whoami');
      expect(await (await api('auth')).json()).toMatchObject({ state: 'signed-in', subject: 'alice' });
      // Kept in the CLI's token store: the next command needs no sign-in.
      const call = run(['call', mcp, 'whoami', '--timeout', '20000'], { XDG_CONFIG_HOME: fresh });
      expect(await call.exited).toBe(0);
      expect(call.stdout()).toContain('alice');
      // The token is in the 0600 file only: neither the CLI's output nor the page's API shows it.
      const dir = join(fresh, 'mcplite', 'oauth');
      const [file] = (await readdir(dir)).filter((f) => f.endsWith('.json'));
      const kept = JSON.parse(await readFile(join(dir, file!), 'utf8')) as {
        record: { tokens: { access_token: string } };
      };
      const accessToken = kept.record.tokens.access_token;
      expect(accessToken).toBeTruthy();
      expect(inspect.stdout() + inspect.stderr()).not.toContain(accessToken);
      expect(await (await api('auth')).text()).not.toContain(accessToken);
    } finally {
      await rm(fresh, { recursive: true, force: true });
    }
  }, 90_000);
});
