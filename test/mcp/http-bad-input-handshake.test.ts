/**
 * Malformed and out-of-order messages on the handshake revisions of the MCP binding over Streamable HTTP get the
 * spec's JSON-RPC error and HTTP status: negotiation, sessions, version headers, batches, GET, error codes.
 */
import { describe, expect, it } from 'vitest';
import { initialize, post, url, useServer } from './bad-input.fixtures.js';

useServer();

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
    // Arguments that fail the input schema are the tool's error, which the model reads (SEP-1303): a result.
    const invalid = await post(
      { jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'echo', arguments: { m: 1 } } },
      h,
    );
    expect(invalid.json.result).toMatchObject({
      isError: true,
      content: [{ type: 'text', text: "Invalid arguments: 'm' must be of type string" }],
    });
    const unknown = await post({ jsonrpc: '2.0', id: 11, method: 'tools/call', params: { name: 'ecko' } }, h);
    expect(unknown.json.error.message).toBe("Tool not found: ecko. Did you mean 'echo'?");
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
