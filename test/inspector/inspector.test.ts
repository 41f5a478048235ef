/**
 * The inspector's page and local API over real sockets: the page and its token, the guards that keep other
 * websites from driving it, bounded state and hostile input, and the MCP-lite HTTP target against a live demo
 * server over the network (what `mcplite inspect <url>` uses).
 */
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serverOptions, tools } from '../../examples/demo/index.js';
import { listenNode, type NodeListening } from '../../src/adapters/node.js';
import { createServer } from '../../src/create-server.js';
import { checkInspectorRequest } from '../../src/inspector/guard.js';
import { createInspector, type Inspector } from '../../src/inspector/index.js';
import { createMcpLiteHttpTarget } from '../../src/inspector/targets/mcp-lite-http.js';
import { fetchTransport } from '../../src/inspector/targets/transport.js';
import { type RunningServer, serve } from '../../src/serve.js';
import { events, type Reply, send } from './inspector.fixtures.js';

describe('inspector API (inspecting a demo server over the network)', () => {
  let demo: RunningServer;
  let inspector: Inspector;
  let listening: NodeListening;
  let port: number;
  const api = (token = inspector.token) => ({
    'x-mcplite-inspector': token,
    'content-type': 'application/json',
  });
  const post = (route: string, body: unknown, headers: Record<string, string> = api()) =>
    send(port, 'POST', `/inspector/api/${route}`, headers, JSON.stringify(body));

  beforeAll(async () => {
    demo = await serve(createServer({ ...serverOptions, tools }), { port: 0 });
    const base = `${demo.url}/mcp-lite/v1/`;
    inspector = createInspector({
      target: createMcpLiteHttpTarget({ transport: fetchTransport(base), target: base }),
      maxBodyBytes: 4096,
      maxInFlight: 2,
      maxPendingElicitations: 1,
    });
    listening = await listenNode(inspector.handler, { port: 0 });
    port = (listening.server.address() as AddressInfo).port;
  });

  afterAll(async () => {
    await listening?.close();
    await demo?.close(500);
  });

  it('serves nothing (page, files, API) to a request that holds neither the token nor its cookie', async () => {
    for (const path of ['/inspector/', '/inspector', '/inspector/assets/app.js', '/inspector/api/info']) {
      const refused = await send(port, 'GET', path);
      expect(refused.status, path).toBe(403);
      expect(refused.body).not.toContain(inspector.token);
      expect(refused.headers['set-cookie']).toBeUndefined();
    }
    const wrong = await send(port, 'GET', `/inspector/?token=${'x'.repeat(inspector.token.length)}`);
    expect(wrong.status).toBe(403);
    expect(wrong.headers['set-cookie']).toBeUndefined();
    // Another local user's own cookie jar (a cookie it made up) gets nothing either.
    const forged = await send(port, 'GET', '/inspector/', { cookie: `mcplite-inspector-${port}=forged` });
    expect(forged.status).toBe(403);
  });

  it('exchanges the URL token for an HttpOnly, SameSite=Strict cookie, then serves the page without the token', async () => {
    const login = await send(port, 'GET', `/inspector/?token=${inspector.token}&x=1`);
    expect(login.status).toBe(303);
    expect(login.headers.location).toBe('/inspector/?x=1');
    const setCookie = String(login.headers['set-cookie']);
    expect(setCookie).toMatch(
      new RegExp(`^mcplite-inspector-${port}=[\\w-]{22}; Path=/inspector; HttpOnly; SameSite=Strict$`),
    );
    expect(setCookie).not.toContain(inspector.token);
    const cookie = setCookie.split(';')[0]!;
    const page = await send(port, 'GET', '/inspector/', { cookie });
    expect(page.status).toBe(200);
    expect(page.body).toContain('<title>mcplite inspector</title>');
    expect(page.body).not.toContain(inspector.token);
    expect(page.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(page.headers['cache-control']).toBe('no-store');
    const script = await send(port, 'GET', '/inspector/assets/app.js', { cookie });
    expect(script.status).toBe(200);
    expect(script.headers['content-type']).toMatch(/^text\/javascript/);
    expect((await send(port, 'GET', '/inspector', { cookie })).headers.location).toBe('/inspector/');
    // The bare path with the token lands on the page too.
    expect((await send(port, 'GET', `/inspector?token=${inspector.token}`)).headers.location).toBe(
      '/inspector/',
    );
    // The API takes the cookie only with the page's custom header (which no other origin can send unasked).
    expect((await send(port, 'GET', '/inspector/api/info', { cookie })).status).toBe(403);
    const info = await send(port, 'GET', '/inspector/api/info', { cookie, 'x-mcplite-inspector': 'page' });
    expect(info.status).toBe(200);
    expect(JSON.parse(info.body).binding).toBe('mcp-lite-http');
    // A script may put the token in an API URL instead of the header: answered, not redirected.
    expect((await send(port, 'GET', `/inspector/api/info?token=${inspector.token}`)).status).toBe(200);
    expect((await send(port, 'GET', '/elsewhere')).status).toBe(404);
  });

  it('refuses a foreign Host (DNS rebinding), a foreign Origin and cross-site fetches', async () => {
    const rebound = await send(port, 'GET', '/inspector/', { host: 'attacker.example:80' });
    expect(rebound.status).toBe(403);
    expect(rebound.body).not.toContain(inspector.token);
    const foreign = await send(port, 'GET', '/inspector/api/tools', {
      ...api(),
      origin: 'http://attacker.example',
    });
    expect(foreign.status).toBe(403);
    const crossSite = await send(port, 'GET', '/inspector/api/tools', {
      ...api(),
      'sec-fetch-site': 'cross-site',
    });
    expect(crossSite.status).toBe(403);
    const same = await send(port, 'GET', '/inspector/api/tools', {
      ...api(),
      origin: `http://127.0.0.1:${port}`,
    });
    expect(same.status).toBe(200);
  });

  it('requires the per-run token on every API route', async () => {
    expect((await send(port, 'GET', '/inspector/api/tools')).status).toBe(403);
    expect((await send(port, 'GET', '/inspector/api/tools', api('wrong-token-of-any-length'))).status).toBe(
      403,
    );
    const call = await post(
      'call',
      { tool: 'echo', arguments: { message: 'x' } },
      { 'content-type': 'application/json' },
    );
    expect(call.status).toBe(403);
  });

  it('answers only loopback peers unless remote use is allowed', () => {
    const from = (remoteAddress: string) => ({
      method: 'GET',
      path: '/inspector/',
      headers: { host: 'localhost:1' },
      readBody: async () => new Uint8Array(),
      signal: new AbortController().signal,
      remoteAddress,
    });
    expect(checkInspectorRequest(from('10.1.2.3'), {})?.code).toBe('forbidden');
    expect(checkInspectorRequest(from('::ffff:127.0.0.1'), {})).toBeUndefined();
    expect(checkInspectorRequest(from('10.1.2.3'), { allowRemote: true })).toBeUndefined();
  });

  it('lists the tools with the raw exchange', async () => {
    const reply = await send(port, 'GET', '/inspector/api/tools', api());
    const body = JSON.parse(reply.body);
    expect(body.binding).toBe('mcp-lite-http');
    expect(body.tools.map((t: { name: string }) => t.name)).toContain('search_documents');
    expect(body.exchange.request).toMatchObject({ method: 'POST', endpoint: 'listtools' });
    expect(body.exchange.response.status).toBe(200);
  });

  it('streams a call as request, partials and result', async () => {
    const reply = await post('call', { tool: 'generate_report', arguments: { topic: 'security' } });
    expect(reply.headers['content-type']).toBe('text/event-stream');
    const all = events(reply.body);
    expect(all[0]).toMatchObject({ event: 'request', data: { binding: 'mcp-lite-http' } });
    expect(all.filter((e) => e.event === 'partial').length).toBeGreaterThan(2);
    const result = all.at(-1)!;
    expect(result.event).toBe('result');
    expect(result.data.outcome.type).toBe('answer');
    expect(result.data.meta.response_type).toBe('answer');
    expect(result.data.exchange.response.events).toContain('event: done');
  });

  it('continues an elicitation it handed out, once, and bounds how many wait', async () => {
    const first = events((await post('call', { tool: 'subscribe_digest', arguments: {} })).body).at(-1)!.data;
    expect(first.outcome.type).toBe('elicitation');
    expect(first.elicitationId).toMatch(/^[A-Za-z0-9_-]{22}$/);
    // The bound is 1: the next elicitation is shown but cannot be answered here, and nothing was evicted.
    const second = events((await post('call', { tool: 'subscribe_digest', arguments: {} })).body).at(
      -1,
    )!.data;
    expect(second.elicitationId).toBeUndefined();
    expect(second.elicitationRefused).toMatch(/at most 1/);
    const values = { email: 'a@example.com', frequency: 'daily', category: 'security' };
    const answered = events((await post('answer', { id: first.elicitationId, values })).body).at(-1)!.data;
    expect(answered.outcome).toMatchObject({ type: 'answer', result: { subscribed: true } });
    expect(answered.exchange.request.body.params.elicitation.answers).toEqual(values);
    const again = await post('answer', { id: first.elicitationId, values });
    expect(again.status).toBe(400);
  });

  it('redeems and cancels promises', async () => {
    const call = events(
      (
        await post('call', {
          tool: 'analyze_dataset',
          arguments: { dataset_id: 'all', analysis_type: 'comprehensive' },
        })
      ).body,
    );
    const promise = call.at(-1)!.data.outcome;
    expect(promise.type).toBe('promise');
    const pending = events((await post('redeem', { token: promise.token })).body).at(-1)!.data;
    expect(pending.outcome.type).toBe('promise');
    const cancelled = events((await post('cancel', { token: promise.token })).body).at(-1)!.data;
    expect(cancelled.outcome).toMatchObject({ type: 'answer', result: { cancelled: true } });
    const unknown = events((await post('redeem', { token: 'prom_nope' })).body).at(-1)!.data;
    expect(unknown.outcome).toMatchObject({ type: 'error', error: { code: -32602 } });
  });

  it('refuses more rounds at once than its bound with 429', async () => {
    const slow = [
      post('call', { tool: 'generate_report', arguments: { topic: 'security' } }),
      post('call', { tool: 'generate_report', arguments: { topic: 'privacy' } }),
    ];
    await new Promise((r) => setTimeout(r, 100));
    const third = await post('call', { tool: 'echo', arguments: { message: 'x' } });
    expect(third.status).toBe(429);
    expect(JSON.parse(third.body).error.code).toBe('resource_exhausted');
    await Promise.all(slow);
    expect((await post('call', { tool: 'echo', arguments: { message: 'x' } })).status).toBe(200);
  });

  it('answers hostile input with clear errors and carries on', async () => {
    const cases: Array<[string, Promise<Reply>, number]> = [
      [
        'text/plain body',
        send(port, 'POST', '/inspector/api/call', { ...api(), 'content-type': 'text/plain' }, '{}'),
        415,
      ],
      ['oversized body', post('call', { tool: 'echo', arguments: { message: 'x'.repeat(10_000) } }), 413],
      ['malformed JSON', send(port, 'POST', '/inspector/api/call', api(), '{"tool":'), 400],
      [
        'deep JSON',
        send(port, 'POST', '/inspector/api/call', api(), `${'['.repeat(100)}${']'.repeat(100)}`),
        400,
      ],
      ['array body', post('call', []), 400],
      ['tool not a string', post('call', { tool: 42 }), 400],
      ['arguments not an object', post('call', { tool: 'echo', arguments: [1] }), 400],
      ['huge tool name', post('call', { tool: 'x'.repeat(300) }), 400],
      ['bad waitMs', post('redeem', { token: 'prom_x', waitMs: -1 }), 400],
      ['unknown elicitation', post('answer', { id: 'nope', values: {} }), 400],
      ['unknown route', post('nothing', {}), 404],
      ['GET on a POST route', send(port, 'GET', '/inspector/api/call', api()), 405],
      ['POST on the page', send(port, 'POST', '/inspector/', api(), '{}'), 405],
      ['path traversal', send(port, 'GET', '/inspector/assets/../../package.json', api()), 404],
      ['not a page asset', send(port, 'GET', '/inspector/assets/index.ts', api()), 404],
    ];
    for (const [what, reply, status] of cases) {
      const r = await reply;
      expect(r.status, what).toBe(status);
      expect(JSON.parse(r.body).error.message, what).toEqual(expect.any(String));
    }
    const unknownTool = events((await post('call', { tool: 'serch_documents', arguments: {} })).body).at(
      -1,
    )!.data;
    expect(unknownTool.outcome.error).toMatchObject({
      code: -32601,
      data: { suggestion: expect.stringContaining('search_documents') },
    });
    expect((await send(port, 'GET', '/inspector/api/tools', api())).status).toBe(200);
  });
});
