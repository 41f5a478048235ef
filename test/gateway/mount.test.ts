/**
 * Issue 28, in code: `mount(server, { prefix })` composes servers in one process (tools, resources, resource
 * templates and prompts namespaced), `proxyTools(target, options)` gives a remote server's tools and
 * `openApiTools(document, options)` an HTTP API's, all ordinary tools of the host: listed and called here through
 * the official MCP SDK client over Streamable HTTP, with the host's own authentication applying to them.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client as SdkClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearerAuth } from '../../src/core/auth.js';
import { createServer } from '../../src/create-server.js';
import { mount } from '../../src/gateway/mount.js';
import { openApiTools } from '../../src/gateway/openapi.js';
import { type ProxiedTools, proxyTools } from '../../src/gateway/proxy-tools.js';
import { type RunningServer, serve } from '../../src/serve.js';

const TOKEN = 'host-token';

/** A document fetched by URL: its relative server resolves against where it came from. */
const SERVED_DOCUMENT = {
  openapi: '3.0.3',
  info: { title: 'Served', version: '1' },
  servers: [{ url: '../v1' }],
  paths: {
    '/things': {
      get: {
        operationId: 'listThings',
        parameters: [{ $ref: '#/components/parameters/Limit' }],
        responses: { '200': { description: 'x' } },
      },
    },
  },
  components: { parameters: { Limit: { name: 'limit', in: 'query', schema: { type: 'integer' } } } },
};

