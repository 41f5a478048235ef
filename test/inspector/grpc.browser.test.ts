/**
 * The web inspector in a real browser (headless Chromium driven by playwright-core) inspecting a gRPC server
 * through the universal client: listing, partials and answers over gRPC, and a form for a tool whose schema has
 * nested objects, arrays, booleans and enums, with no console error.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serverOptions, tools } from '../../examples/demo/index.js';
import { createServer, defineTool } from '../../src/index.js';
import { createInspector, type InspectorTarget } from '../../src/inspector/index.js';
import { inspectorTarget } from '../../src/inspector/targets/index.js';
import { listenNode, type NodeListening, type RunningServer, serve } from '../../src/node.js';
import { type Browser, launchBrowser } from '../support/browser.js';
import { chromiumMissing } from '../support/inspector-browser.js';

/** A tool whose schema has every shape the form must render; it answers with its arguments. */
const formProbe = defineTool({
  name: 'form_probe',
  '@type': 'test',
  description: 'Answers with its arguments',
  inputSchema: {
    type: 'object',
    required: ['title', 'options'],
    properties: {
      title: { type: 'string' },
      options: {
        type: 'object',
        required: ['depth'],
        properties: {
          depth: { type: 'integer', default: 2 },
          verbose: { type: 'boolean' },
          mode: { enum: ['fast', 'thorough'] },
        },
      },
      tags: { type: 'array', items: { type: 'string' } },
      points: {
        type: 'array',
        items: { type: 'object', properties: { x: { type: 'number' }, y: { type: 'number' } } },
      },
      strict: { type: 'boolean', default: false },
    },
  },
  handler: (args) => args,
});

describe.skipIf(chromiumMissing !== undefined)(
  'inspector in Chromium, inspecting a gRPC server through the client',
  () => {
    let running: RunningServer;
    let target: InspectorTarget;
    let listening: NodeListening;
    let entry: string;
    let browser: Browser;
    const consoleErrors: string[] = [];

    beforeAll(async () => {
      running = await serve(createServer({ ...serverOptions, tools: [...tools, formProbe] }), {
        port: 0,
        grpcPort: 0,
      });
      target = await inspectorTarget(`grpc://${running.grpc!.address}`);
      const inspector = createInspector({ target });
      listening = await listenNode(inspector.handler, { port: 0 });
      entry = `${listening.url}${inspector.entryPath}`;
      browser = await launchBrowser();
    });

    afterAll(async () => {
      await browser?.close();
      await listening?.close();
      await target?.close();
      await running?.close(1000);
    });

    it('lists, streams partials and answers over gRPC, and says whose view the exchange is', async () => {
      const page = await browser.context.newPage();
      page.on('console', (m) => {
        if (m.type() === 'error' || m.type() === 'warning') consoleErrors.push(m.text());
      });
      page.on('pageerror', (e) => consoleErrors.push(e.message));
      await page.goto(entry);
      await page.locator('[data-tool="generate_report"]').click();
      expect(await page.locator('#binding').textContent()).toBe('grpc');
      await page.fill('[name="topic"]', 'privacy');
      await page.getByRole('button', { name: 'Call', exact: true }).click();
      await page.locator('[data-outcome="answer"]').waitFor();
      expect(await page.locator('.partial').count()).toBeGreaterThan(2);
      expect(await page.locator('#answered-by').textContent()).toMatch(/^answered by grpc in/);
      expect(await page.locator('#raw-request-title').textContent()).toBe(
        'Request (as the client was asked)',
      );
      expect(consoleErrors).toEqual([]);
    });

    it('renders nested objects, arrays (added, removed, renumbered), booleans and enums, and sends what was filled', async () => {
      const page = await browser.context.newPage();
      page.on('pageerror', (e) => consoleErrors.push(e.message));
      await page.goto(`${entry}#form_probe`);
      await page.locator('[name="title"]').waitFor();
      expect(await page.locator('[name="options.depth"]').inputValue()).toBe('2');
      await page.fill('[name="title"]', 'T');
      await page.selectOption('[name="options.verbose"]', 'true');
      await page.selectOption('[name="options.mode"]', { label: 'thorough' });
      const addTag = page.locator('[data-add="tags"]');
      for (const tag of ['a', 'b', 'c']) {
        await addTag.click();
        await page.locator('[name^="tags."]').last().fill(tag);
      }
      await page
        .locator('fieldset[data-path="tags"] li')
        .nth(1)
        .getByRole('button', { name: 'Remove tags item' })
        .click();
      expect(await page.locator('[name="tags.1"]').inputValue()).toBe('c');
      await page.locator('[data-add="points"]').click();
      await page.fill('[name="points.0.x"]', '1');
      await page.fill('[name="points.0.y"]', '2.5');
      await page.check('[name="strict"]');
      await page.getByRole('button', { name: 'Call', exact: true }).click();
      const answer = page.locator('[data-outcome="answer"]');
      await answer.waitFor();
      expect(JSON.parse((await answer.locator('pre').textContent()) ?? '{}')).toEqual({
        title: 'T',
        options: { depth: 2, verbose: true, mode: 'thorough' },
        tags: ['a', 'c'],
        points: [{ x: 1, y: 2.5 }],
        strict: true,
      });
      expect(consoleErrors).toEqual([]);
    });
  },
);
