/**
 * MCP Apps (extension io.modelcontextprotocol/ui, docs/apps.md) on every MCP transport, read by the official SDK
 * client: the extension in the capabilities, the tool's `_meta.ui` (and the deprecated flat key), the app-only
 * tool listed to an Apps client only, the view's resource with its media type and `_meta.ui`, and the text
 * fallback of a result. A client that did not declare the extension gets a clean text tool.
 */
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { WebSocketClientTransport } from '@modelcontextprotocol/sdk/client/websocket.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { BROWSE_VIEW_HTML } from '../../examples/demo/browse-view.js';
import { serverOptions, tools } from '../../examples/demo/index.js';
import { toolsTable } from '../../src/cli/render.js';
import { connect } from '../../src/client/index.js';
import { createServer } from '../../src/index.js';
import { type RunningServer, serve } from '../../src/node.js';

(globalThis as { WebSocket?: unknown }).WebSocket ??= WebSocket;

const APPS = 'io.modelcontextprotocol/ui';
const MIME = 'text/html;profile=mcp-app';
const VIEW = 'ui://mcplite-demo/documents';
const APPS_CAPS = { extensions: { [APPS]: { mimeTypes: [MIME] } } };

let running: RunningServer;
const server = createServer({ ...serverOptions, tools, mcpInlineWaitMs: 0 });

beforeAll(async () => {
  running = await serve(server, { port: 0 });
});
afterAll(() => running.close(1000));

const stdioServer = fileURLToPath(new URL('../support/mcp-stdio-server.ts', import.meta.url));

/** Each MCP transport, as a fresh SDK transport to the demo. */
const transports: Array<[string, () => Transport]> = [
  ['Streamable HTTP', () => new StreamableHTTPClientTransport(new URL(`${running.url}/mcp`))],
  ['WebSocket', () => new WebSocketClientTransport(new URL(`${running.url.replace('http', 'ws')}/mcp`))],
  ['legacy SSE', () => new SSEClientTransport(new URL(`${running.url}/sse`))],
  [
    'stdio',
    () =>
      new StdioClientTransport({
        command: process.execPath,
        args: ['--import', 'tsx', stdioServer],
        stderr: 'pipe',
      }),
  ],
];

async function sdkClient(transport: Transport, capabilities: Record<string, unknown>): Promise<Client> {
  const client = new Client({ name: 'apps-test', version: '1.0.0' }, { capabilities });
  await client.connect(transport);
  return client;
}

describe.each(transports)('MCP Apps over %s', (_name, open) => {
  it('a client that declared the extension gets the view, its resource and the app-only tool', async () => {
    const client = await sdkClient(open(), APPS_CAPS);
    try {
      expect(client.getServerCapabilities()?.extensions?.[APPS]).toEqual({ mimeTypes: [MIME] });
      const listed = (await client.listTools()).tools;
      const browse = listed.find((t) => t.name === 'browse_documents')!;
      expect(browse._meta).toMatchObject({ ui: { resourceUri: VIEW }, 'ui/resourceUri': VIEW });
      const open = listed.find((t) => t.name === 'open_document')!;
      expect(open._meta?.ui).toEqual({ visibility: ['app'] });

      const read = await client.readResource({ uri: VIEW });
      expect(read.contents).toEqual([
        { uri: VIEW, mimeType: MIME, text: BROWSE_VIEW_HTML, _meta: { ui: { prefersBorder: true } } },
      ]);
      const resources = (await client.listResources()).resources;
      expect(resources).toContainEqual(expect.objectContaining({ uri: VIEW, mimeType: MIME }));

      const result = await client.callTool({
        name: 'browse_documents',
        arguments: { query: 'security', limit: 2 },
      });
      const structured = result.structuredContent as { hits: Array<{ document_id: string }> };
      expect(structured.hits).toHaveLength(2);
      // The text fallback: the same value as text, for the model and for hosts without views.
      expect(JSON.parse((result.content as Array<{ text: string }>)[0]!.text)).toEqual(structured);
      // The view's button: the server answers the app-only tool (the host enforces who may call it).
      const opened = await client.callTool({
        name: 'open_document',
        arguments: { document_id: structured.hits[0]!.document_id },
      });
      expect(opened.structuredContent).toMatchObject({ document_id: structured.hits[0]!.document_id });
    } finally {
      await client.close();
    }
  });

  it('a client without the extension gets a clean text tool and no app-only tool', async () => {
    const client = await sdkClient(open(), {});
    try {
      const listed = (await client.listTools()).tools;
      const browse = listed.find((t) => t.name === 'browse_documents')!;
      expect(browse._meta?.ui).toBeUndefined();
      expect(browse._meta?.['ui/resourceUri']).toBeUndefined();
      expect(listed.map((t) => t.name)).not.toContain('open_document');
      // No view in its resource listing either (a read by URI still answers).
      expect((await client.listResources()).resources.map((r) => r.uri)).not.toContain(VIEW);
      const result = await client.callTool({
        name: 'browse_documents',
        arguments: { query: 'security', limit: 1 },
      });
      expect(result.content).toEqual([{ type: 'text', text: expect.stringContaining('"hits"') }]);
    } finally {
      await client.close();
    }
  });
});

