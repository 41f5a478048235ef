/**
 * The inspector as an MCP Apps host, in headless Chromium, against a server built with the official SDK's McpServer
 * (Streamable HTTP): a tool with a `ui://` view is called, the view renders in an iframe sandboxed to an opaque
 * origin under the policy built from its declared origins (checked from inside the view, where the policy applies),
 * speaks the view protocol (initialize, tool input and result, resources/read, ui/message, ui/open-link,
 * size-changed, teardown) and calls an app-only tool that the catalog shows apart, with no console error.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createInspector, type InspectorTarget } from '../../src/inspector/index.js';
import { inspectorTarget } from '../../src/inspector/targets/index.js';
import { listenNode, type NodeListening } from '../../src/node.js';
import { type Browser, launchBrowser } from '../support/browser.js';
import { chromiumMissing } from '../support/inspector-browser.js';
import { type Shelf, serveShelf } from '../support/sdk-apps-server.js';

/** An origin the view declares (a port nothing listens on) and one it does not: the policy must tell them apart. */
const DECLARED = 'http://127.0.0.1:9';
const UNDECLARED = 'http://127.0.0.1:7';

/**
 * The view, speaking the protocol by hand (the spec's "no SDK needed" form). It reports what only it can see (its
 * origin, its policy's verdicts) through `ui/message`, the channel the host shows.
 */
function viewHtml(linkTarget: string): string {
  return `<!doctype html><html><head><meta charset="utf-8"></head><body>
<h1 id="title">starting</h1><p id="input"></p><ul id="items"></ul><p id="opened"></p><p id="note"></p>
<button id="open-b" type="button">Open b</button>
<script>
let next = 1;
const pending = new Map();
const raw = (message) => new Promise((resolve, reject) => {
  pending.set(message.id, { resolve, reject });
  parent.postMessage(message, '*');
});
const request = (method, params) => raw({ jsonrpc: '2.0', id: next++, method, params });
// Every notification from the host, in order, and whether it came before this view said it was initialized.
const heard = [];
let initializedSent = false;
let early = 0;
let resulted;
const result = new Promise((resolve) => { resulted = resolve; });
const notify = (method, params) => parent.postMessage({ jsonrpc: '2.0', method, params }, '*');
const say = (text) => request('ui/message', { role: 'user', content: [{ type: 'text', text }] });
// The policy's verdict on the undeclared origin (a report arrives as its own event, after the fetch settles).
const violation = new Promise((resolve) => document.addEventListener('securitypolicyviolation', (e) => {
  if (e.blockedURI.startsWith('${UNDECLARED}')) resolve(e);
}));
addEventListener('message', (event) => {
  if (event.source !== parent) return;
  const m = event.data;
  if (m.method !== undefined && m.id === undefined) {
    heard.push(m.method);
    if (!initializedSent) early++;
  }
  if (m.method === undefined) {
    const p = pending.get(m.id);
    pending.delete(m.id);
    if (m.error) p.reject(m.error); else p.resolve(m.result);
  } else if (m.method === 'ui/notifications/tool-input') {
    document.getElementById('input').textContent = 'input ' + JSON.stringify(m.params.arguments);
  } else if (m.method === 'ui/notifications/tool-result') {
    const list = document.getElementById('items');
    list.replaceChildren(...m.params.structuredContent.items.map((t) => {
      const li = document.createElement('li'); li.textContent = t; return li;
    }));
    resulted();
  } else if (m.method === 'ui/resource-teardown') {
    parent.postMessage({ jsonrpc: '2.0', id: m.id, result: {} }, '*');
  }
});
document.getElementById('open-b').addEventListener('click', async () => {
  const r = await request('tools/call', { name: 'open_item', arguments: { id: 'b' } });
  document.getElementById('opened').textContent = 'opened ' + r.structuredContent.opened;
});
(async () => {
  const init = await request('ui/initialize', {
    appInfo: { name: 'shelf', version: '1.0.0' }, appCapabilities: {}, protocolVersion: '2026-01-26',
  });
  document.getElementById('title').textContent = 'ready in ' + init.hostInfo.name + ' for ' + init.hostContext.toolInfo.tool.name;
  // A round trip to the server before saying so: the tool's result most likely arrives at the host meanwhile,
  // and must wait there.
  const note = await request('resources/read', { uri: 'note://shelf/hello' });
  document.getElementById('note').textContent = note.contents[0].text;
  initializedSent = true;
  notify('ui/notifications/initialized', {});
  await result;
  await say('heard ' + heard.join(', ') + '; before initialized ' + early);
  let undeclared = 'allowed';
  try { await fetch('${UNDECLARED}/x'); } catch { undeclared = 'refused'; }
  const v = await violation;
  await say('origin ' + self.origin + '; undeclared fetch ' + undeclared + ' by ' + v.effectiveDirective);
  await say('policy ' + v.originalPolicy);
  let bad = 'opened';
  try { await request('ui/open-link', { url: 'javascript:alert(1)' }); } catch (e) { bad = 'refused: ' + e.message; }
  await say('javascript link ' + bad);
  try { await request('tools/call', { name: 'model_only', arguments: {} }); } catch (e) { await say('model_only ' + e.message); }
  try { await request('bogus/method', {}); } catch (e) { await say('bogus ' + e.code + ' ' + e.message); }
  try { await raw({ jsonrpc: '2.0', id: 'long', method: 'x'.repeat(200) }); } catch (e) { await say('long ' + e.code + ' ' + e.message); }
  await request('ui/open-link', { url: '${linkTarget}' });
  notify('ui/notifications/size-changed', { width: 300, height: 333 });
})();
</script></body></html>`;
}

