import { request as httpRequest } from 'node:http';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  callMessage,
  type JsonRpcResponse,
  postJson,
  postSse,
  startServer,
  type TestServer,
} from '../../../../test/support/http-harness.js';
import { bearerAuth, defineTool } from '../../../index.js';

const TOKEN = 'tok_s3cr3t_9f8e7d6c5b4a';
const WRONG_TOKEN = 'tok_wrong_0a1b2c3d4e5f';

const whoami = defineTool({
  name: 'whoami',
  description: 'Says who called, and logs a little',
  handler: (_args, ctx) => {
    ctx.log.info({ principal: ctx.principal }, 'whoami called');
    return { principal: ctx.principal ?? null };
  },
});
const crash = defineTool({
  name: 'crash',
  description: 'Crashes',
  handler: () => {
    throw new Error('crashed');
  },
});

/** POSTs with node:http, which (unlike fetch) lets the test set any Host header. */
function nodePost(
  url: string,
  body: unknown,
  headers: Record<string, string>,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      url,
      { method: 'POST', headers: { 'content-type': 'application/json', ...headers } },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => {
          text += c;
        });
        res.on('end', () => resolve({ status: res.statusCode!, body: text }));
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

describe('bearer authentication', () => {
  let t: TestServer;
  const logLines: string[] = [];

  beforeAll(async () => {
    const logger = pino({ level: 'trace' }, { write: (line: string) => logLines.push(line) });
    t = await startServer({ tools: [whoami, crash], authenticate: bearerAuth([TOKEN]), logger });
  });
  afterAll(() => t.close());

  it('refuses a request without a token with 401 and a bare Bearer challenge', async () => {
    const res = await postJson(t.rpcUrl, callMessage('whoami', {}));
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe('Bearer realm="mcplite"');
    expect(((await res.json()) as JsonRpcResponse).error!.code).toBe(-32002);
  });

  it('refuses a wrong token with 401 and error="invalid_token"', async () => {
    const res = await postJson(t.rpcUrl, callMessage('whoami', {}), {
      authorization: `Bearer ${WRONG_TOKEN}`,
    });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe('Bearer realm="mcplite", error="invalid_token"');
  });

  it('refuses another scheme carrying the right secret', async () => {
    const res = await postJson(t.rpcUrl, callMessage('whoami', {}), { authorization: `Basic ${TOKEN}` });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toMatch(/^Bearer /);
  });

  it('refuses the listing without a token too', async () => {
    const res = await postJson(t.toolsUrl, {});
    expect(res.status).toBe(401);
  });

  it('refuses an SSE call without a token before streaming', async () => {
    const res = await postSse(t.rpcUrl, callMessage('whoami', {}));
    expect(res.status).toBe(401);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  });

  it('accepts the right token and hands the handler the principal', async () => {
    const res = await postJson(t.rpcUrl, callMessage('whoami', {}), { authorization: `Bearer ${TOKEN}` });
    expect(res.status).toBe(200);
    const body = (await res.json()) as JsonRpcResponse;
    expect(body.result.content).toEqual({ principal: { id: 'bearer-0' } });
  });

  it('refuses the right token under the DPoP scheme: a key binding the token list cannot check', async () => {
    const res = await postJson(t.rpcUrl, callMessage('whoami', {}), { authorization: `DPoP ${TOKEN}` });
    expect(res.status).toBe(401);
  });

  it('accepts the scheme name in any case', async () => {
    const res = await postJson(t.rpcUrl, callMessage('whoami', {}), { authorization: `bearer ${TOKEN}` });
    expect(res.status).toBe(200);
  });

  it('never writes the token (right or wrong) to the log', async () => {
    await postJson(t.rpcUrl, callMessage('whoami', {}), { authorization: `Bearer ${TOKEN}` });
    await postJson(t.rpcUrl, callMessage('crash', {}), { authorization: `Bearer ${TOKEN}` });
    await postJson(t.rpcUrl, callMessage('whoami', {}), { authorization: `Bearer ${WRONG_TOKEN}` });
    await postJson(t.rpcUrl, '{not json', { authorization: `Bearer ${TOKEN}` });
    const log = logLines.join('');
    expect(log).toContain('whoami called');
    expect(log).toContain('tool handler failed');
    expect(log).not.toContain(TOKEN);
    expect(log).not.toContain(WRONG_TOKEN);
  });
});

describe('Host and Origin checks on a loopback bind (DNS-rebinding protection)', () => {
  let t: TestServer;
  const list = { jsonrpc: '2.0', id: 1, method: 'tools/list' };

  beforeAll(async () => {
    t = await startServer({ tools: [whoami] });
  });
  afterAll(() => t.close());

  it.each(['evil.example', 'evil.example:80', 'localhost.evil.example', '127.0.0.1.nip.io', '0.0.0.0'])(
    'refuses Host %s with 403',
    async (host) => {
      const res = await nodePost(t.rpcUrl, list, { host });
      expect(res.status).toBe(403);
      expect(JSON.parse(res.body).error.code).toBe(-32003);
    },
  );

  it.each(['localhost', 'LOCALHOST', '127.0.0.1', '[::1]'])(
    'accepts Host %s with and without a port',
    async (host) => {
      expect((await nodePost(t.rpcUrl, list, { host })).status).toBe(200);
      expect((await nodePost(t.rpcUrl, list, { host: `${host}:${t.port}` })).status).toBe(200);
    },
  );

  it.each([
    'http://evil.example',
    'http://evil.example:8080',
    'http://localhost.evil.example',
    'null',
    'file://',
    'chrome-extension://abc',
  ])('refuses Origin %s with 403', async (origin) => {
    const res = await nodePost(t.rpcUrl, list, { origin });
    expect(res.status).toBe(403);
  });

  it.each(['http://localhost:5173', 'http://127.0.0.1', 'https://localhost', 'http://[::1]:8080'])(
    'accepts Origin %s',
    async (origin) => {
      expect((await nodePost(t.rpcUrl, list, { origin })).status).toBe(200);
    },
  );

  it('accepts a request without an Origin', async () => {
    expect((await nodePost(t.rpcUrl, list, {})).status).toBe(200);
  });

  it('guards paths outside the binding too', async () => {
    expect((await nodePost(`${t.running.url}/other`, list, { host: 'evil.example' })).status).toBe(403);
  });

  it('is off with dnsRebindingProtection: false', async () => {
    const open = await startServer({ tools: [whoami] }, { dnsRebindingProtection: false });
    try {
      const res = await nodePost(open.rpcUrl, list, { host: 'evil.example', origin: 'http://evil.example' });
      expect(res.status).toBe(200);
    } finally {
      await open.close();
    }
  });

  it('uses allowedHosts and allowedOrigins when given', async () => {
    const custom = await startServer(
      { tools: [whoami] },
      { allowedHosts: ['mcp.internal'], allowedOrigins: ['https://app.example'] },
    );
    try {
      expect((await nodePost(custom.rpcUrl, list, { host: 'mcp.internal:443' })).status).toBe(200);
      expect((await nodePost(custom.rpcUrl, list, { host: 'localhost' })).status).toBe(403);
      expect(
        (await nodePost(custom.rpcUrl, list, { host: 'mcp.internal', origin: 'https://app.example' })).status,
      ).toBe(200);
      expect(
        (await nodePost(custom.rpcUrl, list, { host: 'mcp.internal', origin: 'http://mcp.internal' })).status,
      ).toBe(403);
    } finally {
      await custom.close();
    }
  });
});
