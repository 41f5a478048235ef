/**
 * The demo's view (examples/demo/browse-view.ts) against a minimal host written from the MCP Apps specification,
 * in headless Chromium: the view, in a sandboxed iframe of an opaque origin, opens with `ui/initialize` and
 * `ui/notifications/initialized` (the host sends nothing before), renders the real server's tool result, and its
 * "Open" button calls the app-only open_document through the host, which forwards it to the server over MCP.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serverOptions, tools } from '../../examples/demo/index.js';
import { createServer } from '../../src/index.js';
import { type RunningServer, serve } from '../../src/node.js';
import { type Browser, browserMissing, launchBrowser } from '../support/browser.js';

const missing = browserMissing();

/** The host's side of the view protocol, run in the page: what the spec asks of a host, and a log of it. */
const HOST_SCRIPT = `
window.hostLog = [];
window.startView = (html, toolInput, toolResult) => {
  const frame = document.createElement('iframe');
  frame.sandbox = 'allow-scripts';
  frame.srcdoc = html;
  frame.style.width = '600px';
  document.body.append(frame);
  const send = (m) => frame.contentWindow.postMessage(Object.assign({ jsonrpc: '2.0' }, m), '*');
  window.addEventListener('message', async (event) => {
    if (event.source !== frame.contentWindow) return;
    const m = event.data;
    window.hostLog.push(m.method || 'response');
    if (m.method === 'ui/initialize') {
      send({ id: m.id, result: { protocolVersion: '2026-01-26', hostInfo: { name: 'test-host', version: '1' },
        hostCapabilities: { serverTools: {} }, hostContext: { theme: 'light', displayMode: 'inline' } } });
    } else if (m.method === 'ui/notifications/initialized') {
      send({ method: 'ui/notifications/tool-input', params: { arguments: toolInput } });
      send({ method: 'ui/notifications/tool-result', params: toolResult });
    } else if (m.method === 'tools/call') {
      window.hostLog.push('tools/call ' + m.params.name);
      send({ id: m.id, result: await window.callTool(m.params) });
    } else if (m.id !== undefined) {
      send({ id: m.id, error: { code: -32601, message: 'Method not found' } });
    }
  });
};
`;

describe.skipIf(missing !== undefined)('the demo view in Chromium', () => {
  let running: RunningServer;
  let browser: Browser;
  let sdk: Client;

  beforeAll(async () => {
    running = await serve(createServer({ ...serverOptions, tools }), { port: 0, host: '127.0.0.1' });
    sdk = new Client(
      { name: 'view-host', version: '1' },
      {
        capabilities: {
          extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: ['text/html;profile=mcp-app'] } },
        },
      },
    );
    await sdk.connect(new StreamableHTTPClientTransport(new URL(`${running.url}/mcp`)));
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await sdk?.close();
    await running?.close(500);
  });

  it('renders the result and opens a document through the app-only tool', async () => {
    const page = await browser.context.newPage();
    const errors: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error') errors.push(m.text());
    });
    page.on('pageerror', (err) => errors.push(err.message));
    await page.exposeFunction('callTool', (params: { name: string; arguments: Record<string, unknown> }) =>
      sdk.callTool(params),
    );
    await page.setContent(`<!DOCTYPE html><html><body><script>${HOST_SCRIPT}</script></body></html>`);

    const tool = (await sdk.listTools()).tools.find((t) => t.name === 'browse_documents')!;
    const uri = (tool._meta as { ui: { resourceUri: string } }).ui.resourceUri;
    const view = (await sdk.readResource({ uri })).contents[0] as { text: string };
    const input = { query: 'security', limit: 3 };
    const result = await sdk.callTool({ name: 'browse_documents', arguments: input });
    await page.evaluate(([html, args, res]) => (window as any).startView(html, args, res), [
      view.text,
      input,
      result,
    ] as const);

    const frame = page.frameLocator('iframe');
    await expect.poll(() => frame.locator('#heading').textContent()).toBe('3 documents for "security"');
    const first = (result.structuredContent as { hits: Array<{ document_id: string; title: string }> })
      .hits[0]!;
    await frame.locator('button').first().click();
    await expect
      .poll(() => frame.locator('#document').getAttribute('data-document-id'))
      .toBe(first.document_id);
    expect(await frame.locator('#document .title').textContent()).toBe(first.title);

    const log = (await page.evaluate(() => (window as any).hostLog)) as string[];
    expect(log.slice(0, 2)).toEqual(['ui/initialize', 'ui/notifications/initialized']);
    expect(log).toContain('tools/call open_document');
    expect(errors).toEqual([]);
    await page.close();
  });
});
