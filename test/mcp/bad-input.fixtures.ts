/**
 * Shared setup of the bad-input tests of the MCP binding (`bad-input-*.test.ts`): a server with one tool, one
 * resource and one prompt and a small body limit, the request helpers, and the stateless revision's _meta and header.
 */
import { afterAll, beforeAll, expect } from 'vitest';
import { createServer } from '../../src/index.js';
import { type RunningServer, serve } from '../../src/node.js';

/** The _meta a request of the stateless 2026-07-28 revision carries. */
export const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
};
/** The protocol version header of the stateless revision (`post` adds Mcp-Method and Mcp-Name to it). */
export const STATELESS_HEADERS = { 'mcp-protocol-version': '2026-07-28' };

let running: RunningServer;
/** The Streamable HTTP endpoint of the server that `useServer` started for the calling test file. */
export let url: string;

/** Starts the server before the calling file's tests and closes it after them. */
export function useServer(): void {
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
}

/** POSTs; requests of the stateless revision get their routing headers unless the test sets them. */
export async function post(body: unknown, headers: Record<string, string> = {}) {
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

/** Opens a session with `initialize` and `notifications/initialized`; returns its Mcp-Session-Id. */
export async function initialize(protocolVersion = '2025-06-18'): Promise<string> {
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
