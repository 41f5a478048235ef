/**
 * The inspector's MCP Apps routes over real sockets, against the official SDK's McpServer: `api/view` reads a
 * `ui://` view and builds its policy from origins only, `view/<id>` serves it with that policy as a header (and
 * forgets it past the bound), a resource that is not a view or a binding without resources is refused with the
 * reason, `api/read` answers a view's `resources/read`, and a tool naming its view by the deprecated flat key alone
 * shows it too.
 */
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serverOptions, tools } from '../../examples/demo/index.js';
import { createServer } from '../../src/index.js';
import { acceptCsp, viewCsp } from '../../src/inspector/apps.js';
import { createInspector, type Inspector, type InspectorTarget } from '../../src/inspector/index.js';
import { inspectorTarget } from '../../src/inspector/targets/index.js';
import { createMcpLiteHttpTarget } from '../../src/inspector/targets/mcp-lite-http.js';
import { fetchTransport } from '../../src/inspector/targets/transport.js';
import { listenNode, type NodeListening, type RunningServer, serve } from '../../src/node.js';
import { type Shelf, serveShelf, VIEW_MIME, VIEW_URI } from '../support/sdk-apps-server.js';
import { send } from './inspector.fixtures.js';

const HTML = '<!doctype html><title>shelf</title><p>shelf</p>';

