import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serverOptions, tools } from '../../../examples/demo/index.js';
import {
  rawPost,
  rawRequest,
  readSse,
  startServer,
  type TestServer,
} from '../../../test/support/http-harness.js';
import { bearerAuth } from '../../core/auth.js';
import { McpLiteError } from '../../core/errors.js';

/** The Webtools binding over real sockets, on the demo's `documents` webtool (two published versions). */

const ajv = new Ajv2020({ strict: false, allErrors: true });
const addFormats = ((addFormatsModule as any).default ?? addFormatsModule) as (a: unknown) => void;
addFormats(ajv);

let demo: TestServer;
let url: string;
beforeAll(async () => {
  demo = await startServer({ ...serverOptions, tools });
  url = `${demo.running.url}/webtools/documents/`;
});
afterAll(() => demo.close());

type Envelope = {
  status: string;
  data?: any;
  error?: { code: string; message: string; details?: any };
} & Record<string, any>;

async function post(body: unknown, headers: Record<string, string> = {}, to = url) {
  const res = await fetch(to, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  expect(res.headers.get('content-type')).toBe('application/json');
  return { status: res.status, headers: res.headers, body: (await res.json()) as Envelope };
}

async function get(path = '') {
  const res = await fetch(`${url}${path}`);
  expect(res.headers.get('content-type')).toBe('application/json');
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}

function expectError(r: { status: number; body: Envelope }, status: number, code: string): void {
  expect({ status: r.status, envelope: r.body.status, code: r.body.error?.code }).toEqual({
    status,
    envelope: 'error',
    code,
  });
  expect(r.body.error!.message).toEqual(expect.any(String));
}

/** The response schema of an action in a version's metadata, compiled. */
async function responseValidator(action: string, version = '') {
  const meta = await get(version);
  const schema = meta.body.actions.find((a: { name: string }) => a.name === action).responseSchema;
  return ajv.compile(schema);
}

function expectMatches(validate: ReturnType<typeof ajv.compile>, data: unknown): void {
  const ok = validate(data);
  expect(validate.errors ?? []).toEqual([]);
  expect(ok).toBe(true);
}

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

describe('the outcome extension, end to end', () => {
  it('promise: 202 pending, redeemed by the redeem action and by GET promises/<token>', async () => {
    const started = await post({
      action: 'analyze_dataset',
      request: { dataset_id: 'all', analysis_type: 'summary' },
    });
    expect(started.status).toBe(202);
    expect(started.body).toMatchObject({
      status: 'pending',
      promise: expect.stringMatching(/^prom_/),
      redeem: { action: 'redeem', request: { promise: started.body.promise } },
    });
    expect(Date.parse(started.body.estimated_completion)).not.toBeNaN();
    const early = await fetch(`${url}promises/${started.body.promise}`);
    expect(early.status).toBe(202);
    const redeemed = await post({
      action: 'redeem',
      request: { promise: started.body.promise, wait_ms: 20_000 },
    });
    expect(redeemed.status).toBe(200);
    expectMatches(await responseValidator('analyze_dataset'), redeemed.body.data);
    expect(redeemed.body.data).toMatchObject({ dataset_id: 'all', analysis_type: 'summary' });
    const again = await fetch(`${url}promises/${started.body.promise}`);
    expect(again.status).toBe(200);
    expect(((await again.json()) as Envelope).data).toEqual(redeemed.body.data);
    const unknown = await fetch(`${url}promises/prom_${'Q'.repeat(32)}`);
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as Envelope).error!.code).toBe('PROMISE_NOT_FOUND');
  }, 30_000);

  it('elicitation: input_required with a signed state, answered by a POST with it', async () => {
    const asked = await post({ action: 'subscribe_digest', request: { category: 'security' } });
    expect(asked.status).toBe(200);
    expect(asked.body).toMatchObject({
      status: 'input_required',
      input: { message: expect.stringContaining('email'), requested_schema: { type: 'object' } },
    });
    const state = asked.body.input.state;
    expect(state).toEqual(expect.any(String));
    const answers = { email: 'a@example.com', frequency: 'weekly' };
    const done = await post({ action: 'subscribe_digest', request: {}, elicitation: { state, answers } });
    expect(done.status).toBe(200);
    expectMatches(await responseValidator('subscribe_digest'), done.body.data);
    expect(done.body.data).toMatchObject({
      subscribed: true,
      category: 'security',
      email: 'a@example.com',
    });
    const forged = await post({
      action: 'subscribe_digest',
      request: {},
      elicitation: { state: `${state}x`, answers },
    });
    expectError(forged, 400, 'SCHEMA_ERROR');
  });

  it('request-for-more-resource: 422 RESOURCE_REQUIRED with what and how much; enough budget answers', async () => {
    const r = await post({ action: 'export_documents', request: { category: 'security', max_rows: 1 } });
    expectError(r, 422, 'RESOURCE_REQUIRED');
    expect(r.body.error!.details).toMatchObject({ resource: 'rows', granted: 1, unit: 'documents' });
    const needed = r.body.error!.details.requested;
    const ok = await post({
      action: 'export_documents',
      request: { category: 'security', max_rows: needed },
    });
    expect(ok.status).toBe(200);
    expectMatches(await responseValidator('export_documents'), ok.body.data);
  });

  it('streaming: Accept text/event-stream gives partials, then done with the envelope', async () => {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({ action: 'generate_report', request: { topic: 'MCP specification' } }),
    });
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    const events = (await readSse(res)).filter((e) => e.event !== 'heartbeat');
    const partials = events.filter((e) => e.event === 'message').map((e) => e.data.partial);
    expect(partials.length).toBeGreaterThan(1);
    const last = events.at(-1)!;
    expect(last.event).toBe('done');
    expect(last.data).toEqual({ status: 'ok', data: partials.join('') });
    expectMatches(await responseValidator('generate_report'), last.data.data);
    const bad = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({ action: 'generate_report', request: {} }),
    });
    // A stream has begun before the call is checked, so even a protocol error ends it as an `error` event.
    expect(bad.status).toBe(200);
    const [error] = await readSse(bad);
    expect(error).toMatchObject({
      event: 'error',
      data: { status: 'error', error: { code: 'SCHEMA_ERROR' } },
    });
  });
});

