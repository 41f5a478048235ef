/**
 * Malformed and out-of-order messages over Streamable HTTP get the spec's JSON-RPC error and HTTP status, on
 * the handshake revisions and on the stateless 2026-07-28 revision; the server keeps serving afterwards.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type RunningServer, serve } from '../../index.js';

const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
};
const STATELESS_HEADERS = { 'mcp-protocol-version': '2026-07-28' };

let running: RunningServer;
let url: string;

beforeAll(async () => {
  const server = createServer({
    tools: [
      {
        name: 'echo',
        inputSchema: { type: 'object', required: ['m'], properties: { m: { type: 'string' } } },
        handler: (a) => a,
      },
    ],
    resources: [{ uri: 'test://a', name: 'a', read: () => 'A' }],
    prompts: [{ name: 'p', arguments: [{ name: 'x', required: true }], handler: ({ x }) => `x=${x}` }],
  });
  running = await serve(server, { port: 0, maxBodyBytes: 64 * 1024 });
  url = `${running.url}/mcp`;
});
afterAll(() => running.close(1000));

/** POSTs; requests of the stateless revision get their routing headers unless the test sets them. */
async function post(body: unknown, headers: Record<string, string> = {}) {
  if (
    headers['mcp-protocol-version'] === '2026-07-28' &&
    typeof body === 'object' &&
    body !== null &&
    !('mcp-method' in headers)
  ) {
    const m = body as { method?: string; params?: { name?: string; uri?: string } };
    headers = { 'mcp-method': m.method ?? '', ...headers };
    const name = m.params?.name ?? m.params?.uri;
    if (name !== undefined) headers['mcp-name'] = name;
  }
  const res = await fetch(url, {
    method: 'POST',
    headers: Object.fromEntries(
      Object.entries({
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...headers,
      }).filter(([, v]) => v !== undefined),
    ),
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, json: text ? JSON.parse(text) : undefined };
}

async function initialize(protocolVersion = '2025-06-18'): Promise<string> {
  const r = await post({
    jsonrpc: '2.0',
    id: 0,
    method: 'initialize',
    params: { protocolVersion, capabilities: {}, clientInfo: { name: 't', version: '1' } },
  });
  expect(r.status).toBe(200);
  const session = r.headers.get('mcp-session-id')!;
  await post(
    { jsonrpc: '2.0', method: 'notifications/initialized' },
    { 'mcp-session-id': session, 'mcp-protocol-version': protocolVersion },
  );
  return session;
}

describe('HTTP envelope', () => {
  it('refuses a non-JSON content type with 415', async () => {
    const r = await post('{}', { 'content-type': 'text/plain' });
    expect(r.status).toBe(415);
    expect(r.json.error.code).toBe(-32600);
  });

  it('refuses a compressed body with 415', async () => {
    const r = await post({ jsonrpc: '2.0', id: 1, method: 'ping' }, { 'content-encoding': 'gzip' });
    expect(r.status).toBe(415);
  });

  it('refuses an Accept that names neither JSON nor SSE with 406', async () => {
    const r = await post({ jsonrpc: '2.0', id: 1, method: 'ping' }, { accept: 'text/html' });
    expect(r.status).toBe(406);
  });

  it('answers bad JSON with 400 and -32700', async () => {
    const r = await post('{"jsonrpc": "2.0", "id": 1, "method": ');
    expect(r.status).toBe(400);
    expect(r.json).toMatchObject({ id: null, error: { code: -32700 } });
  });

  it('answers a malformed JSON-RPC envelope with 400 and -32600, keeping the id', async () => {
    const r = await post({ jsonrpc: '1.0', id: 7, method: 'ping' });
    expect(r.status).toBe(400);
    expect(r.json).toMatchObject({ id: 7, error: { code: -32600 } });
  });

  it('refuses a body over the limit with 413', async () => {
    const r = await post({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'echo', arguments: { m: 'x'.repeat(70_000) } },
    });
    expect(r.status).toBe(413);
  });

  it('refuses other HTTP methods with 405 and Allow', async () => {
    const res = await fetch(url, { method: 'PUT' });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toContain('POST');
  });

  it('refuses a foreign Host (DNS-rebinding protection on loopback)', async () => {
    const { request } = await import('node:http');
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(
        url,
        { method: 'POST', headers: { host: 'evil.example', 'content-type': 'application/json' } },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on('error', reject);
      req.end(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }));
    });
    expect(status).toBe(403);
  });

  it('refuses a foreign Origin', async () => {
    const r = await post({ jsonrpc: '2.0', id: 1, method: 'ping' }, { origin: 'http://evil.example' });
    expect(r.status).toBe(403);
  });
});

