/**
 * An OpenAPI service behind the gateway never carries its credentials anywhere but where they were configured: a
 * path parameter is one segment (`.` and `..` refused), the request stays under `baseUrl`, a document fetched by
 * URL cannot send the API key to another origin through its `servers`, and the document is read with a byte and
 * a time bound. Real HTTP APIs record every path and header they receive.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openApiTools } from '../../src/gateway/openapi.js';
import { type InProcessGateway, recordingApi, startGateway } from '../support/gateway-in-process.js';

const KEY = 'the-api-key';
const ok = { '200': { description: 'ok' } };
const path = (name: string) => ({ name, in: 'path', required: true, schema: { type: 'string' } });

const DOCUMENT = {
  openapi: '3.0.3',
  info: { title: 'Items', version: '1' },
  paths: {
    '/items/{a}/{b}': { get: { operationId: 'pair', parameters: [path('a'), path('b')], responses: ok } },
    '/admin/{x}': { get: { operationId: 'admin', parameters: [path('x')], responses: ok } },
  },
};

describe('OpenAPI credentials go where they were configured', { timeout: 60_000 }, () => {
  let api: Awaited<ReturnType<typeof recordingApi>>;
  let elsewhere: Awaited<ReturnType<typeof recordingApi>>;
  let gw: InProcessGateway;

  beforeAll(async () => {
    elsewhere = await recordingApi();
    api = await recordingApi((req, res) => {
      const served: Record<string, object> = {
        '/docs/items.json': DOCUMENT,
        '/docs/moved.json': { ...DOCUMENT, servers: [{ url: `${elsewhere.origin}/api` }] },
      };
      const doc = served[req.url ?? ''];
      if (!doc) return false;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(doc));
      return true;
    });
    gw = await startGateway(
      {
        mcpServers: {
          items: {
            openapi: `${api.origin}/docs/items.json`,
            baseUrl: `${api.origin}/api/v2`,
            apiKeyEnv: 'ITEMS_KEY',
            include: ['/items'],
          },
          moved: { openapi: `${api.origin}/docs/moved.json`, apiKeyEnv: 'ITEMS_KEY' },
        },
      },
      { env: { ITEMS_KEY: KEY } },
    );
  });

  afterAll(async () => {
    await gw?.close();
    await api?.close();
    await elsewhere?.close();
  });

  const callsTo = (server: typeof api) => server.received.filter((r) => !r.path.startsWith('/docs/'));

  it('a path parameter is one segment; "." and ".." are refused and nothing leaves baseUrl', async () => {
    expect((await gw.client.listTools()).map((t) => t.name)).toContain('items_pair');
    expect(await gw.client.call('items_pair', { a: 'x/y', b: 'z?q=1#f' })).toMatchObject({
      type: 'answer',
      value: { path: '/api/v2/items/x%2Fy/z%3Fq%3D1%23f' },
    });
    for (const [a, b] of [
      ['..', '..'],
      ['.', '..'],
      ['..', 'admin'],
      ['x', '.'],
    ]) {
      await expect(gw.client.call('items_pair', { a, b })).rejects.toMatchObject({ code: 'invalid_params' });
    }
    const paths = callsTo(api).map((r) => r.path);
    expect(paths).toEqual(['/api/v2/items/x%2Fy/z%3Fq%3D1%23f']);
    for (const r of callsTo(api)) expect(r.headers['x-api-key']).toBe(KEY);
  });

  it("a fetched document's servers cannot move the API key to another origin", async () => {
    const names = (await gw.client.listTools()).map((t) => t.name);
    for (const name of names.filter((n) => n.startsWith('moved_')))
      await gw.client.call(name, { a: 'a', b: 'b', x: 'x' }).catch(() => {});
    expect(elsewhere.received.filter((r) => r.headers['x-api-key'] !== undefined)).toEqual([]);
    expect(names.filter((n) => n.startsWith('moved_'))).toEqual([]);
    const refused = gw.logs.find((l) => l.msg === 'upstream tools not listed' && l.fields.server === 'moved');
    expect(String(refused?.fields.error)).toContain('baseUrl');
    expect(JSON.stringify(gw.logs)).not.toContain(KEY);
  });
});

describe('the OpenAPI document is read with a byte and a time bound', { timeout: 30_000 }, () => {
  let api: Awaited<ReturnType<typeof recordingApi>>;

  beforeAll(async () => {
    api = await recordingApi((req, res) => {
      if (req.url === '/huge.json') {
        // A valid document padded past 16 MiB: only a bound enforced while reading refuses it.
        res.writeHead(200, { 'content-type': 'application/json' });
        const pad = ' '.repeat(1024 * 1024);
        for (let i = 0; i < 17; i++) res.write(pad);
        res.end(JSON.stringify({ ...DOCUMENT, servers: [{ url: '/api' }] }));
        return true;
      }
      if (req.url === '/slow.json') {
        // Headers, the start of a body, then nothing.
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write('{"openapi": ');
        return true;
      }
      return false;
    });
  });

  afterAll(async () => {
    await api?.close();
  });

  it('a document past 16 MiB is refused, named', async () => {
    await expect(openApiTools(`${api.origin}/huge.json`)).rejects.toThrow(/larger than 16777216 bytes/);
  });

  it('a document that never ends is given up after timeoutMs', async () => {
    const started = Date.now();
    await expect(openApiTools(`${api.origin}/slow.json`, { timeoutMs: 1000 })).rejects.toThrow(
      /not read within 1000 ms/,
    );
    // A safety net, far above the bound: without it the parser waits 30 s.
    expect(Date.now() - started).toBeLessThan(20_000);
  });
});
