/**
 * MCP Apps authoring (docs/apps.md): a view's declaration is checked where the tool is defined (CSP entries must be
 * origins, URIs under ui://), its HTML may be a string, a file or a function, and reading it walks the chain like
 * any operation: a caller from whom `visibleTools` hides the tool cannot read its view, and one without the tool's
 * scopes is refused. Read through mcplite's client over a real socket.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, expectTypeOf, it } from 'vitest';
import { connect } from '../../src/client/index.js';
import type { Authenticate } from '../../src/core/auth.js';
import { mount } from '../../src/gateway/mount.js';
import { createServer, defineTool, type ViewData, visibleTools } from '../../src/index.js';
import { serve } from '../../src/node.js';

const dir = mkdtempSync(join(tmpdir(), 'mcplite-apps-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('a view declared with its tool', () => {
  it.each([
    ['a policy smuggled into a domain', 'https://x.example; script-src *'],
    ['a path', 'https://x.example/api'],
    ['a bare host', 'x.example'],
    ['a wildcard scheme', '*://x.example'],
  ])('refuses %s as a CSP origin', (_what, domain) => {
    expect(() =>
      defineTool({ name: 'v', ui: { html: '<p>', csp: { connectDomains: [domain] } }, handler: () => 1 }),
    ).toThrow(/not an origin/);
  });

  it('accepts origins, wildcard subdomains and ports, and refuses other mistakes', () => {
    expect(() =>
      defineTool({
        name: 'v',
        ui: {
          html: '<p>',
          csp: {
            connectDomains: ['https://api.example.com', 'wss://rt.example.com:8443'],
            resourceDomains: ['https://*.cdn.example'],
          },
          permissions: { clipboardWrite: {} },
        },
        handler: () => 1,
      }),
    ).not.toThrow();
    expect(() =>
      defineTool({ name: 'v', ui: { html: '<p>', uri: 'https://x/view' }, handler: () => 1 }),
    ).toThrow(/ui:\/\//);
    expect(() => defineTool({ name: 'v', visibility: ['agent' as 'model'], handler: () => 1 })).toThrow(
      /visibility/,
    );
    expect(() => defineTool({ name: 'v', ui: {}, handler: () => 1 })).toThrow(/html/);
    expect(() =>
      createServer({
        tools: [
          { name: 'a', ui: { html: '<a>', uri: 'ui://same' }, handler: () => 1 },
          { name: 'b', ui: { html: '<b>', uri: 'ui://same' }, handler: () => 1 },
        ],
      }),
    ).toThrow(/different views/);
  });

  it('serves HTML from a string, a file and a function, one view shared by two tools', async () => {
    const file = join(dir, 'view.html');
    writeFileSync(file, '<p>from a file</p>');
    const shared = { html: () => Promise.resolve('<p>made</p>'), uri: 'ui://made/view' };
    const server = createServer({
      tools: [
        defineTool({ name: 'text', ui: { html: '<p>inline</p>' }, handler: () => 1 }),
        defineTool({ name: 'file', ui: { html: pathToFileURL(file) }, handler: () => 1 }),
        defineTool({ name: 'made_a', ui: shared, handler: () => 1 }),
        defineTool({ name: 'made_b', ui: shared, handler: () => 1 }),
      ],
    });
    const client = await connect(server);
    try {
      expect((await client.view('text', { html: true }))?.html).toBe('<p>inline</p>');
      expect((await client.view('file', { html: true }))?.resourceUri).toBe('ui://file/view');
      expect((await client.view('file', { html: true }))?.html).toBe('<p>from a file</p>');
      expect((await client.view('made_b', { html: true }))?.html).toBe('<p>made</p>');
      expect((await client.listResources()).map((r) => r.uri).sort()).toEqual([
        'ui://file/view',
        'ui://made/view',
        'ui://text/view',
      ]);
    } finally {
      await client.close();
      await server.close();
    }
  });
});

describe('reading a view walks the chain', () => {
  const tokens: Record<string, string[]> = { reader: ['docs:read'], other: [], hidden: ['docs:read'] };
  const authenticate: Authenticate = ({ token }) => {
    const scopes = token === undefined ? undefined : tokens[token];
    return scopes && token ? { id: token, scopes } : undefined;
  };
  const server = createServer({
    authenticate,
    middleware: [visibleTools((tool, caller) => tool.name !== 'report' || caller.principal?.id !== 'hidden')],
    tools: [
      defineTool({
        name: 'report',
        auth: { scopes: ['docs:read'] },
        ui: { html: '<p>report</p>', csp: { connectDomains: ['https://api.example.com'] } },
        handler: () => ({ ok: true }),
      }),
    ],
  });

  it.each([
    ['a caller with the scope reads it, with its CSP', 'reader', undefined],
    ['a caller without the tool’s scope is refused', 'other', 'forbidden'],
    ['a caller the tool is hidden from does not find it', 'hidden', 'resource_not_found'],
  ])('%s', async (_what, token, refused) => {
    const running = await serve(server, { port: 0, host: '127.0.0.1' });
    const client = await connect(`${running.url}/mcp`, { binding: 'mcp', token });
    try {
      const read = client.readResource('ui://report/view');
      if (refused) await expect(read).rejects.toMatchObject({ code: refused });
      else
        expect(await read).toEqual([
          {
            uri: 'ui://report/view',
            mimeType: 'text/html;profile=mcp-app',
            text: '<p>report</p>',
            _meta: { ui: { csp: { connectDomains: ['https://api.example.com'] } } },
          },
        ]);
    } finally {
      await client.close();
      await running.close(200);
    }
  });
});

describe('a mounted server’s view', () => {
  it('is linked and served under the mount’s namespace', async () => {
    const inner = createServer({
      tools: [defineTool({ name: 'chart', ui: { html: '<p>chart</p>' }, handler: () => ({ n: 1 }) })],
    });
    const mounted = mount(inner, { prefix: 'stats' });
    const host = createServer({ tools: mounted.tools, resources: mounted.resources });
    const client = await connect(host);
    try {
      expect(await client.view('stats_chart', { html: true })).toMatchObject({
        resourceUri: 'ui://stats/chart/view',
        html: '<p>chart</p>',
      });
      expect((await client.readResource('ui://stats/chart/view'))[0]?.uri).toBe('ui://stats/chart/view');
    } finally {
      await client.close();
      await host.close();
      await inner.close();
    }
  });
});

it('ViewData types what a view receives from its tool', () => {
  const tool = defineTool({
    name: 'typed',
    inputSchema: { type: 'object', required: ['q'], properties: { q: { type: 'string' } } },
    outputSchema: { type: 'object', required: ['n'], properties: { n: { type: 'number' } } },
    ui: { html: '<p>' },
    handler: () => ({ n: 1 }),
  });
  // JSON Schema objects allow other properties, hence the index signatures.
  expectTypeOf<ViewData<typeof tool>['input']>().toEqualTypeOf<{ [x: string]: unknown; q: string }>();
  expectTypeOf<ViewData<typeof tool>['output']>().toEqualTypeOf<{ [x: string]: unknown; n: number }>();
});
