/**
 * Malformed HTTP envelopes sent to the MCP binding over Streamable HTTP get the spec's JSON-RPC error and HTTP
 * status: content type, encoding, Accept, bad JSON, a bad JSON-RPC envelope, body size, HTTP method, Host, Origin.
 */
import { describe, expect, it } from 'vitest';
import { post, url, useServer } from './bad-input.fixtures.js';

useServer();

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