describe('inspector MCP Apps routes', () => {
  let shelf: Shelf;
  let target: InspectorTarget;
  let inspector: Inspector;
  let listening: NodeListening;
  let port: number;
  const headers = () => ({ 'x-mcplite-inspector': inspector.token, 'content-type': 'application/json' });
  const post = (route: string, body: unknown) =>
    send(port, 'POST', `/inspector/api/${route}`, headers(), JSON.stringify(body));

  beforeAll(async () => {
    shelf = await serveShelf({
      view: () => ({
        html: HTML,
        ui: {
          csp: {
            connectDomains: ['https://api.example.com', "https://x.example; script-src 'unsafe-eval' *"],
            resourceDomains: ['https://*.cdn.example', 'https://cdn.example/path'],
            frameDomains: ['*'],
            baseUriDomains: ["'none'"],
          },
          permissions: { camera: {}, clipboardWrite: {}, unknown: {} },
          prefersBorder: false,
        },
      }),
      extra: [
        { uri: 'ui://shelf/plain.txt', content: { mimeType: 'text/plain', text: 'not a view' } },
        {
          uri: 'ui://shelf/blob.html',
          content: { mimeType: VIEW_MIME, blob: Buffer.from(HTML).toString('base64') },
        },
      ],
    });
    target = await inspectorTarget(shelf.url);
    inspector = createInspector({ target, maxViews: 2 });
    listening = await listenNode(inspector.handler, { port: 0 });
    port = (listening.server.address() as AddressInfo).port;
  });

  afterAll(async () => {
    await listening?.close();
    await target?.close();
    shelf?.close();
  });

  it('reads the view, keeps only plain origins in its policy and serves it with that policy as a header', async () => {
    const prepared = await post('view', { uri: VIEW_URI });
    expect(prepared.status).toBe(200);
    const body = JSON.parse(prepared.body);
    expect(body.approved).toEqual({
      connectDomains: ['https://api.example.com'],
      resourceDomains: ['https://*.cdn.example'],
      frameDomains: [],
      baseUriDomains: [],
    });
    expect(body.dropped).toEqual([
      "https://x.example; script-src 'unsafe-eval' *",
      'https://cdn.example/path',
      '*',
      "'none'",
    ]);
    expect(body.csp).toBe(
      [
        "default-src 'none'",
        "script-src 'self' 'unsafe-inline' https://*.cdn.example",
        "style-src 'self' 'unsafe-inline' https://*.cdn.example",
        "img-src 'self' data: https://*.cdn.example",
        "font-src 'self' https://*.cdn.example",
        "media-src 'self' data: https://*.cdn.example",
        'connect-src https://api.example.com',
        "frame-src 'none'",
        "object-src 'none'",
        "base-uri 'self'",
        "frame-ancestors 'self'",
      ].join('; '),
    );
    expect(body.allow).toBe('camera; clipboard-write');
    expect(body.prefersBorder).toBe(false);

    const view = await send(port, 'GET', `/inspector/${body.path}`, {
      'x-mcplite-inspector': inspector.token,
    });
    expect(view.status).toBe(200);
    expect(view.headers['content-security-policy']).toBe(body.csp);
    expect(view.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(view.body).toBe(HTML);
    // Like the page, the view needs the inspector's credential.
    expect((await send(port, 'GET', `/inspector/${body.path}`)).status).toBe(403);
  });

  it('decodes a base64 view, and forgets the oldest view past its bound', async () => {
    const paths: string[] = [];
    for (let i = 0; i < 3; i++) {
      const reply = await post('view', { uri: 'ui://shelf/blob.html' });
      expect(reply.status).toBe(200);
      paths.push(JSON.parse(reply.body).path);
    }
    const get = (path: string) =>
      send(port, 'GET', `/inspector/${path}`, { 'x-mcplite-inspector': inspector.token });
    expect((await get(paths[2]!)).body).toBe(HTML);
    expect((await get(paths[0]!)).status).toBe(404);
  });

  it('refuses what is not a view, with the reason', async () => {
    const plain = await post('view', { uri: 'ui://shelf/plain.txt' });
    expect(plain.status).toBe(400);
    expect(JSON.parse(plain.body).error.message).toContain('is not an MCP Apps view');
    const notUi = await post('view', { uri: 'note://shelf/hello' });
    expect(notUi.status).toBe(400);
    expect(JSON.parse(notUi.body).error.message).toContain('ui:// URI');
    expect((await post('view', { uri: 'ui://shelf/missing.html' })).status).toBe(400);
  });

  it('shows the view of a tool that names it by the deprecated flat key alone', async () => {
    const listed = await send(port, 'GET', '/inspector/api/tools', headers());
    const tools = JSON.parse(listed.body).tools as { name: string; ui?: Record<string, unknown> }[];
    expect(tools.find((t) => t.name === 'legacy_shelf')?.ui).toEqual({ resourceUri: VIEW_URI });
    expect(tools.find((t) => t.name === 'show_shelf')?.ui).toEqual({ resourceUri: VIEW_URI });
  });

  it("answers a view's resources/read", async () => {
    const read = await post('read', { uri: 'note://shelf/hello' });
    expect(read.status).toBe(200);
    expect(JSON.parse(read.body).contents).toEqual([
      { uri: 'note://shelf/hello', mimeType: 'text/plain', text: 'hello from a resource' },
    ]);
  });
});

describe('inspector MCP Apps routes on a binding without resources', () => {
  let demo: RunningServer;
  let listening: NodeListening;
  let inspector: Inspector;

  beforeAll(async () => {
    demo = await serve(createServer({ ...serverOptions, tools }), { port: 0 });
    const base = `${demo.url}/mcp-lite/v1/`;
    inspector = createInspector({
      target: createMcpLiteHttpTarget({ transport: fetchTransport(base), target: base }),
    });
    listening = await listenNode(inspector.handler, { port: 0 });
  });

  afterAll(async () => {
    await listening?.close();
    await demo?.close(500);
  });

  it('says the binding carries no views', async () => {
    const port = (listening.server.address() as AddressInfo).port;
    const reply = await send(
      port,
      'POST',
      '/inspector/api/view',
      { 'x-mcplite-inspector': inspector.token, 'content-type': 'application/json' },
      JSON.stringify({ uri: VIEW_URI }),
    );
    expect(reply.status).toBe(404);
    expect(JSON.parse(reply.body).error.message).toBe(
      'The mcp-lite-http binding carries no resources, so no MCP Apps view can be read through it: ' +
        "inspect the server's MCP endpoint (mcplite inspect http://host:port/mcp) to render its views",
    );
  });
});

describe('the view policy', () => {
  it('accepts origins (wildcard subdomains, ports, IPv6) and nothing that could end a directive', () => {
    const { approved, dropped } = acceptCsp({
      connectDomains: [
        'wss://rt.example:8443',
        'http://[::1]:3000',
        'HTTPS://API.Example.com',
        'https://a.example ',
        'https://a.example;',
        'data:',
        "'self'",
        'ftp://files.example',
        42,
      ],
    });
    expect(approved.connectDomains).toEqual([
      'wss://rt.example:8443',
      'http://[::1]:3000',
      'https://api.example.com',
    ]);
    expect(dropped).toEqual([
      'https://a.example ',
      'https://a.example;',
      'data:',
      "'self'",
      'ftp://files.example',
      '42',
    ]);
  });

  it("is the spec's restrictive default when nothing is declared", () => {
    const { approved } = acceptCsp(undefined);
    expect(viewCsp(approved)).toBe(
      "default-src 'none'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; " +
        "img-src 'self' data:; font-src 'self'; media-src 'self' data:; connect-src 'none'; frame-src 'none'; " +
        "object-src 'none'; base-uri 'self'; frame-ancestors 'self'",
    );
  });
});
