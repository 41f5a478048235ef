/**
 * The inspector in headless Chromium (playwright-core) for two things a person does first: opening it and filling a
 * form. Opening: the token reaches the browser only in the URL mcplite printed, is traded for an HttpOnly cookie at
 * once, and a browser that holds neither gets nothing (issue 22, item 12: another local user read the token from
 * the page). Filling: a required field left empty is not sent as "" but named on the page, and nothing is sent
 * (item 9).
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serverOptions, tools } from '../../examples/demo/index.js';
import { createServer } from '../../src/index.js';
import { type RunningServer, serve } from '../../src/node.js';
import { type Browser, launchBrowser } from '../support/browser.js';
import { chromiumMissing } from '../support/inspector-browser.js';

describe.skipIf(chromiumMissing !== undefined)('inspector in Chromium: access and required fields', () => {
  let running: RunningServer;
  let browser: Browser;
  let token: string;

  beforeAll(async () => {
    running = await serve(createServer({ ...serverOptions, tools }), { port: 0, inspector: true });
    token = new URL(running.inspectorUrl!).searchParams.get('token')!;
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await browser?.close();
    await running?.close(1000);
  });

  it('serves nothing to a browser without the token, and trades the URL token for an HttpOnly cookie', async () => {
    const page = await browser.context.newPage();
    const refused = await page.goto(`${running.url}/inspector/`);
    expect(refused?.status()).toBe(403);
    expect(await page.content()).not.toContain(token);
    expect(await browser.context.cookies()).toEqual([]);

    await page.goto(running.inspectorUrl!);
    await page.locator('[data-tool="search_documents"]').waitFor();
    // The token left the address bar (and so the history), and the page itself carries none.
    expect(page.url()).toBe(`${running.url}/inspector/`);
    expect(await page.content()).not.toContain(token);
    const [cookie, ...others] = await browser.context.cookies();
    expect(others).toEqual([]);
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/inspector' });
    expect(cookie!.value).not.toBe(token);
    // Scripts on the page cannot read it, and the API wants the page's header besides.
    expect(await page.evaluate(() => document.cookie)).toBe('');
    expect(await page.evaluate(async () => (await fetch('api/info')).status)).toBe(403);

    // Without the cookie the same browser is a stranger again.
    await browser.context.clearCookies();
    const again = await page.reload();
    expect(again?.status()).toBe(403);
    expect(await page.content()).not.toContain(token);
    await page.close();
  });

  it('leaves an empty required field out, names it on the page and sends nothing', async () => {
    const page: Page = await browser.context.newPage();
    await page.goto(`${running.inspectorUrl!}#search_documents`);
    await page.locator('[name="query"]').waitFor();
    const calls: string[] = [];
    page.on('request', (r) => {
      if (r.url().endsWith('/inspector/api/call')) calls.push(r.postData() ?? '');
    });
    const call = () => page.getByRole('button', { name: 'Call', exact: true }).click();

    await call();
    const problems = page.locator('#call-form .form-problems');
    await problems.waitFor();
    expect(await problems.textContent()).toContain('query');
    expect(await page.locator('[data-error-for="query"]').textContent()).toBe('query is required');
    expect(await page.locator('[name="query"]').getAttribute('aria-invalid')).toBe('true');

    // Filled, sent, answered; then cleared again: not sent as "" either.
    await page.fill('[name="query"]', 'security');
    await call();
    await page.locator('[data-outcome="answer"]').waitFor();
    expect(await problems.isHidden()).toBe(true);
    await page.fill('[name="query"]', '');
    await call();
    await expect.poll(() => problems.isVisible()).toBe(true);
    expect(calls).toHaveLength(1);
    expect(JSON.parse(calls[0]!).arguments).toEqual({ query: 'security', limit: 10 });
    await page.close();
  });
});