describe('MCP Apps on the stateless revision (2026-07-28)', () => {
  async function post(
    method: string,
    params: Record<string, unknown>,
    capabilities: Record<string, unknown>,
  ) {
    const res = await fetch(`${running.url}/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': method,
        ...(typeof params.uri === 'string' ? { 'mcp-name': params.uri } : {}),
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method,
        params: {
          ...params,
          _meta: {
            'io.modelcontextprotocol/protocolVersion': '2026-07-28',
            'io.modelcontextprotocol/clientCapabilities': capabilities,
          },
        },
      }),
    });
    expect(res.status, await res.clone().text()).toBe(200);
    return ((await res.json()) as { result: Record<string, any> }).result;
  }

  it('advertises the extension in server/discover and reads each request’s capabilities', async () => {
    const discovered = await post('server/discover', {}, {});
    expect(discovered.capabilities.extensions[APPS]).toEqual({ mimeTypes: [MIME] });
    const withApps = (await post('tools/list', {}, APPS_CAPS)).tools as Array<Record<string, any>>;
    expect(withApps.find((t) => t.name === 'browse_documents')?._meta.ui).toEqual({ resourceUri: VIEW });
    expect(withApps.map((t) => t.name)).toContain('open_document');
    const plain = (await post('tools/list', {}, {})).tools as Array<Record<string, any>>;
    expect(plain.find((t) => t.name === 'browse_documents')?._meta?.ui).toBeUndefined();
    expect(plain.map((t) => t.name)).not.toContain('open_document');
    const read = await post('resources/read', { uri: VIEW }, {});
    expect(read.contents[0]).toMatchObject({ uri: VIEW, mimeType: MIME });
  });
});

describe('MCP Apps in mcplite/client (in memory, and over Streamable HTTP)', () => {
  it.each([
    ['in memory', () => connect(server)],
    ['Streamable HTTP', () => connect(`${running.url}/mcp`, { binding: 'mcp' })],
  ])('%s: lists the view, reads it on request, and calls the app-only tool', async (_name, open) => {
    const client = await open();
    try {
      const listed = await client.listTools();
      expect(listed.find((t) => t.name === 'browse_documents')?.ui).toEqual({ resourceUri: VIEW });
      expect(listed.find((t) => t.name === 'open_document')?.ui).toEqual({ visibility: ['app'] });
      expect(await client.view('browse_documents')).toEqual({ tool: 'browse_documents', resourceUri: VIEW });
      expect(await client.view('browse_documents', { html: true })).toEqual({
        tool: 'browse_documents',
        resourceUri: VIEW,
        html: BROWSE_VIEW_HTML,
        mimeType: MIME,
        meta: { prefersBorder: true },
      });
      expect(await client.view('get_document')).toBeUndefined();
      // What `mcplite tools` prints for them.
      const table = toolsTable(listed, false);
      expect(table).toMatch(/browse_documents .*\[view ui:\/\/mcplite-demo\/documents\]\n/);
      expect(table).toMatch(/open_document .*\[app only\]\n/);
      expect(await client.call('open_document', { document_id: 'doc_001' })).toMatchObject({
        type: 'answer',
        value: { document_id: 'doc_001' },
      });
    } finally {
      await client.close();
    }
  });
});
