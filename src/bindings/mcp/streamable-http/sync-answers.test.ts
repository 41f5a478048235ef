/**
 * Tools that answer synchronously take a shorter path through the MCP binding (answered in the body's turn,
 * without the exchange's promise). These cases hold that path to what the asynchronous one does, over a real
 * socket: a progress sent before the answer still turns the response into an SSE stream, errors found at once
 * and thrown by the handler still come back as the spec's errors, and sessions see the same answers.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readSse } from '../../../../test/support/http-harness.js';
import { createServer, defineTool } from '../../../index.js';
import { type RunningServer, serve } from '../../../node.js';

const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
};

const tools = [
  defineTool({
    name: 'half_then_done',
    handler: (_args, ctx) => {
      void ctx.partial('half way');
      return { done: true };
    },
  }),
  defineTool({
    name: 'double',
    inputSchema: { type: 'object', required: ['n'], properties: { n: { type: 'integer' } } },
    handler: ({ n }: { n: number }) => ({ doubled: n * 2 }),
  }),
  defineTool({
    name: 'broken',
    handler: () => {
      throw new Error('secret internal detail');
    },
  }),
];

let running: RunningServer;
let url: string;

beforeAll(async () => {
  running = await serve(createServer({ tools }), { port: 0 });
  url = `${running.url}/mcp`;
});
afterAll(() => running.close(1000));

function statelessCall(id: number, name: string, args: unknown, meta: Record<string, unknown> = {}) {
  return fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'tools/call',
      'mcp-name': name,
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: { name, arguments: args, _meta: { ...META, ...meta } },
    }),
  });
}

describe('synchronous tools over MCP Streamable HTTP', () => {
  it('answers a synchronous tool as JSON, with the stateless result type', async () => {
    const res = await statelessCall(1, 'double', { n: 21 });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('application/json');
    expect(await res.json()).toEqual({
      jsonrpc: '2.0',
      id: 1,
      result: {
        content: [{ type: 'text', text: '{"doubled":42}' }],
        structuredContent: { doubled: 42 },
        resultType: 'complete',
      },
    });
  });

  it('streams a progress sent before a synchronous answer, then the answer, as SSE', async () => {
    const res = await statelessCall(2, 'half_then_done', {}, { progressToken: 'p1' });
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    const events = await readSse(res);
    expect(events.map((e) => e.data.method ?? 'result')).toEqual(['notifications/progress', 'result']);
    expect(events[0]!.data.params).toMatchObject({ progressToken: 'p1', progress: 1, message: 'half way' });
    expect(events[1]!.data).toMatchObject({ id: 2, result: { structuredContent: { done: true } } });
  });

  it('answers invalid arguments (found before the handler runs) with an isError result (SEP-1303)', async () => {
    const res = await statelessCall(3, 'double', { n: 'x' });
    const body = await res.json();
    expect(body).toMatchObject({ jsonrpc: '2.0', id: 3, result: { isError: true } });
    expect(body.result.content[0].text).toMatch(/^Invalid arguments: 'n' /);
  });

  it('answers a handler that throws with an isError result that leaks nothing, and keeps serving', async () => {
    const res = await statelessCall(4, 'broken', {});
    const text = await res.text();
    expect(text).not.toContain('secret internal detail');
    expect(JSON.parse(text)).toMatchObject({
      id: 4,
      result: { isError: true, content: [{ type: 'text', text: 'The tool failed with an internal error.' }] },
    });
    const again = await statelessCall(5, 'double', { n: 1 });
    expect((await again.json()).result.structuredContent).toEqual({ doubled: 2 });
  });

  it('answers the same in a session (handshake revision)', async () => {
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const init = await fetch(url, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 0,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
      }),
    });
    const session = init.headers.get('mcp-session-id');
    expect(session).toBeTruthy();
    const sessionHeaders = { ...headers, 'mcp-session-id': session!, 'mcp-protocol-version': '2025-06-18' };
    const res = await fetch(url, {
      method: 'POST',
      headers: sessionHeaders,
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 6,
        method: 'tools/call',
        params: { name: 'double', arguments: { n: 4 } },
      }),
    });
    expect(await res.json()).toEqual({
      jsonrpc: '2.0',
      id: 6,
      result: { content: [{ type: 'text', text: '{"doubled":8}' }], structuredContent: { doubled: 8 } },
    });
  });
});
