/**
 * The demo's MCP App in the inspector of `mcplite serve --demo --inspector`, in headless Chromium: the inspector
 * talks to its own server over MCP-lite (in process), which carries no resources, so the view is read through the
 * server's own chain. Calling browse_documents renders the view in an iframe sandboxed to an opaque origin under
 * the default view policy (checked from inside the view, where it applies); the view's "Open" button calls the
 * app-only open_document through the host and the view shows the document; no console error. Behind a gateway
 * that prefixes the upstream's tools, the same view opens the document through the prefixed name.
 */
import type { Frame, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serverOptions, tools } from '../../examples/demo/index.js';
import { Gateway } from '../../src/gateway/gateway.js';
import { openUpstream } from '../../src/gateway/proxy-tools.js';
import { createServer } from '../../src/index.js';
import { viewCsp } from '../../src/inspector/apps.js';
import { createInspector, type InspectorTarget } from '../../src/inspector/index.js';
import { inspectorTarget } from '../../src/inspector/targets/index.js';
import { listenNode, type NodeListening, type RunningServer, serve } from '../../src/node.js';
import { type Browser, launchBrowser } from '../support/browser.js';
import { chromiumMissing } from '../support/inspector-browser.js';

/** An origin the demo view does not declare (a port nothing listens on): its policy must refuse a fetch to it. */
const UNDECLARED = 'http://127.0.0.1:9';

describe.skipIf(chromiumMissing !== undefined)("the demo's MCP App in serve --demo's inspector", () => {
  let running: RunningServer;
  let browser: Browser;
  let page: Page;
  const consoleErrors: string[] = [];

  beforeAll(async () => {
    running = await serve(createServer({ ...serverOptions, tools }), { port: 0, inspector: true });
    browser = await launchBrowser();
    page = await browser.context.newPage();
    page.on('console', (m) => {
      if (m.type() === 'error' || m.type() === 'warning') consoleErrors.push(`${m.type()}: ${m.text()}`);
    });
    page.on('pageerror', (e) => consoleErrors.push(`pageerror: ${e.message}`));
  });

  afterAll(async () => {
    await browser?.close();
    await running?.close(1000);
  });

  /** The view's frame, once the iframe has loaded it. */
  async function viewFrame(): Promise<Frame> {
    const handle = await page.locator('iframe.app-view').elementHandle();
    const frame = await handle?.contentFrame();
    if (!frame) throw new Error('the view iframe has no frame');
    return frame;
  }

  it('renders browse_documents in a sandboxed view that opens a document with the app-only tool', async () => {
    await page.goto(`${running.inspectorUrl!}#browse_documents`);
    await page.locator('[data-tool="browse_documents"] .view-badge').waitFor();
    await page.locator('[name="query"]').fill('protocol');
    await page.getByRole('button', { name: 'Call', exact: true }).click();

    const iframe = page.locator('iframe.app-view');
    await iframe.waitFor();
    expect(await iframe.getAttribute('sandbox')).toBe('allow-scripts');
    const view = page.frameLocator('iframe.app-view');
    await view.locator('#heading').getByText('for "protocol"').waitFor();
    const open = view.locator('#hits button');
    expect(await open.count()).toBeGreaterThan(0);
    expect(await open.first().textContent()).toBe('Open');

    // From inside the view: an opaque origin, and the default policy (the demo declares no origin), which
    // refuses a fetch to any origin by connect-src.
    const inside = await (await viewFrame()).evaluate(async (undeclared) => {
      const violation = new Promise<{ directive: string; policy: string }>((resolve) =>
        document.addEventListener('securitypolicyviolation', (e) =>
          resolve({ directive: e.effectiveDirective, policy: e.originalPolicy }),
        ),
      );
      let fetched = 'allowed';
      try {
        await fetch(`${undeclared}/x`);
      } catch {
        fetched = 'refused';
      }
      return { origin: self.origin, fetched, ...(await violation) };
    }, UNDECLARED);
    expect(inside).toEqual({
      origin: 'null',
      fetched: 'refused',
      directive: 'connect-src',
      policy: viewCsp({ connectDomains: [], resourceDomains: [], frameDomains: [], baseUriDomains: [] }),
    });

    // "Open" calls open_document (app-only, listed to no model) through the host; the view shows the document.
    const id = await open.first().getAttribute('data-document-id');
    expect(id).toBeTruthy();
    await open.first().click();
    const shown = view.locator(`#document[data-document-id="${id}"]`);
    await shown.waitFor();
    expect(await shown.locator('.title').textContent()).toBeTruthy();
    expect(await view.locator('#document').getAttribute('class')).not.toBe('error');

    // The one console error is the refused fetch the test made, the policy doing its job; nothing else.
    expect(consoleErrors.filter((m) => !m.includes(UNDECLARED))).toEqual([]);
  });
});

describe.skipIf(chromiumMissing !== undefined)(
  "the demo's MCP App behind a gateway's prefix, in the inspector",
  () => {
    let upstream: RunningServer;
    let gateway: Gateway;
    let running: RunningServer;
    let target: InspectorTarget;
    let listening: NodeListening;
    let entry: string;
    let browser: Browser;

    beforeAll(async () => {
      upstream = await serve(createServer({ ...serverOptions, tools }), { port: 0, host: '127.0.0.1' });
      const server = createServer({ name: 'gateway', tools: [] });
      gateway = new Gateway(server, { minBackoffMs: 50, maxBackoffMs: 200 });
      await gateway.add('docs', await openUpstream(`${upstream.url}/mcp`, { prefix: 'docs' }));
      running = await serve(server, { port: 0, host: '127.0.0.1' });
      target = await inspectorTarget(`${running.url}/mcp`);
      const inspector = createInspector({ target });
      listening = await listenNode(inspector.handler, { port: 0 });
      entry = `${listening.url}${inspector.entryPath}`;
      browser = await launchBrowser();
    });

    afterAll(async () => {
      await browser?.close();
      await listening?.close();
      await target?.close();
      await running?.close(500);
      await gateway?.close();
      await upstream?.close(500);
    });

    it('opens a document through the prefixed app-only tool', async () => {
      const page = await browser.context.newPage();
      const consoleErrors: string[] = [];
      page.on('console', (m) => {
        if (m.type() === 'error' || m.type() === 'warning') consoleErrors.push(m.text());
      });
      page.on('pageerror', (e) => consoleErrors.push(e.message));
      await page.goto(`${entry}#docs_browse_documents`);
      await page.locator('[data-type="app-only"] [data-tool="docs_open_document"]').waitFor();
      await page.locator('[name="query"]').fill('protocol');
      await page.getByRole('button', { name: 'Call', exact: true }).click();
      const view = page.frameLocator('iframe.app-view');
      const open = view.locator('#hits button').first();
      await open.waitFor();
      const id = await open.getAttribute('data-document-id');
      await open.click();
      await view.locator(`#document[data-document-id="${id}"]`).waitFor();
      expect(consoleErrors).toEqual([]);
    });
  },
);
