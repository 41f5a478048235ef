/**
 * The web inspector in a real browser: headless Chromium (Debian's) driven by playwright-core, against a live demo
 * server with the inspector mounted (`serve({ inspector: true })`, as `mcplite serve --demo --inspector`). It loads
 * the page, lists the tools, fills forms, calls, and watches every outcome the page must show, with no console
 * error. It saves a screenshot (test-results/inspector.png; docs/inspector.png is a copy of one).
 */
import { execFile } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serverOptions, tools } from '../../examples/demo/index.js';
import { createServer } from '../../src/index.js';
import { type RunningServer, serve } from '../../src/node.js';
import { type Browser, launchBrowser } from '../support/browser.js';
import { chromiumMissing } from '../support/inspector-browser.js';

const SCREENSHOT = join(fileURLToPath(new URL('../..', import.meta.url)), 'test-results', 'inspector.png');

describe.skipIf(chromiumMissing !== undefined)('inspector in Chromium', () => {
  let running: RunningServer;
  let browser: Browser;
  let page: Page;
  const consoleErrors: string[] = [];

  beforeAll(async () => {
    const server = createServer({ ...serverOptions, tools });
    running = await serve(server, { port: 0, inspector: true });
    browser = await launchBrowser();
    page = await browser.context.newPage();
    page.on('console', (m) => {
      if (m.type() === 'error' || m.type() === 'warning') consoleErrors.push(`${m.type()}: ${m.text()}`);
    });
    page.on('pageerror', (e) => consoleErrors.push(`pageerror: ${e.message}`));
    page.on('requestfailed', (r) => {
      // A round the page aborts on purpose (a newer one replaced it) is not a failure of the page.
      if (!r.failure()?.errorText.includes('ABORTED')) consoleErrors.push(`requestfailed: ${r.url()}`);
    });
  });

  afterAll(async () => {
    await browser?.close();
    await running?.close(1000);
  });

  async function pick(tool: string): Promise<void> {
    await page.locator(`[data-tool="${tool}"]`).click();
    await expect.poll(() => page.locator('#tool-name').textContent()).toContain(tool);
  }

  async function callButton(): Promise<void> {
    await page.getByRole('button', { name: 'Call', exact: true }).click();
  }

  it('loads and lists the catalog grouped by @type', async () => {
    const started = Date.now();
    await page.goto(running.inspectorUrl!);
    await page.locator('[data-tool="search_documents"]').waitFor();
    const timing = await page.evaluate(() => ({
      loaded: Math.round(performance.getEntriesByType('navigation')[0]!.toJSON().loadEventEnd),
      catalog: Math.round(performance.getEntriesByName('mcplite-catalog')[0]!.startTime),
    }));
    console.log(
      `inspector: page load event at ${timing.loaded} ms, catalog listed at ${timing.catalog} ms after navigation ` +
        `(${Date.now() - started} ms wall clock with the browser's own start-up)`,
    );
    // Once more, as a user who comes back to the tab: the browser is warm, the server too.
    await page.reload();
    await page.locator('[data-tool="search_documents"]').waitFor();
    const again = await page.evaluate(() => ({
      loaded: Math.round(performance.getEntriesByType('navigation')[0]!.toJSON().loadEventEnd),
      catalog: Math.round(performance.getEntriesByName('mcplite-catalog')[0]!.startTime),
    }));
    console.log(
      `inspector: reloaded, load event at ${again.loaded} ms, catalog listed at ${again.catalog} ms`,
    );
    const groups = await page
      .locator('#catalog section[data-type]')
      .evaluateAll((sections) =>
        Object.fromEntries(
          sections.map((s) => [
            s.getAttribute('data-type'),
            [...s.querySelectorAll('[data-tool]')].map((b) => b.getAttribute('data-tool')),
          ]),
        ),
      );
    expect(groups.query).toEqual(['search_documents', 'get_document', 'browse_documents']);
    expect(groups.system).toEqual(['redeem', 'cancel']);
    expect(groups.generation).toEqual(['generate_report']);
    expect(await page.locator('#binding').textContent()).toBe('mcp-lite-http');
  });

  it('renders a form from the input schema, calls, and shows the raw exchange and _meta', async () => {
    await pick('search_documents');
    // Required marker, the default of `limit`, numbers as number inputs, names are property paths.
    expect(await page.locator('label:has(+ [name="query"]) .required').count()).toBe(1);
    expect(await page.locator('[name="limit"]').inputValue()).toBe('10');
    expect(await page.locator('[name="limit"]').getAttribute('type')).toBe('number');
    await page.fill('[name="query"]', 'supply chain security');
    await page.fill('[name="limit"]', '3');
    // Without partials the call goes as plain JSON-RPC over JSON (the streamed form is the next test's).
    await page.uncheck('#stream');
    await callButton();
    const outcome = page.locator('[data-outcome="answer"]');
    await outcome.waitFor();
    const hits = JSON.parse((await outcome.locator('pre').textContent()) ?? '[]');
    expect(hits).toHaveLength(3);
    expect(hits[0].title).toMatch(/Supply Chain Security/i);
    const request = JSON.parse((await page.locator('#raw-request').textContent()) ?? '{}');
    expect(request.body.params).toEqual({
      name: 'search_documents',
      arguments: { query: 'supply chain security', limit: 3 },
    });
    expect(await page.locator('#raw-response').textContent()).toContain('"response_type": "answer"');
    expect(await page.locator('#meta').textContent()).toContain('server_version1.0.0');
    expect(await page.locator('#answered-by').textContent()).toMatch(/^answered by mcp-lite-http in \d+ ms$/);
  });

  it('shows streamed partials as they arrive, before the answer', async () => {
    await pick('generate_report');
    await page.fill('[name="topic"]', 'supply chain security');
    await page.check('#stream');
    await callButton();
    // A partial is on the page while the call is still running: it arrived on its own, not with the result.
    await page.waitForFunction(
      () =>
        document.querySelectorAll('.partial').length >= 1 &&
        !document.querySelector('[data-outcome="answer"]'),
    );
    await page.locator('[data-outcome="answer"]').waitFor();
    const partials = await page.locator('.partial').allTextContents();
    expect(partials.length).toBeGreaterThan(3);
    expect(partials[0]).toContain('Supply Chain Security Report');
    expect(await page.locator('[data-outcome="answer"] pre').textContent()).toContain(partials.at(-1));
    expect(await page.locator('#raw-response').textContent()).toContain('event: done');
    mkdirSync(join(SCREENSHOT, '..'), { recursive: true });
    await page.screenshot({ path: SCREENSHOT, fullPage: true });
    console.log(`inspector: screenshot saved to ${SCREENSHOT}`);
  });

  it('shows a promise with token, estimate and countdown, then redeems it by itself', async () => {
    await pick('analyze_dataset');
    await page.fill('[name="dataset_id"]', 'security');
    await page.selectOption('[name="analysis_type"]', { label: 'summary' });
    await callButton();
    const promise = page.locator('[data-outcome="promise"]');
    await promise.waitFor();
    expect(await promise.locator('.token').textContent()).toMatch(/^prom_[A-Za-z0-9_-]{32}$/);
    expect(await promise.textContent()).toMatch(/estimated completion: \d{4}-\d\d-\d\dT/);
    expect(await promise.locator('[data-countdown]').textContent()).toMatch(/ready in \d+\.\d s|redeeming/);
    const answer = page.locator('[data-outcome="answer"]');
    await answer.waitFor({ timeout: 15_000 });
    expect(JSON.parse((await answer.locator('pre').textContent()) ?? '{}')).toMatchObject({
      documents: expect.any(Number),
    });
    expect(JSON.parse((await page.locator('#raw-request').textContent()) ?? '{}').body.params.name).toBe(
      'redeem',
    );
  });

  it('cancels a promise on a click', async () => {
    await pick('analyze_dataset');
    await page.fill('[name="dataset_id"]', 'all');
    await page.selectOption('[name="analysis_type"]', { label: 'comprehensive' });
    await callButton();
    await page.locator('[data-outcome="promise"]').waitFor();
    await page.locator('[data-outcome="promise"]').getByRole('button', { name: 'Cancel' }).click();
    const answer = page.locator('[data-outcome="answer"]');
    await answer.waitFor();
    expect(JSON.parse((await answer.locator('pre').textContent()) ?? '{}')).toMatchObject({
      cancelled: true,
    });
  });

  it('shows an elicitation form and continues the call with the answers', async () => {
    await pick('subscribe_digest');
    await page.selectOption('#call-form [name="category"]', { label: 'security' });
    await callButton();
    const elicitation = page.locator('[data-outcome="elicitation"]');
    await elicitation.waitFor();
    expect(await elicitation.textContent()).toContain('please provide: email, frequency');
    await page.fill('#elicitation-form [name="email"]', 'ada@example.com');
    await page.selectOption('#elicitation-form [name="frequency"]', { label: 'weekly' });
    await elicitation.getByRole('button', { name: 'Send' }).click();
    const answer = page.locator('[data-outcome="answer"]');
    await answer.waitFor();
    expect(JSON.parse((await answer.locator('pre').textContent()) ?? '{}')).toMatchObject({
      subscribed: true,
      email: 'ada@example.com',
      category: 'security',
      frequency: 'weekly',
    });
  });

  it('shows a validation error on the field it names', async () => {
    await pick('echo');
    await page.fill('[name="message"]', 'hello');
    await page.fill('[name="repeat"]', '20');
    await callButton();
    const error = page.locator('[data-outcome="error"]');
    await error.waitFor();
    expect(await error.textContent()).toContain('-32602');
    expect(await page.locator('[name="repeat"]').getAttribute('aria-invalid')).toBe('true');
    expect(await page.locator('[data-error-for="repeat"]').textContent()).toContain('must be <= 10');
  });

  it('shows failures and requests for more resource distinctly', async () => {
    await pick('get_document');
    await page.fill('[name="document_id"]', 'doc_nope');
    await callButton();
    await page.locator('[data-outcome="failure"]').waitFor();
    expect(await page.locator('[data-outcome="failure"]').textContent()).toContain('not_found');
    await pick('export_documents');
    await page.fill('[name="max_rows"]', '2');
    await callButton();
    const more = page.locator('[data-outcome="request-for-more-resource"]');
    await more.waitFor();
    expect(await more.textContent()).toMatch(/requested: \d+ documents/);
  });

  it('keeps a history of calls that can be re-run, and copies a call as a working curl line', async () => {
    const entries = await page.locator('#history-list li').count();
    expect(entries).toBeGreaterThanOrEqual(7);
    // The oldest entry is the search: re-run it.
    await page.locator('#history-list li').last().getByRole('button', { name: 'Re-run' }).click();
    await page.locator('[data-outcome="answer"]').waitFor();
    expect(await page.locator('[name="query"]').inputValue()).toBe('supply chain security');
    expect(await page.locator('#history-list li').count()).toBe(entries + 1);
    await page.getByRole('button', { name: 'Copy as curl' }).click();
    // The snippet comes from the local API: wait for it rather than read the box at once.
    await page.locator('#copy-text', { hasText: 'curl' }).waitFor();
    const curl = (await page.locator('#copy-text').textContent()) ?? '';
    expect(curl).toContain(`${running.url}/mcp-lite/v1/calltools`);
    const { stdout } = await promisify(execFile)('sh', ['-c', curl]);
    expect(JSON.parse(stdout).result._meta.response_type).toBe('answer');
    await page.getByRole('button', { name: 'Copy as mcplite call' }).click();
    await page.locator('#copy-text', { hasText: 'mcplite call' }).waitFor();
    expect(await page.locator('#copy-text').textContent()).toContain('mcplite call http://127.0.0.1:');
  });

  it('logged no console error', () => {
    expect(consoleErrors).toEqual([]);
  });
});
