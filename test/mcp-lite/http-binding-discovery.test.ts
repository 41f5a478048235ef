/**
 * Tool discovery over the MCP-lite HTTP binding (the listtools/tools endpoints and tools/list over rpc) and the
 * endpoints served under a custom base path.
 */
import { describe, expect, it } from 'vitest';
import { callMessage, type JsonRpcResponse, postJson, startServer } from '../support/http-harness.js';
import { t, tools, useSharedServer } from './http-binding.fixtures.js';

useSharedServer();

describe('tool discovery', () => {
  it.each(['listtools', 'tools'])(
    'POST %s with {} answers { tools } including redeem and cancel',
    async (endpoint) => {
      const res = await postJson(`${t.base}${endpoint}`, {});
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      const body = (await res.json()) as { tools: any[] };
      const names = body.tools.map((tool) => tool.name);
      expect(names).toEqual(expect.arrayContaining(['redeem', 'cancel', 'echo', 'add', 'subscribe']));
      const redeem = body.tools.find((tool) => tool.name === 'redeem');
      expect(redeem['@type']).toBe('system');
      expect(redeem.inputSchema.required).toEqual(['promise']);
      expect(redeem.inputSchema.properties.promise.type).toBe('string');
      const echo = body.tools.find((tool) => tool.name === 'echo');
      expect(echo).toMatchObject({ '@type': 'query', description: 'Echoes its text' });
    },
  );

  it('answers tools/list over rpc with the same tools', async () => {
    const res = await postJson(t.rpcUrl, { jsonrpc: '2.0', id: 'l1', method: 'tools/list' });
    const body = (await res.json()) as JsonRpcResponse;
    expect(body).toMatchObject({ jsonrpc: '2.0', id: 'l1' });
    expect(body.result.tools.map((tool: any) => tool.name)).toContain('echo');
  });

  it('accepts the base path without a trailing slash on the endpoint, and calltools as the rpc name', async () => {
    const res = await postJson(`${t.base}calltools/`, callMessage('echo', { text: 'hi' }));
    expect(res.status).toBe(200);
    expect(((await res.json()) as JsonRpcResponse).result.content).toEqual({ text: 'hi' });
  });
});

describe('base path', () => {
  it('serves the endpoints under a custom basePath and nothing under the default one', async () => {
    const custom = await startServer({ tools }, { basePath: 'api/lite' });
    try {
      expect(custom.base.endsWith('/api/lite/')).toBe(true);
      const res = await postJson(custom.rpcUrl, callMessage('echo', { text: 'moved' }));
      expect(((await res.json()) as JsonRpcResponse).result.content).toEqual({ text: 'moved' });
      expect(
        (await postJson(`${custom.running.url}/mcp-lite/v1/rpc`, callMessage('echo', { text: 'x' }))).status,
      ).toBe(404);
    } finally {
      await custom.close();
    }
  });
});
