/**
 * `mcplite inspect` against a server protected by `oauthResourceServer`, with a real authorization server
 * (oidc-provider), in headless Chromium (issue 25): the page shows "Sign in to <server>", its link opens the
 * authorization server's login and consent pages (filled here as the user would), the browser comes back to the
 * inspector's own callback route, and the page says who is signed in and lists the tools it was waiting for. The
 * tokens are kept in the CLI's token store; one the server refuses later in the session is refreshed by the client,
 * with no new sign-in.
 */
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createServer, defineTool, oauthResourceServer } from '../../src/index.js';
import { type RunningServer, serve } from '../../src/node.js';
import { type Browser, launchBrowser } from '../support/browser.js';
import { children, run } from '../support/cli-process.js';
import { freePort } from '../support/free-port.js';
import { chromiumMissing } from '../support/inspector-browser.js';
import { type OidcIssuer, startOidcIssuer } from '../support/oidc-issuer.js';

const whoami = defineTool({
  name: 'whoami',
  description: 'Says who called',
  handler: (_args, ctx) => ({ sub: ctx.principal?.sub ?? null }),
});

describe.skipIf(chromiumMissing !== undefined)(
  'inspector in Chromium: signing in to a protected server',
  () => {
    let issuer: OidcIssuer;
    let running: RunningServer;
    let browser: Browser;
    let origin: string;
    let config: string;

    beforeAll(async () => {
      issuer = await startOidcIssuer();
      const port = await freePort();
      origin = `http://127.0.0.1:${port}`;
      running = await serve(
        createServer({
          tools: [whoami],
          auth: oauthResourceServer({
            issuer: issuer.issuer,
            resource: `${origin}/`,
            scopes: ['tools:read'],
          }),
        }),
        { port, host: '127.0.0.1' },
      );
      config = await mkdtemp(join(tmpdir(), 'mcplite-inspector-oauth-'));
      browser = await launchBrowser();
    }, 120_000);

    afterAll(async () => {
      await browser?.close();
      await running?.close(500);
      await issuer?.close();
      await rm(config, { recursive: true, force: true });
    });

    afterEach(() => {
      for (const child of children) child.kill('SIGKILL');
    });

    it('shows the sign-in, lands on its own callback, says who is signed in, and refreshes later', async () => {
      const target = `${origin}/mcp-lite/v1/`;
      const inspect = run(['inspect', target, '--no-open'], { XDG_CONFIG_HOME: config });
      let pageUrl = '';
      for (let i = 0; i < 600 && !pageUrl; i++) {
        pageUrl = /mcplite inspector on (\S+) /.exec(inspect.stdout())?.[1] ?? '';
        if (!pageUrl) await new Promise((r) => setTimeout(r, 50));
      }
      expect(pageUrl).toBeTruthy();

      const page = await browser.context.newPage();
      await page.goto(pageUrl);
      const signin = page.locator('#signin');
      await page.locator('#signin[data-state="pending"]').waitFor({ timeout: 20_000 });
      expect(await signin.textContent()).toContain(`Sign in to ${origin}/`);

      // The link opens the authorization server's pages in a tab of their own; the user signs in and consents.
      const [popup] = await Promise.all([
        browser.context.waitForEvent('page'),
        signin.locator('a', { hasText: 'Sign in' }).click(),
      ]);
      await popup.waitForLoadState();
      expect(popup.url().startsWith(issuer.issuer)).toBe(true);
      await popup.locator('input[name="login"]').fill('alice');
      await popup.locator('input[name="password"]').fill('any');
      await popup.locator('button[type="submit"]').click();
      await popup.locator('button[type="submit"]').waitFor();
      await popup.locator('button[type="submit"]').click();
      // Back on the inspector's own loopback route.
      await popup.waitForURL((url) => url.href.startsWith(new URL('/callback', pageUrl).href));
      expect(await popup.locator('body').textContent()).toContain(`Signed in to ${origin}/`);
      await popup.close();

      // The catalog that waited for the sign-in arrives; the page says who is signed in.
      await page.locator('[data-tool="whoami"]').waitFor({ timeout: 20_000 });
      await page.locator('#signin[data-state="signed-in"]').waitFor({ timeout: 10_000 });
      expect(await signin.textContent()).toBe('Signed in as alice');

      const call = async () => {
        await page.locator('[data-tool="whoami"]').click();
        await page.locator('#call').click();
        await expect
          .poll(() => page.locator('#outcome').textContent(), { timeout: 20_000 })
          .toContain('alice');
      };
      await call();

      // Later in the session the server refuses the access token (as an expired one): the client refreshes it from
      // the CLI's token store, the call goes through, and no sign-in is asked for.
      const dir = join(config, 'mcplite', 'oauth');
      const [file] = (await readdir(dir)).filter((f) => f.endsWith('.json'));
      const path = join(dir, file!);
      const kept = JSON.parse(await readFile(path, 'utf8')) as {
        server: string;
        record: { tokens: { access_token: string; refresh_token?: string } };
      };
      expect(kept.server).toBe(target);
      expect(kept.record.tokens.refresh_token).toBeTruthy();
      const first = kept.record.tokens.access_token;
      kept.record.tokens.access_token = 'expired';
      await writeFile(path, JSON.stringify(kept), { mode: 0o600 });
      await page.locator('#outcome').evaluate((node) => node.replaceChildren());
      await call();
      const renewed = JSON.parse(await readFile(path, 'utf8')).record.tokens.access_token as string;
      expect(renewed).not.toBe('expired');
      expect(renewed).not.toBe(first);
      // The page re-reads the sign-in every second: the refreshed token names the same user.
      await expect.poll(() => signin.textContent(), { timeout: 10_000 }).toBe('Signed in as alice');
      // The page never holds a token (its HTML included): the inspector process keeps them.
      expect(await page.content()).not.toContain(renewed);
      await page.close();
    }, 120_000);
  },
);