/**
 * A view written with the ext-apps package's own view SDK (its `App` class, from the self-contained
 * `app-with-deps` build, inlined since a view has no other origin to load it from).
 */
function sdkViewHtml(): string {
  const file = createRequire(import.meta.url).resolve('@modelcontextprotocol/ext-apps/app-with-deps');
  const bundle = readFileSync(file, 'utf8');
  const local = /export\{[^}]*?\b([\w$]+) as App\b/.exec(bundle)?.[1];
  if (!local) throw new Error(`No App export in ${file}`);
  return `<!doctype html><html><head><meta charset="utf-8"></head><body>
<h1 id="input">starting</h1><ul id="items"></ul><button id="open-b" type="button">Open b</button><p id="opened"></p>
<script type="module">
${bundle}
const app = new ${local}({ name: 'shelf-sdk', version: '1.0.0' });
app.ontoolinput = (params) => { document.getElementById('input').textContent = 'input ' + JSON.stringify(params.arguments); };
app.ontoolresult = (result) => {
  document.getElementById('items').replaceChildren(...result.structuredContent.items.map((t) => {
    const li = document.createElement('li'); li.textContent = t; return li;
  }));
};
document.getElementById('open-b').addEventListener('click', async () => {
  const r = await app.callServerTool({ name: 'open_item', arguments: { id: 'b' } });
  document.getElementById('opened').textContent = 'opened ' + r.structuredContent.opened;
});
await app.connect();
await app.sendMessage({ role: 'user', content: [{ type: 'text', text: 'SDK view connected to ' + app.getHostVersion().name }] });
</script></body></html>`;
}

