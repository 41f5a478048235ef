/**
 * Server Cards and the AI Catalog (docs/discovery.md) over real sockets: `serve` answers `<mcp>/server-card` and
 * `/.well-known/ai-catalog.json` from `createHandler`, each valid against the published card schema and the
 * catalog's rules, public (CORS, no token needed), cached (Cache-Control, ETag, 304); the card's remote is the
 * endpoint the official MCP SDK client then connects to, and it never names a tool visibility hides.
 * The same documents on workerd: test/runtimes/runtimes.test.ts.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STATELESS_REVISION } from '../../src/bindings/mcp/revisions.js';
import { createHandler } from '../../src/create-handler.js';
import { bearerAuth, createServer, defineTool, visibleTools } from '../../src/index.js';
import { type RunningServer, serve } from '../../src/node.js';
import { run as runCli } from '../support/cli-process.js';
import { cardErrors, catalogErrors, DISCOVERY_SPEC } from '../support/discovery-schemas.js';

const HIDDEN = 'admin_rotate_keys_hidden';

const tools = [
  defineTool({ name: 'weather', description: 'The weather of a city', handler: () => 'sunny' }),
  defineTool({ name: HIDDEN, description: 'Rotates the keys (admins only)', handler: () => 'done' }),
];

function examples(kind: string, validity: 'valid' | 'invalid'): [string, unknown][] {
  const dir = join(DISCOVERY_SPEC, kind, 'examples', validity);
  return readdirSync(dir).map((f) => [f, JSON.parse(readFileSync(join(dir, f), 'utf8'))]);
}

describe('the validators the tests use', () => {
  it('accept the published valid examples and refuse the invalid ones', () => {
    for (const [file, card] of examples('server-card', 'valid')) expect(cardErrors(card), file).toEqual([]);
    for (const [file, card] of examples('server-card', 'invalid'))
      expect(cardErrors(card), file).not.toEqual([]);
    for (const [file, catalog] of examples('ai-catalog', 'valid'))
      expect(catalogErrors(catalog), file).toEqual([]);
    const both = {
      specVersion: '1.0',
      entries: [{ identifier: 'a', type: 'x', url: 'https://a/', data: {} }],
    };
    expect(catalogErrors(both)).not.toEqual([]);
  });
});

describe('a served Server Card and AI Catalog', () => {
  let running: RunningServer;

  beforeAll(async () => {
    const server = createServer({
      name: 'weather',
      version: '2.3.4',
      title: 'Weather',
      description: 'Forecasts and current conditions for any city.',
      tools,
      middleware: [visibleTools((tool, caller) => tool.name !== HIDDEN || caller.principal?.id === 'admin')],
      card: {
        name: 'com.example/weather',
        websiteUrl: 'https://example.com/weather',
        repository: { url: 'https://github.com/example/weather', source: 'github' },
        icons: [{ src: 'https://example.com/icon.png', mimeType: 'image/png', sizes: ['48x48'] }],
      },
    });
    const second = createServer({ name: 'notes', tools: [], authenticate: bearerAuth(['t0ken']) });
    running = await serve(server, {
      port: 0,
      grpc: false,
      handlers: [
        createHandler(second, {
          mcp: { path: '/notes/mcp' },
          mcpLite: false,
          webtools: false,
          legacySse: false,
        }),
      ],
    });
  });
  afterAll(() => running.close(1000));

  it('answers GET <mcp>/server-card with a valid card, CORS and cache headers', async () => {
    const res = await fetch(`${running.url}/mcp/server-card`, {
      headers: { accept: 'application/mcp-server-card+json' },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/mcp-server-card+json');
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(res.headers.get('access-control-expose-headers')).toBe('ETag');
    expect(res.headers.get('cache-control')).toBe('public, max-age=3600');
    expect(res.headers.get('etag')).toMatch(/^"[\w-]+"$/);
    const text = await res.text();
    const card = JSON.parse(text);
    expect(cardErrors(card)).toEqual([]);
    expect(card).toMatchObject({
      name: 'com.example/weather',
      version: '2.3.4',
      title: 'Weather',
      description: 'Forecasts and current conditions for any city.',
      websiteUrl: 'https://example.com/weather',
      repository: { source: 'github' },
      icons: [{ src: 'https://example.com/icon.png' }],
    });
    expect(card.remotes).toEqual([
      {
        type: 'streamable-http',
        url: `${running.url}/mcp`,
        supportedProtocolVersions: expect.arrayContaining(['2025-11-25', STATELESS_REVISION]),
      },
      {
        type: 'sse',
        url: `${running.url}/sse`,
        supportedProtocolVersions: expect.arrayContaining(['2024-11-05']),
      },
    ]);
    // No primitives at all, and so never a hidden tool.
    expect(text).not.toContain(HIDDEN);
    expect(text).not.toContain('"tools"');
  });

  it('answers 304 to its ETag, HEAD without a body, a preflight, and 405 to other methods', async () => {
    const first = await fetch(`${running.url}/mcp/server-card`);
    const etag = first.headers.get('etag')!;
    await first.arrayBuffer();
    const again = await fetch(`${running.url}/mcp/server-card`, { headers: { 'if-none-match': etag } });
    expect(again.status).toBe(304);
    expect(again.headers.get('etag')).toBe(etag);
    expect(await again.text()).toBe('');
    const other = await fetch(`${running.url}/mcp/server-card`, { headers: { 'if-none-match': '"other"' } });
    expect(other.status).toBe(200);
    await other.arrayBuffer();
    const head = await fetch(`${running.url}/mcp/server-card`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('etag')).toBe(etag);
    const preflight = await fetch(`${running.url}/mcp/server-card`, {
      method: 'OPTIONS',
      headers: { 'access-control-request-method': 'GET' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-headers')).toContain('If-None-Match');
    const post = await fetch(`${running.url}/mcp/server-card`, { method: 'POST', body: '{}' });
    expect(post.status).toBe(405);
  });

  it('lists a remote the MCP SDK client connects to, whose serverInfo agrees with the card', async () => {
    const card = (await (await fetch(`${running.url}/mcp/server-card`)).json()) as {
      version: string;
      remotes: { type: string; url: string }[];
    };
    const remote = card.remotes.find((r) => r.type === 'streamable-http')!;
    const client = new Client({ name: 'discovery-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(remote.url)));
    try {
      expect(client.getServerVersion()).toMatchObject({ name: 'weather', version: card.version });
      const names = (await client.listTools()).tools.map((t) => t.name);
      expect(names).toContain('weather');
      expect(names).not.toContain(HIDDEN);
    } finally {
      await client.close();
    }
  });

  it('is a target of mcplite tools: the CLI connects to the remote the card lists', {
    timeout: 60_000,
  }, async () => {
    const cli = runCli(['tools', `${running.url}/mcp/server-card`, '--json']);
    expect(await cli.exited, cli.stderr()).toBe(0);
    const names = (JSON.parse(cli.stdout()) as { tools: { name: string }[] }).tools.map((t) => t.name);
    expect(names).toContain('weather');
    expect(names).not.toContain(HIDDEN);
  });

  it('serves the card of a protected server without a token, naming the header it needs', async () => {
    const res = await fetch(`${running.url}/notes/mcp/server-card`);
    expect(res.status).toBe(200);
    const card = await res.json();
    expect(cardErrors(card)).toEqual([]);
    // No card name given and "notes" is not reverse-DNS: the host read as a namespace.
    expect(card.name).toBe('127.0.0.1/notes');
    expect(card.remotes).toEqual([
      {
        type: 'streamable-http',
        url: `${running.url}/notes/mcp`,
        supportedProtocolVersions: expect.any(Array),
        headers: [
          { name: 'Authorization', description: 'Bearer access token', isRequired: true, isSecret: true },
        ],
      },
    ]);
  });

  it('lists every card of the origin in /.well-known/ai-catalog.json, each link serving its card', async () => {
    const res = await fetch(`${running.url}/.well-known/ai-catalog.json`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/ai-catalog+json');
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    const catalog = (await res.json()) as { entries: { identifier: string; url: string }[] };
    expect(catalogErrors(catalog)).toEqual([]);
    expect(catalog.entries).toEqual([
      {
        identifier: 'urn:air:example.com:mcp:weather',
        type: 'application/mcp-server-card+json',
        url: `${running.url}/mcp/server-card`,
      },
      {
        identifier: 'urn:air:127.0.0.1:mcp:notes',
        type: 'application/mcp-server-card+json',
        url: `${running.url}/notes/mcp/server-card`,
      },
    ]);
    for (const entry of catalog.entries) {
      const card = await fetch(entry.url, { headers: { accept: 'application/mcp-server-card+json' } });
      expect(card.status).toBe(200);
      expect(cardErrors(await card.json())).toEqual([]);
    }
    const etag = res.headers.get('etag')!;
    const cached = await fetch(`${running.url}/.well-known/ai-catalog.json`, {
      headers: { 'if-none-match': etag },
    });
    expect(cached.status).toBe(304);
  });
});

describe('a server without a card', () => {
  it('serves neither the card nor a catalog entry with card: false', async () => {
    const running = await serve(createServer({ name: 'quiet', tools, card: false }), {
      port: 0,
      grpc: false,
    });
    try {
      expect((await fetch(`${running.url}/mcp/server-card`)).status).toBe(404);
      const catalog = await (await fetch(`${running.url}/.well-known/ai-catalog.json`)).json();
      expect(catalog).toEqual({ specVersion: '1.0', entries: [] });
    } finally {
      await running.close(1000);
    }
  });
});