describe('handshake revisions', () => {
  it('negotiates: a known revision is echoed, an unknown one gets the latest', async () => {
    const known = await post({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2024-11-05', capabilities: {} },
    });
    expect(known.json.result.protocolVersion).toBe('2024-11-05');
    const unknown = await post({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '1999-01-01', capabilities: {} },
    });
    expect(unknown.json.result.protocolVersion).toBe('2025-11-25');
    expect(unknown.json.result.capabilities).toMatchObject({ tools: {}, resources: {}, prompts: {} });
  });

  it('accepts the draft seed variant `mcpVersion`', async () => {
    const r = await post({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { mcpVersion: '2025-06-18' },
    });
    expect(r.json.result.protocolVersion).toBe('2025-06-18');
  });

  it('refuses a second initialize on a session', async () => {
    const session = await initialize();
    const r = await post(
      {
        jsonrpc: '2.0',
        id: 2,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {} },
      },
      { 'mcp-session-id': session },
    );
    expect(r.status).toBe(400);
    expect(r.json).toMatchObject({ id: 2, error: { code: -32600 } });
  });

  it('answers an unknown session with 404', async () => {
    const r = await post({ jsonrpc: '2.0', id: 1, method: 'ping' }, { 'mcp-session-id': 'not-a-session' });
    expect(r.status).toBe(404);
  });

  it('ends a session with DELETE; the session is then unknown', async () => {
    const session = await initialize();
    const del = await fetch(url, { method: 'DELETE', headers: { 'mcp-session-id': session } });
    expect(del.status).toBe(200);
    const after = await post({ jsonrpc: '2.0', id: 1, method: 'ping' }, { 'mcp-session-id': session });
    expect(after.status).toBe(404);
    expect((await fetch(url, { method: 'DELETE', headers: { 'mcp-session-id': session } })).status).toBe(404);
    expect((await fetch(url, { method: 'DELETE' })).status).toBe(400);
  });

  it('refuses a protocol version header that differs from the session', async () => {
    const session = await initialize('2025-06-18');
    const r = await post(
      { jsonrpc: '2.0', id: 1, method: 'ping' },
      { 'mcp-session-id': session, 'mcp-protocol-version': '2025-03-26' },
    );
    expect(r.status).toBe(400);
  });

  it('refuses an unsupported protocol version header without a session', async () => {
    const r = await post({ jsonrpc: '2.0', id: 1, method: 'ping' }, { 'mcp-protocol-version': '2025-13-99' });
    expect(r.status).toBe(400);
  });

  it('refuses batches after 2025-03-26 and initialize inside a batch', async () => {
    const session = await initialize('2025-06-18');
    const r = await post([{ jsonrpc: '2.0', id: 1, method: 'ping' }], { 'mcp-session-id': session });
    expect(r.status).toBe(400);
    expect(r.json.error.code).toBe(-32600);
    const old = await post([
      { jsonrpc: '2.0', id: 1, method: 'ping' },
      { jsonrpc: '2.0', id: 2, method: 'initialize', params: {} },
    ]);
    expect(old.status).toBe(200);
    const byId = Object.fromEntries(old.json.map((m: { id: number }) => [m.id, m]));
    expect(byId[1].result).toEqual({});
    expect(byId[2].error.code).toBe(-32600);
  });

  it('GET needs a session and SSE', async () => {
    expect((await fetch(url, { headers: { accept: 'text/event-stream' } })).status).toBe(405);
    const session = await initialize();
    expect(
      (await fetch(url, { headers: { accept: 'application/json', 'mcp-session-id': session } })).status,
    ).toBe(406);
    expect(
      (await fetch(url, { headers: { accept: 'text/event-stream', 'mcp-session-id': 'nope' } })).status,
    ).toBe(404);
  });

  it('gives method and params errors their JSON-RPC codes', async () => {
    const session = await initialize();
    const h = { 'mcp-session-id': session };
    const cases: Array<[unknown, number]> = [
      [{ jsonrpc: '2.0', id: 1, method: 'no/such' }, -32601],
      [{ jsonrpc: '2.0', id: 2, method: 'tools/call', params: {} }, -32602],
      [{ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'nope' } }, -32602],
      [
        { jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'echo', arguments: { m: 1 } } },
        -32602,
      ],
      [{ jsonrpc: '2.0', id: 5, method: 'tools/list', params: { cursor: '!!' } }, -32602],
      [{ jsonrpc: '2.0', id: 6, method: 'resources/read', params: { uri: 'test://missing' } }, -32002],
      [{ jsonrpc: '2.0', id: 7, method: 'prompts/get', params: { name: 'p' } }, -32602],
      [{ jsonrpc: '2.0', id: 8, method: 'prompts/get', params: { name: 'nope' } }, -32602],
      [{ jsonrpc: '2.0', id: 9, method: 'logging/setLevel', params: { level: 'loud' } }, -32602],
      [{ jsonrpc: '2.0', id: 10, method: 'completion/complete', params: {} }, -32602],
    ];
    for (const [message, code] of cases) {
      const r = await post(message, h);
      expect(r.status, JSON.stringify(message)).toBe(200);
      expect(r.json.error?.code, JSON.stringify(r.json)).toBe(code);
      expect(r.json.id).toBe((message as { id: number }).id);
    }
    const unknown = await post({ jsonrpc: '2.0', id: 11, method: 'tools/call', params: { name: 'ecko' } }, h);
    expect(unknown.json.error.data).toMatchObject({
      available_tools: expect.arrayContaining(['echo']),
      suggestion: "Did you mean 'echo'?",
    });
  });

  it('answers notifications and client responses with 202', async () => {
    const n = await post({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 99 } });
    expect(n.status).toBe(202);
    const stray = await post({ jsonrpc: '2.0', id: 'srv-unknown', result: {} });
    expect(stray.status).toBe(202);
  });
});