describe.skipIf(chromiumMissing !== undefined)('inspector as an MCP Apps host, in Chromium', () => {
  let shelf: Shelf;
  let target: InspectorTarget;
  let listening: NodeListening;
  let entry: string;
  let browser: Browser;

  beforeAll(async () => {
    shelf = await serveShelf({
      view: (origin) => ({
        html: viewHtml(`${origin}/linked`),
        ui: { csp: { connectDomains: [DECLARED, 'https://x.example; script-src *'] }, prefersBorder: true },
      }),
    });
    target = await inspectorTarget(shelf.url);
    const inspector = createInspector({ target });
    listening = await listenNode(inspector.handler, { port: 0 });
    entry = `${listening.url}${inspector.entryPath}`;
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await browser?.close();
    await listening?.close();
    await target?.close();
    shelf?.close();
  });

  it('renders the view sandboxed under its policy, speaks the protocol and lets the view call an app-only tool', async () => {
    const page = await browser.context.newPage();
    const consoleErrors: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error' || m.type() === 'warning') consoleErrors.push(m.text());
    });
    page.on('pageerror', (e) => consoleErrors.push(e.message));
    await page.goto(entry);

    // The catalog: the tool with a view is marked, the app-only tool sits apart from what a model would see.
    await page.locator('[data-tool="show_shelf"] .view-badge').waitFor();
    expect(await page.locator('[data-type="app-only"] [data-tool="open_item"]').count()).toBe(1);
    expect(await page.locator('[data-type="app-only"] [data-tool="show_shelf"]').count()).toBe(0);

    await page.locator('[data-tool="show_shelf"]').click();
    await page.fill('[name="owner"]', 'ada');
    const popup = browser.context.waitForEvent('page');
    await page.getByRole('button', { name: 'Call', exact: true }).click();

    const frame = page.locator('iframe.app-view');
    await frame.waitFor();
    expect(await frame.getAttribute('sandbox')).toBe('allow-scripts');
    const view = page.frameLocator('iframe.app-view');
    await view.locator('#title').getByText('ready in mcplite-inspector for show_shelf').waitFor();
    await view.locator('#input').getByText('input {"owner":"ada"}').waitFor();
    await view.locator('#items li').nth(1).waitFor();
    expect(await view.locator('#items li').allTextContents()).toEqual(['a', 'b']);
    await view.locator('#note').getByText('hello from a resource').waitFor();

    // What the view saw from inside: an opaque origin, the undeclared origin refused by connect-src, and a
    // policy with the declared origin, the default base-uri, and not the injected directive.
    const messages = page.locator('.view-message');
    await messages.filter({ hasText: 'javascript link' }).waitFor();
    const said = await messages.allTextContents();
    // Nothing before initialized; then the input once, then the result that was held back.
    expect(said[0]).toBe(
      'user: heard ui/notifications/tool-input, ui/notifications/tool-result; before initialized 0',
    );
    said.shift();
    expect(said[0]).toBe('user: origin null; undeclared fetch refused by connect-src');
    expect(said[1]).toContain(`connect-src ${DECLARED};`);
    expect(said[1]).toContain("base-uri 'self'");
    expect(said[1]).toContain("default-src 'none'");
    expect(said[1]).not.toContain('script-src *');
    expect(said[1]).not.toContain('x.example');
    expect(said[2]).toBe('user: javascript link refused: Invalid URL: only http and https links open');
    await messages.filter({ hasText: 'model_only' }).waitFor();
    expect(await messages.filter({ hasText: 'model_only' }).textContent()).toBe(
      'user: model_only model_only is not callable from a view (its visibility has no "app")',
    );
    await messages.filter({ hasText: 'long ' }).waitFor();
    expect(await messages.filter({ hasText: 'bogus ' }).textContent()).toBe(
      'user: bogus -32601 Method not found: bogus/method',
    );
    expect(await messages.filter({ hasText: 'long ' }).textContent()).toBe(
      'user: long -32600 Invalid request: a bad method',
    );

    // ui/open-link opened the http link in a new tab; size-changed resized the frame.
    const opened = await popup;
    await opened.waitForURL(/\/linked$/);
    await opened.close();
    await page.waitForFunction(
      () => (document.querySelector('iframe.app-view') as HTMLIFrameElement | null)?.style.height === '333px',
    );

    // A click inside the view calls the app-only tool through the host; the view shows the answer.
    await view.locator('#open-b').click();
    await view.locator('#opened').getByText('opened b').waitFor();

    // Calling again tears the old view down and renders a fresh one, which gets the new call's input.
    await page.fill('[name="owner"]', 'bob');
    await page.getByRole('button', { name: 'Call', exact: true }).click();
    await view.locator('#input').getByText('input {"owner":"bob"}').waitFor();
    expect(await page.locator('iframe.app-view').count()).toBe(1);

    // Picking another tool tears the view down: asked first, it answers, and the frame goes.
    await page.locator('[data-tool="model_only"]').click();
    await page.locator('#app-view').waitFor({ state: 'hidden' });
    expect(await page.locator('.view-closed').textContent()).toBe(
      'View closed: another tool was selected (the view answered the teardown)',
    );
    expect(await page.locator('iframe.app-view').count()).toBe(0);

    // The one console error is the view's refused fetch, the policy doing its job; nothing else.
    const others = consoleErrors.filter((m) => !m.includes(UNDECLARED));
    expect(others).toEqual([]);
    expect(consoleErrors.some((m) => m.includes('Content Security Policy'))).toBe(true);
  });
  it("hosts a view written with the ext-apps package's App class", async () => {
    const sdkShelf = await serveShelf({ view: () => ({ html: sdkViewHtml(), ui: {} }) });
    const sdkTarget = await inspectorTarget(sdkShelf.url);
    const inspector = createInspector({ target: sdkTarget });
    const sdkListening = await listenNode(inspector.handler, { port: 0 });
    try {
      const page = await browser.context.newPage();
      const consoleErrors: string[] = [];
      page.on('console', (m) => {
        if (m.type() === 'error' || m.type() === 'warning') consoleErrors.push(m.text());
      });
      page.on('pageerror', (e) => consoleErrors.push(e.message));
      await page.goto(`${sdkListening.url}${inspector.entryPath}#show_shelf`);
      await page.locator('[name="owner"]').fill('ada');
      await page.getByRole('button', { name: 'Call', exact: true }).click();
      const view = page.frameLocator('iframe.app-view');
      await view.locator('#input').getByText('input {"owner":"ada"}').waitFor();
      await view.locator('#items li').nth(1).waitFor();
      await page.locator('.view-message', { hasText: 'SDK view connected to mcplite-inspector' }).waitFor();
      await view.locator('#open-b').click();
      await view.locator('#opened').getByText('opened b').waitFor();
      expect(consoleErrors).toEqual([]);
    } finally {
      await sdkListening.close();
      await sdkTarget.close();
      sdkShelf.close();
    }
  });
});
