/**
 * The Webtools binding over real sockets, on the demo's `documents` webtool: executing actions, with config
 * and pinned versions, and the errors of bad envelopes, requests, configs, actions, non-JSON or huge bodies.
 */
import { describe, expect, it } from 'vitest';
import { rawPost, rawRequest } from '../support/http-harness.js';
import {
  demo,
  type Envelope,
  expectError,
  expectMatches,
  post,
  responseValidator,
  url,
  useDemoServer,
} from './webtools-binding.fixtures.js';

useDemoServer();

describe('execute', () => {
  const search = { action: 'search_documents', request: { query: 'MCP specification', limit: 5 } };

  it('answers {status:"ok", data} matching the action responseSchema', async () => {
    const r = await post(search);
    expect(r.status).toBe(200);
    expect(r.body.status).toBe('ok');
    expect(r.body.data.length).toBeGreaterThan(0);
    expectMatches(await responseValidator('search_documents'), r.body.data);
    for (const hit of r.body.data) expect(hit.score).toEqual(expect.any(Number));
  });

  it('config reaches the handler: excerptLength and includeScores change the results', async () => {
    const short = await post({ ...search, config: { excerptLength: 40 } });
    const long = await post({ ...search, config: { excerptLength: 1000 } });
    const noScores = await post({ ...search, config: { includeScores: false } });
    for (const hit of short.body.data) expect(hit.excerpt.length).toBeLessThanOrEqual(43);
    const total = (r: typeof short) => r.body.data.reduce((n: number, h: any) => n + h.excerpt.length, 0);
    expect(total(long)).toBeGreaterThan(total(short));
    for (const hit of noScores.body.data) expect(hit).not.toHaveProperty('score');
    expect(noScores.body.data.map((h: any) => h.document_id)).toEqual(
      short.body.data.map((h: any) => h.document_id),
    );
    const validate = await responseValidator('search_documents');
    for (const r of [short, long, noScores]) expectMatches(validate, r.body.data);
  });

  it('config breaking configSchema is 400 CONFIG_ERROR naming the setting', async () => {
    const cases = [{ excerptLength: 'long' }, { excerptLength: 5 }, { colour: 'red' }, [1], 'x'];
    for (const config of cases) {
      const r = await post({ ...search, config });
      expectError(r, 400, 'CONFIG_ERROR');
    }
    const r = await post({ ...search, config: { excerptLength: 'long' } });
    expect(r.body.error!.message).toContain('excerptLength');
  });

  it('a pinned old version is validated against its own schemas and runs its own handler', async () => {
    const old = await post({ ...search, version: '1.0.0' });
    expect(old.status).toBe(200);
    expectMatches(await responseValidator('search_documents', '1.0.0'), old.body.data);
    for (const hit of old.body.data)
      expect(Object.keys(hit).sort()).toEqual(['document_id', 'excerpt', 'title']);
    // 1.0.0's configSchema knows no includeScores and caps excerptLength at 500; 1.1.0 allows both.
    expectError(
      await post({ ...search, version: '1.0.0', config: { includeScores: false } }),
      400,
      'CONFIG_ERROR',
    );
    expectError(
      await post({ ...search, version: '1.0.0', config: { excerptLength: 800 } }),
      400,
      'CONFIG_ERROR',
    );
    expect((await post({ ...search, version: '1.1.0', config: { excerptLength: 800 } })).status).toBe(200);
    // An action 1.0.0 did not publish is unknown there.
    const missing = await post({ version: '1.0.0', action: 'export_documents', request: {} });
    expectError(missing, 404, 'ACTION_NOT_FOUND');
  });

  it('version: unknown is 404 WEBTOOL_NOT_FOUND, wrong format 400 SCHEMA_ERROR', async () => {
    expectError(await post({ ...search, version: '2.0.0' }), 404, 'WEBTOOL_NOT_FOUND');
    for (const version of ['2', 'latest', 1, null, '1.0.0 ']) {
      const r = await post({ ...search, version });
      expectError(r, 400, 'SCHEMA_ERROR');
      expect(r.body.error!.message).toContain('version');
    }
  });

  it('a request breaking requestSchema is 400 SCHEMA_ERROR naming the field', async () => {
    const missing = await post({ action: 'search_documents', request: { limit: 3 } });
    expectError(missing, 400, 'SCHEMA_ERROR');
    expect(missing.body.error!.message).toContain('query');
    const wrongType = await post({ action: 'search_documents', request: { query: 'x', limit: 'ten' } });
    expectError(wrongType, 400, 'SCHEMA_ERROR');
    expect(wrongType.body.error!.message).toContain('limit');
    expect(wrongType.body.error!.details.errors[0].field).toBe('limit');
  });

  it('malformed JSON, a missing or wrong-typed action, bad envelopes are 400 SCHEMA_ERROR', async () => {
    const bodies: unknown[] = [
      '{"action": "search_documents", ',
      'not json',
      '[]',
      '"text"',
      'null',
      { request: { query: 'x' } },
      { action: 7, request: {} },
      { action: '', request: {} },
      { action: 'search_documents', request: 'query' },
      { action: 'search_documents', request: [] },
      { action: 'search_documents', request: { query: 'x' }, sessionId: 5 },
      { action: 'search_documents', request: { query: 'x' }, sessionId: 'x'.repeat(300) },
      { action: 'subscribe_digest', request: {}, elicitation: 'yes' },
    ];
    for (const body of bodies) {
      const r = await post(body);
      expect([r.status, r.body.status, r.body.error?.code], JSON.stringify(body)).toEqual([
        400,
        'error',
        'SCHEMA_ERROR',
      ]);
    }
    const action = await post({ request: {} });
    expect(action.body.error!.message).toContain('action');
  });

  it('sessionId is accepted and changes nothing (the server is stateless)', async () => {
    const r = await post({ ...search, sessionId: 'a-session' });
    expect(r.body.data).toEqual((await post(search)).body.data);
  });

  it('an unknown action is 404 ACTION_NOT_FOUND with the actions and a suggestion', async () => {
    const r = await post({ action: 'search_document', request: {} });
    expectError(r, 404, 'ACTION_NOT_FOUND');
    expect(r.body.error!.details).toMatchObject({
      requested_action: 'search_document',
      suggestion: "Did you mean 'search_documents'?",
    });
    expect(r.body.error!.details.available_actions).toContain('get_document');
    // A catalog tool the webtool does not list is not an action of it.
    expectError(await post({ action: 'echo', request: { message: 'x' } }), 404, 'ACTION_NOT_FOUND');
  });

  it("a tool's business failure is status error with the tool's own code and a 4xx", async () => {
    const r = await post({ action: 'get_document', request: { document_id: 'doc_none' } });
    expectError(r, 422, 'not_found');
    expect(r.body.error!.details).toMatchObject({ document_id: 'doc_none' });
    const found = await post({ action: 'get_document', request: { document_id: 'doc_001' } });
    expect(found.status).toBe(200);
    expectMatches(await responseValidator('get_document'), found.body.data);
  });

  it('415 for a non-JSON body, 413 for an oversized one, both as envelopes', async () => {
    const text = await fetch(url, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: '{}' });
    expect(text.status).toBe(415);
    expect(((await text.json()) as Envelope).error!.code).toBe('UNSUPPORTED_MEDIA_TYPE');
    const big = await rawRequest(
      demo.port,
      rawPost('/webtools/documents/', demo.port, {
        'content-type': 'application/json',
        'content-length': 5e7,
      }),
    );
    expect(big.status).toBe(413);
    expect(big.headers['content-type']).toBe('application/json');
    expect(JSON.parse(big.body).error.code).toBe('PAYLOAD_TOO_LARGE');
  });
});