describe('stateless revision 2026-07-28', () => {
  it('refuses a request without _meta with 400 and -32602', async () => {
    const r = await post({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }, STATELESS_HEADERS);
    expect(r.status).toBe(400);
    expect(r.json).toMatchObject({ id: 1, error: { code: -32602 } });
  });

  it('refuses a missing or mismatched MCP-Protocol-Version header with -32020', async () => {
    const missing = await post({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: META } });
    expect(missing.status).toBe(400);
    expect(missing.json.error.code).toBe(-32020);
    const other = await post(
      { jsonrpc: '2.0', id: 2, method: 'tools/list', params: { _meta: META } },
      { 'mcp-protocol-version': '2025-11-25' },
    );
    expect(other.status).toBe(400);
    expect(other.json.error.code).toBe(-32020);
  });

  it('refuses an unsupported version with -32022 listing the supported ones', async () => {
    const meta = { ...META, 'io.modelcontextprotocol/protocolVersion': '2099-01-01' };
    const r = await post(
      { jsonrpc: '2.0', id: 1, method: 'server/discover', params: { _meta: meta } },
      { 'mcp-protocol-version': '2099-01-01' },
    );
    expect(r.status).toBe(400);
    expect(r.json.error).toMatchObject({
      code: -32022,
      data: { supported: ['2026-07-28'], requested: '2099-01-01' },
    });
  });

  it('refuses an Mcp-Method header that disagrees with the body', async () => {
    const r = await post(
      { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: META } },
      { ...STATELESS_HEADERS, 'mcp-method': 'prompts/list' },
    );
    expect(r.status).toBe(400);
    expect(r.json.error.code).toBe(-32020);
  });

  it('refuses a missing Mcp-Method or Mcp-Name header with 400 and -32020', async () => {
    const noMethod = await post(
      { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: META } },
      { ...STATELESS_HEADERS, 'mcp-method': undefined as unknown as string },
    );
    expect(noMethod.status).toBe(400);
    expect(noMethod.json.error.code).toBe(-32020);
    const noName = await post(
      {
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: { _meta: META, name: 'echo', arguments: { m: 'x' } },
      },
      { ...STATELESS_HEADERS, 'mcp-method': 'tools/call' },
    );
    expect(noName.status).toBe(400);
    expect(noName.json.error.code).toBe(-32020);
  });

  it('answers removed and unknown methods with 404 and -32601', async () => {
    for (const method of ['initialize', 'ping', 'logging/setLevel', 'resources/subscribe', 'no/such']) {
      const r = await post({ jsonrpc: '2.0', id: 3, method, params: { _meta: META } }, STATELESS_HEADERS);
      expect(r.status, method).toBe(404);
      expect(r.json, method).toMatchObject({ id: 3, error: { code: -32601 } });
    }
  });

  it('serves discover and marks results complete with caching hints', async () => {
    const d = await post(
      { jsonrpc: '2.0', id: 1, method: 'server/discover', params: { _meta: META } },
      STATELESS_HEADERS,
    );
    expect(d.json.result).toMatchObject({
      supportedVersions: ['2026-07-28'],
      resultType: 'complete',
      ttlMs: 0,
      cacheScope: 'public',
    });
    const list = await post(
      { jsonrpc: '2.0', id: 2, method: 'tools/list', params: { _meta: META } },
      STATELESS_HEADERS,
    );
    expect(list.json.result).toMatchObject({ resultType: 'complete', ttlMs: 0 });
    const call = await post(
      {
        jsonrpc: '2.0',
        id: 3,
        method: 'tools/call',
        params: { _meta: META, name: 'echo', arguments: { m: 'x' } },
      },
      STATELESS_HEADERS,
    );
    expect(call.json.result).toMatchObject({ resultType: 'complete', structuredContent: { m: 'x' } });
    expect(call.json.result).not.toHaveProperty('ttlMs');
  });

  it('reports an unknown resource with -32602 and the uri', async () => {
    const r = await post(
      { jsonrpc: '2.0', id: 1, method: 'resources/read', params: { _meta: META, uri: 'test://missing' } },
      STATELESS_HEADERS,
    );
    expect(r.json.error).toMatchObject({ code: -32602, data: { uri: 'test://missing' } });
  });
});
