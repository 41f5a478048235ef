/**
 * The inspector's Prompts panel in headless Chromium (playwright-core): the prompts listed beside the tools, a
 * form for one prompt's arguments (a required one left empty is named and nothing sent), the rendered messages
 * and the raw exchange, a composed prompt (another prompt's messages and an embedded resource), and an unknown
 * argument value shown as the server's error. Once on the server the inspector is mounted on (MCP-lite HTTP in
 * process) and once through the universal client (MCP over gRPC), with no console error but the browser's note of
 * the refused value's 502.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serverOptions, tools } from '../../examples/demo/index.js';
import { createServer, type PromptDefinition, type ToolServer } from '../../src/index.js';
import { createInspector, type InspectorTarget } from '../../src/inspector/index.js';
import { inspectorTarget } from '../../src/inspector/targets/index.js';
import { listenNode, type NodeListening, type RunningServer, serve } from '../../src/node.js';
import { type Browser, launchBrowser } from '../support/browser.js';
import { chromiumMissing } from '../support/inspector-browser.js';

/** A composed prompt: the demo's summary prompt, then the collection index as an embedded resource. */
const review: PromptDefinition = {
  name: 'review_document',
  description: 'Summarizes a document, then places it in the collection',
  arguments: [{ name: 'document_id', description: 'e.g. "doc_001"', required: true }],
  handler: async ({ document_id }, ctx) => {
    const summary = await server.prompts.get('summarize_document', { document_id: document_id! }, ctx);
    const [index] = await server.resources.read('demo://documents', ctx);
    return [
      ...summary.messages,
      { role: 'assistant', content: { type: 'text', text: 'Which collection does it belong to?' } },
      { role: 'user', content: { type: 'resource', resource: index! } },
    ];
  },
};

let server: ToolServer;
let running: RunningServer;
let browser: Browser;

beforeAll(async () => {
  if (chromiumMissing) return;
  server = createServer({ ...serverOptions, tools, prompts: [...serverOptions.prompts, review] });
  running = await serve(server, { port: 0, grpcPort: 0, inspector: true });
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await running?.close(1000);
});

describe.skipIf(chromiumMissing !== undefined).each([
  { via: 'the server it is mounted on', binding: 'mcp-lite-http' },
  { via: 'MCP over gRPC through the client', binding: 'mcp-grpc' },
])('inspector Prompts panel in Chromium: $via', ({ binding }) => {
  let entry: string;
  let target: InspectorTarget | undefined;
  let listening: NodeListening | undefined;

  beforeAll(async () => {
    if (binding === 'mcp-lite-http') {
      entry = running.inspectorUrl!;
      return;
    }
    target = await inspectorTarget(`grpc://${running.grpc!.address}/model_context_protocol.Mcp`);
    const inspector = createInspector({ target });
    listening = await listenNode(inspector.handler, { port: 0 });
    entry = `${listening.url}${inspector.entryPath}`;
  });
  afterAll(async () => {
    await listening?.close();
    await target?.close();
  });

  it('lists the prompts, asks for a required argument, renders messages and a composed prompt', async () => {
    const problems: string[] = [];
    const page = await browser.context.newPage();
    page.on('console', (m) => {
      if (m.type() === 'error' || m.type() === 'warning') problems.push(m.text());
    });
    page.on('pageerror', (e) => problems.push(e.message));
    await page.goto(entry);

    const panel = page.locator('#prompts');
    await panel.locator('[data-prompt="summarize_document"]').waitFor();
    expect(await panel.locator('h2').textContent()).toBe('Prompts (2)');
    await page.locator('[data-prompt="summarize_document"]').click();
    expect(await page.locator('#prompt-name').textContent()).toBe(
      'Summarize a document (summarize_document)',
    );
    expect(await page.locator('#tool-view').isHidden()).toBe(true);

    // Required and empty: named on the page, nothing sent.
    await page.getByRole('button', { name: 'Get prompt' }).click();
    expect(await page.locator('#prompt-form .form-problems').textContent()).toMatch(/document_id/);
    expect(await page.locator('#prompt-result').isHidden()).toBe(true);

    await page.fill('#prompt-form [name="document_id"]', 'doc_001');
    await page.getByRole('button', { name: 'Get prompt' }).click();
    const message = page.locator('.prompt-message');
    await message.first().waitFor();
    expect(await message.count()).toBe(1);
    expect(await message.first().getAttribute('data-role')).toBe('user');
    expect(await message.first().locator('[data-content="text"]').textContent()).toMatch(
      /^Summarize this document in three sentences\./,
    );
    expect(await page.locator('#prompt-outcome .description').textContent()).toMatch(/^Summarize "/);
    expect(await page.locator('#prompt-answered-by').textContent()).toMatch(
      new RegExp(`^answered by ${binding} in \\d+ ms$`),
    );
    expect(await page.locator('#prompt-raw-request').textContent()).toContain('doc_001');
    expect(await page.locator('#prompt-raw-response').textContent()).toContain('Summarize this document');

    // A value the prompt refuses: the server's error, in the panel.
    await page.fill('#prompt-form [name="document_id"]', 'doc_999999');
    await page.getByRole('button', { name: 'Get prompt' }).click();
    await page.locator('#prompt-outcome [data-outcome="error"]').waitFor();
    expect(await page.locator('#prompt-outcome').textContent()).toMatch(/doc_999999/);
    expect(await message.count()).toBe(0);

    // The composed prompt: another prompt's message, an assistant turn, an embedded resource.
    await page.locator('[data-prompt="review_document"]').click();
    await page.fill('#prompt-form [name="document_id"]', 'doc_002');
    await page.getByRole('button', { name: 'Get prompt' }).click();
    await message.nth(2).waitFor();
    expect(await message.evaluateAll((items) => items.map((i) => i.getAttribute('data-role')))).toEqual([
      'user',
      'assistant',
      'user',
    ]);
    const embedded = message.nth(2).locator('[data-content="resource"]');
    expect(await embedded.locator('.row').textContent()).toBe('resource demo://documents (application/json)');
    expect(JSON.parse((await embedded.locator('pre').textContent()) ?? '{}').documents).toBeGreaterThan(0);

    // Picking a tool leaves the prompt; the address opens a prompt again.
    await page.locator('[data-tool="echo"]').click();
    expect(await page.locator('#prompt-view').isHidden()).toBe(true);
    expect(await page.locator('#tool-view').isVisible()).toBe(true);
    await page.evaluate(() => {
      location.hash = 'prompt=review_document';
    });
    await page.reload();
    await page.locator('#prompt-view:not([hidden])').waitFor();
    expect(await page.locator('#prompt-name').textContent()).toBe('review_document');
    // The one console line is the browser's own note of the refused value's 502 (the API's protocol-error status).
    expect(problems).toEqual([
      'Failed to load resource: the server responded with a status of 502 (Bad Gateway)',
    ]);
    await page.close();
  });
});
