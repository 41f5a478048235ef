/**
 * Inputs that used to hold the event loop (issue 9), kept as attacks on a real socket: a megabyte search query
 * (the demo's search is linear in it) is refused by the schema's maxLength before the search runs, and a
 * megabyte method name is not echoed back whole (it was, twice) on MCP-lite HTTP.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serverOptions, tools } from '../../examples/demo/index.js';
import { createServer } from '../../src/index.js';
import { type RunningServer, serve } from '../../src/node.js';
import { callMessage, post, rpc } from '../support/mcp-lite-http.js';

let running: RunningServer;
let base: string;

beforeAll(async () => {
  running = await serve(createServer({ tools, ...serverOptions }), { port: 0 });
  base = `${running.url}/mcp-lite/v1/`;
});
afterAll(() => running.close(1000));

describe('event-loop stalls', () => {
  it('refuses a megabyte search query with -32602 naming the field', async () => {
    const query = 'security '.repeat(120_000);
    const body = await rpc(`${base}calltools`, callMessage(1, 'search_documents', { query }));
    expect(body.error?.code).toBe(-32602);
    expect(body.error?.data.errors[0]).toMatchObject({ field: 'query' });
    // A normal query still answers.
    const ok = await rpc(`${base}calltools`, callMessage(2, 'search_documents', { query: 'security' }));
    expect(Array.isArray(ok.result?.content)).toBe(true);
  });

  it('echoes at most the start of a megabyte method name', async () => {
    const method = `x${'y'.repeat(1_000_000)}`;
    const res = await post(`${base}calltools`, { jsonrpc: '2.0', id: 1, method, params: {} });
    const text = await res.text();
    expect(text.length).toBeLessThan(1_000);
    const body = JSON.parse(text);
    expect(body.error.code).toBe(-32601);
    expect(body.error.data.method).toBe(`${method.slice(0, 128)}…`);
    expect(body.error.message).toContain(method.slice(0, 128));
  });
});