describe('errors of other servers', () => {
  it('INTERNAL_ERROR 500 leaks nothing; a thrown protocol error keeps its code', async () => {
    const t = await startServer({
      tools: [
        {
          name: 'boom',
          handler: () => {
            throw new Error('secret at /srv/app.js');
          },
        },
        {
          name: 'late',
          handler: () => {
            throw new McpLiteError('deadline_exceeded', 'Upstream timed out');
          },
        },
      ],
    });
    try {
      const wt = `${t.running.url}/webtools/mcplite/`;
      const r = await post({ action: 'boom', request: {} }, {}, wt);
      expect(r).toMatchObject({
        status: 500,
        body: { status: 'error', error: { code: 'INTERNAL_ERROR', message: 'Internal error' } },
      });
      expect(JSON.stringify(r.body)).not.toContain('secret');
      expectError(await post({ action: 'late', request: {} }, {}, wt), 504, 'TIMEOUT');
      // Without a declaration the whole catalog is one webtool named after the server.
      const meta = (await (await fetch(wt)).json()) as Record<string, any>;
      expect(meta.actions.map((a: { name: string }) => a.name)).toEqual(['redeem', 'cancel', 'boom', 'late']);
    } finally {
      await t.close();
    }
  });

  it('bearer auth: 401 UNAUTHENTICATED with a challenge on every route; the token opens them', async () => {
    const t = await startServer({ ...serverOptions, tools, authenticate: bearerAuth(['s3cret']) });
    try {
      const wt = `${t.running.url}/webtools/documents/`;
      const meta = await fetch(wt);
      expect(meta.status).toBe(401);
      expect(meta.headers.get('www-authenticate')).toBe('Bearer realm="mcplite"');
      expect(((await meta.json()) as Envelope).error!.code).toBe('UNAUTHENTICATED');
      const wrong = await post(
        { action: 'get_document', request: { document_id: 'doc_001' } },
        { authorization: 'Bearer nope' },
        wt,
      );
      expectError(wrong, 401, 'UNAUTHENTICATED');
      expect(wrong.headers.get('www-authenticate')).toContain('invalid_token');
      const right = await post(
        { action: 'get_document', request: { document_id: 'doc_001' } },
        { authorization: 'Bearer s3cret' },
        wt,
      );
      expect(right.status).toBe(200);
      expect((await fetch(wt, { headers: { authorization: 'Bearer s3cret' } })).status).toBe(200);
    } finally {
      await t.close();
    }
  });

  it('rate limit under a burst: the burst passes, the rest is 429 RATE_LIMIT with Retry-After', async () => {
    const t = await startServer({ ...serverOptions, tools, rateLimit: { requestsPerSecond: 0.2, burst: 5 } });
    try {
      const wt = `${t.running.url}/webtools/documents/`;
      const replies = await Promise.all(
        Array.from({ length: 20 }, () =>
          post({ action: 'get_document', request: { document_id: 'doc_001' } }, {}, wt),
        ),
      );
      const ok = replies.filter((r) => r.status === 200);
      const limited = replies.filter((r) => r.status === 429);
      expect(ok.length).toBeGreaterThanOrEqual(5);
      expect(ok.length).toBeLessThanOrEqual(6);
      expect(ok.length + limited.length).toBe(20);
      for (const r of limited) {
        expectError(r, 429, 'RATE_LIMIT');
        expect(Number(r.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
        expect(r.body.error!.details.retryAfterMs).toBeGreaterThan(0);
      }
      // Metadata is not a call: it stays readable while the caller is limited.
      expect((await fetch(wt)).status).toBe(200);
    } finally {
      await t.close();
    }
  });
});

describe('ctx.config on every binding', () => {
  const settings = {
    name: 'settings',
    description: 'Answers the config it was given',
    handler: (_args: unknown, ctx: { config: unknown }) => ({ config: ctx.config }),
  };
  const webtool = {
    name: 'tuned',
    version: '2.0.0',
    actions: ['settings'],
    configSchema: {
      type: 'object',
      properties: { level: { type: 'integer' }, mode: { type: 'string', default: 'fast' } },
    },
    defaultConfig: { level: 1 },
  };

  async function configs(options: Record<string, unknown>) {
    const t = await startServer({ tools: [settings], webtools: [webtool], ...options });
    try {
      const http = (await (
        await fetch(t.rpcUrl, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'settings' } }),
        })
      ).json()) as any;
      const wt = `${t.running.url}/webtools/tuned/`;
      const plain = await post({ action: 'settings', request: {} }, {}, wt);
      const given = await post({ action: 'settings', request: {}, config: { level: 7 } }, {}, wt);
      return {
        http: http.result.content.config,
        plain: plain.body.data.config,
        given: given.body.data.config,
      };
    } finally {
      await t.close();
    }
  }

  it("other bindings see the webtool's default config; Webtools merges the request's over it", async () => {
    // The schema's defaults are filled in when the config is checked, the default config's included.
    expect(await configs({})).toEqual({
      http: { level: 1, mode: 'fast' },
      plain: { level: 1, mode: 'fast' },
      given: { level: 7, mode: 'fast' },
    });
  });

  it('a server-side config is what the other bindings see', async () => {
    expect(await configs({ config: { level: 3, region: 'eu' } })).toEqual({
      http: { level: 3, region: 'eu' },
      plain: { level: 1, mode: 'fast' },
      given: { level: 7, mode: 'fast' },
    });
  });

  it('definitions are checked when the server is created', async () => {
    const { createServer } = await import('../../create-server.js');
    const make = (w: Record<string, unknown>) => () =>
      createServer({ tools: [settings], webtools: [{ ...webtool, ...w }] as any });
    expect(make({ actions: ['nope'] })).toThrow(/no tool named "nope"/);
    expect(make({ version: 'two' })).toThrow(/semantic version/);
    expect(make({ versions: [{ version: '3.0.0' }] })).toThrow(/lower than the latest/);
    expect(make({ defaultConfig: { level: 'high' } })).toThrow(/level/);
    expect(make({ name: 'a/b' })).toThrow(/Invalid webtool name/);
  });
});
