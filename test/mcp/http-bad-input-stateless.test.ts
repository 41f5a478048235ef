/**
 * Malformed messages on the stateless 2026-07-28 revision of the MCP binding over Streamable HTTP get the spec's
 * JSON-RPC error and HTTP status: missing _meta, routing headers, versions, removed methods; results are complete.
 */
import { describe, expect, it } from 'vitest';
import { META, post, STATELESS_HEADERS, useServer } from './bad-input.fixtures.js';

useServer();

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