describe('mount, proxyTools and openApiTools compose one host', { timeout: 60_000 }, () => {
  let remote: RunningServer;
  let api: Server;
  let apiUrl: string;
  let proxied: ProxiedTools;
  let host: RunningServer;
  let sdk: SdkClient;

  beforeAll(async () => {
    remote = await serve(
      createServer({
        name: 'remote',
        tools: [
          {
            name: 'twice',
            description: 'Doubles n',
            handler: ({ n }: Record<string, unknown>) => Number(n) * 2,
          },
          { name: 'secret', description: 'Left out', handler: () => 'no' },
        ],
      }),
      { port: 0, grpcPort: false },
    );
    api = createHttpServer((req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      if (req.url === '/docs/openapi.json') return void res.end(JSON.stringify(SERVED_DOCUMENT));
      res.end(JSON.stringify({ path: req.url, auth: req.headers.authorization ?? null }));
    });
    await new Promise<void>((r) => api.listen(0, '127.0.0.1', r));
    apiUrl = `http://127.0.0.1:${(api.address() as { port: number }).port}`;

    const notes = createServer({
      name: 'notes',
      tools: [{ name: 'count', description: 'How many notes', handler: () => 3 }],
      resources: [{ uri: 'notes://all', name: 'all', mimeType: 'text/plain', read: () => 'a, b, c' }],
      resourceTemplates: [
        { uriTemplate: 'notes://note/{id}', name: 'note', read: (_uri, { id }) => `note ${id}` },
      ],
      prompts: [
        {
          name: 'summarise',
          description: 'Summarise a note',
          arguments: [{ name: 'id', required: true }],
          handler: ({ id }) => `Summarise note ${id}`,
        },
      ],
    });
    const mounted = mount(notes, { prefix: 'notes', tools: { rename: { count: 'total' } } });
    proxied = await proxyTools(`${remote.url}/mcp-lite/v1/`, {
      prefix: 'remote',
      tools: { exclude: ['secret'], describe: { twice: 'Two times n' } },
    });
    const fromApi = await openApiTools(
      {
        openapi: '3.1.0',
        info: { title: 'Echo API', version: '1' },
        paths: {
          '/items/{id}': {
            get: {
              tags: ['items'],
              parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
              responses: { '200': { description: 'the echo' } },
            },
          },
          '/admin': {
            get: { operationId: 'admin', tags: ['admin'], responses: { '200': { description: 'x' } } },
          },
        },
      },
      { baseUrl: apiUrl, headers: { Authorization: 'Bearer api-key' }, include: ['items'] },
    );
    host = await serve(
      createServer({
        name: 'host',
        tools: [...mounted.tools, ...proxied, ...fromApi.map((t) => ({ ...t, name: `api_${t.name}` }))],
        resources: mounted.resources,
        resourceTemplates: mounted.resourceTemplates,
        prompts: mounted.prompts,
        authenticate: bearerAuth([TOKEN]),
      }),
      { port: 0, grpcPort: false },
    );
    sdk = new SdkClient({ name: 't', version: '1' });
    await sdk.connect(
      new StreamableHTTPClientTransport(new URL(`${host.url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${TOKEN}` } },
      }),
    );
  });

  afterAll(async () => {
    await sdk?.close();
    await host?.close(200);
    await proxied?.close();
    await remote?.close(200);
    api?.close();
  });

  it('lists every part namespaced, transforms applied', async () => {
    const tools = (await sdk.listTools()).tools;
    expect(tools.map((t) => t.name).sort()).toEqual(['api_get_items_id', 'notes_total', 'remote_twice']);
    expect(tools.find((t) => t.name === 'remote_twice')?.description).toBe('Two times n');
    expect((await sdk.listResources()).resources).toEqual([
      expect.objectContaining({ uri: 'notes://notes/all', name: 'notes_all' }),
    ]);
    expect((await sdk.listResourceTemplates()).resourceTemplates).toEqual([
      expect.objectContaining({ uriTemplate: 'notes://notes/note/{id}', name: 'notes_note' }),
    ]);
    expect((await sdk.listPrompts()).prompts.map((p) => p.name)).toEqual(['notes_summarise']);
  });

  it('calls, reads and renders through the host', async () => {
    expect((await sdk.callTool({ name: 'notes_total', arguments: {} })).structuredContent).toEqual({
      result: 3,
    });
    const twice = await sdk.callTool({ name: 'remote_twice', arguments: { n: 21 } });
    expect(JSON.stringify(twice)).toContain('42');
    const echoed = await sdk.callTool({ name: 'api_get_items_id', arguments: { id: 'a/b' } });
    expect(JSON.stringify(echoed)).toContain('/items/a%2Fb');
    expect(JSON.stringify(echoed)).toContain('Bearer api-key');
    expect((await sdk.readResource({ uri: 'notes://notes/all' })).contents[0]).toMatchObject({
      text: 'a, b, c',
    });
    expect((await sdk.readResource({ uri: 'notes://notes/note/7' })).contents[0]).toMatchObject({
      text: 'note 7',
    });
    const prompt = await sdk.getPrompt({ name: 'notes_summarise', arguments: { id: '4' } });
    expect(prompt.messages[0]!.content).toMatchObject({ text: 'Summarise note 4' });
  });

  it('reads a document by URL: its $refs resolved, its relative server against the document', async () => {
    const tools = await openApiTools(`${apiUrl}/docs/openapi.json`);
    expect(tools.map((t) => t.name)).toEqual(['listThings']);
    expect(tools[0]!.inputSchema).toMatchObject({ properties: { limit: { type: 'integer' } } });
    const ctx = { signal: new AbortController().signal } as Parameters<(typeof tools)[0]['handler']>[1];
    expect(await tools[0]!.handler({ limit: 2 }, ctx)).toMatchObject({ path: '/v1/things?limit=2' });
  });

  it('reads a YAML file whose $refs name another file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcplite-openapi-'));
    try {
      writeFileSync(
        join(dir, 'api.yaml'),
        [
          'openapi: 3.0.3',
          "info: {title: t, version: '1'}",
          `servers: [{url: '${apiUrl}/yaml'}]`,
          'paths:',
          '  /a:',
          '    get:',
          '      operationId: getA',
          "      parameters: [{$ref: 'params.yaml#/Q'}]",
          "      responses: {'200': {description: ok}}",
        ].join('\n'),
      );
      writeFileSync(join(dir, 'params.yaml'), 'Q: {name: q, in: query, schema: {type: string}}\n');
      const [tool] = await openApiTools(join(dir, 'api.yaml'));
      expect(tool!.inputSchema).toEqual({ type: 'object', properties: { q: { type: 'string' } } });
      const ctx = { signal: new AbortController().signal } as Parameters<
        NonNullable<typeof tool>['handler']
      >[1];
      expect(await tool!.handler({ q: 'x y' }, ctx)).toMatchObject({ path: '/yaml/a?q=x+y' });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("the host's authentication applies to the composed tools", async () => {
    const res = await fetch(`${host.url}/mcp-lite/v1/calltools`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'remote_twice', arguments: { n: 1 } },
      }),
    });
    expect(res.status).toBe(401);
  });
});
