/**
 * The Webtools binding over real sockets, on the demo's `documents` webtool (two published versions): the
 * metadata of the webtool and its versions, the webtools list, unknown webtools and versions, wrong methods.
 */
import { describe, expect, it } from 'vitest';
import {
  demo,
  type Envelope,
  expectError,
  get,
  post,
  url,
  useDemoServer,
} from './webtools-binding.fixtures.js';

useDemoServer();

describe('metadata', () => {
  it('GET the webtool: the latest version with every published version listed', async () => {
    const { status, body } = await get();
    expect(status).toBe(200);
    expect(body).toMatchObject({
      name: 'documents',
      description: expect.any(String),
      version: '1.1.0',
      versions: ['1.0.0', '1.1.0'],
      defaultConfig: { excerptLength: 200, includeScores: true },
      configSchema: { type: 'object', properties: { includeScores: { type: 'boolean' } } },
    });
    const names = body.actions.map((a: { name: string }) => a.name);
    for (const n of [
      'search_documents',
      'get_document',
      'analyze_dataset',
      'generate_report',
      'export_documents',
    ])
      expect(names).toContain(n);
    for (const a of body.actions) {
      expect(Object.keys(a)).toEqual(
        expect.arrayContaining(['name', 'description', 'requestSchema', 'responseSchema']),
      );
    }
  });

  it('GET /1.0.0: the older version, whose metadata differs', async () => {
    const [latest, old] = [(await get()).body, (await get('1.0.0')).body];
    expect(old.version).toBe('1.0.0');
    expect(old.versions).toEqual(['1.0.0', '1.1.0']);
    const names = old.actions.map((a: { name: string }) => a.name);
    expect(names).not.toContain('export_documents');
    expect(old.defaultConfig).toEqual({ excerptLength: 200 });
    expect(old.configSchema.properties.includeScores).toBeUndefined();
    const search = (m: any) => m.actions.find((a: { name: string }) => a.name === 'search_documents');
    expect(search(old).responseSchema.items.properties.score).toBeUndefined();
    expect(search(latest).responseSchema.items.properties.score).toBeDefined();
    expect((await get('1.1.0')).body).toEqual(latest);
  });

  it('an unknown version is 404 WEBTOOL_NOT_FOUND, a malformed one 400 SCHEMA_ERROR', async () => {
    const unknown = await get('9.9.9');
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({
      status: 'error',
      error: { code: 'WEBTOOL_NOT_FOUND', details: { available_versions: ['1.1.0', '1.0.0'] } },
    });
    for (const bad of ['latest', '1.0', 'v1.0.0', '1.0.0.0', '%E0%A4%A']) {
      const r = await get(bad);
      expect([r.status, r.body.error?.code], bad).toEqual(
        bad.startsWith('%') ? [404, 'NOT_FOUND'] : [400, 'SCHEMA_ERROR'],
      );
    }
  });

  it('an unknown webtool is 404 WEBTOOL_NOT_FOUND for GET and POST', async () => {
    const res = await fetch(`${demo.running.url}/webtools/nope/`);
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({
      status: 'error',
      error: { code: 'WEBTOOL_NOT_FOUND', details: { available_webtools: ['documents'] } },
    });
    const posted = await post({ action: 'x', request: {} }, {}, `${demo.running.url}/webtools/nope`);
    expectError(posted, 404, 'WEBTOOL_NOT_FOUND');
  });

  it('GET /webtools/ lists the webtools; other methods are 405 with Allow', async () => {
    const res = await fetch(`${demo.running.url}/webtools/`);
    expect(await res.json()).toEqual({ webtools: [{ name: 'documents', url: '/webtools/documents/' }] });
    const put = await fetch(url, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(put.status).toBe(405);
    expect(put.headers.get('allow')).toBe('GET, POST');
    expect(((await put.json()) as Envelope).error!.code).toBe('METHOD_NOT_ALLOWED');
    const postVersion = await post({ action: 'get_document', request: {} }, {}, `${url}1.0.0`);
    expectError(postVersion, 405, 'METHOD_NOT_ALLOWED');
  });
});
