/**
 * MCP Apps through the gateway and mcplite's own host parts: an upstream's view is re-served under the gateway's
 * namespace (the tool's `_meta.ui.resourceUri`, the deprecated flat key, the resource listing and the `uri` inside
 * the read result all rewritten alike), its app-only tool keeps its audience and calls its own upstream, and
 * mcplite's model-facing parts (MCP-lite, gRPC, Webtools listings, the AI SDK and LangChain adapters) never show
 * an app-only tool. Upstream and gateway are real servers on real sockets, read by the official SDK client.
 */
import { Client as SdkClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BROWSE_VIEW_HTML } from '../../examples/demo/browse-view.js';
import { serverOptions, tools } from '../../examples/demo/index.js';
import { toAISDKTools } from '../../src/client/ai.js';
import { connect } from '../../src/client/index.js';
import { toLangChainTools } from '../../src/client/langchain.js';
import { Gateway } from '../../src/gateway/gateway.js';
import { openUpstream } from '../../src/gateway/proxy-tools.js';
import { createServer } from '../../src/index.js';
import { type RunningServer, serve } from '../../src/node.js';

const APPS = 'io.modelcontextprotocol/ui';
const MIME = 'text/html;profile=mcp-app';
const UPSTREAM_VIEW = 'ui://mcplite-demo/documents';
const GATEWAY_VIEW = 'ui://docs/mcplite-demo/documents';

let upstream: RunningServer;
let running: RunningServer;
let gateway: Gateway;

beforeAll(async () => {
  upstream = await serve(createServer({ ...serverOptions, tools }), { port: 0, host: '127.0.0.1' });
  const server = createServer({ name: 'gateway', tools: [] });
  gateway = new Gateway(server, { minBackoffMs: 50, maxBackoffMs: 200 });
  await gateway.add('docs', await openUpstream(`${upstream.url}/mcp`, { prefix: 'docs' }));
  running = await serve(server, { port: 0, host: '127.0.0.1', grpcPort: 0 });
});
afterAll(async () => {
  await running.close(500);
  await gateway.close();
  await upstream.close(500);
});

async function sdkClient(capabilities: Record<string, unknown>): Promise<SdkClient> {
  const client = new SdkClient({ name: 'apps-gateway', version: '1' }, { capabilities });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${running.url}/mcp`)));
  return client;
}

describe('an upstream app through the gateway', () => {
  it('rewrites the view URI everywhere alike and keeps the app-only tool to its own upstream', async () => {
    const client = await sdkClient({ extensions: { [APPS]: { mimeTypes: [MIME] } } });
    try {
      const listed = (await client.listTools()).tools;
      const browse = listed.find((t) => t.name === 'docs_browse_documents')!;
      expect(browse._meta).toMatchObject({
        ui: { resourceUri: GATEWAY_VIEW },
        'ui/resourceUri': GATEWAY_VIEW,
      });
      expect(listed.find((t) => t.name === 'docs_open_document')?._meta?.ui).toEqual({ visibility: ['app'] });

      const resources = (await client.listResources()).resources;
      expect(resources).toContainEqual(expect.objectContaining({ uri: GATEWAY_VIEW, mimeType: MIME }));
      expect(resources.map((r) => r.uri)).not.toContain(UPSTREAM_VIEW);
      const read = await client.readResource({ uri: GATEWAY_VIEW });
      expect(read.contents).toEqual([
        { uri: GATEWAY_VIEW, mimeType: MIME, text: BROWSE_VIEW_HTML, _meta: { ui: { prefersBorder: true } } },
      ]);

      // The view's "Open" button, as the host forwards it: the app-only tool answers from its upstream.
      const opened = await client.callTool({
        name: 'docs_open_document',
        arguments: { document_id: 'doc_002' },
      });
      expect(opened.structuredContent).toMatchObject({ document_id: 'doc_002' });
    } finally {
      await client.close();
    }
  });

  it('gives a client without the extension the text tool only', async () => {
    const client = await sdkClient({});
    try {
      const listed = (await client.listTools()).tools;
      expect(listed.find((t) => t.name === 'docs_browse_documents')?._meta?.ui).toBeUndefined();
      expect(listed.map((t) => t.name)).not.toContain('docs_open_document');
    } finally {
      await client.close();
    }
  });
});

describe("mcplite's model-facing listings leave app-only tools out", () => {
  it.each([
    ['MCP-lite HTTP', () => `${running.url}/mcp-lite/v1/`],
    ['Webtools', () => `${running.url}/webtools/gateway/`],
    ['gRPC', () => `grpc://127.0.0.1:${running.grpc!.port}`],
  ])('%s', async (_name, target) => {
    const client = await connect(target());
    try {
      const names = (await client.listTools()).map((t) => t.name);
      expect(names).toContain('docs_browse_documents');
      expect(names).not.toContain('docs_open_document');
    } finally {
      await client.close();
    }
  });

  it('the AI SDK and LangChain adapters, over MCP where the tool is listed, offer it to no model', async () => {
    const client = await connect(`${running.url}/mcp`, { binding: 'mcp' });
    try {
      expect((await client.listTools()).map((t) => t.name)).toContain('docs_open_document');
      const ai = Object.keys(await toAISDKTools(client));
      expect(ai).toContain('docs_browse_documents');
      expect(ai).not.toContain('docs_open_document');
      const named = Object.keys(await toAISDKTools(client, { include: ['docs_open_document'] }));
      expect(named).toEqual([]);
      const lc = (await toLangChainTools(client)).map((t) => t.name);
      expect(lc).toContain('docs_browse_documents');
      expect(lc).not.toContain('docs_open_document');
    } finally {
      await client.close();
    }
  });
});

it("an unknown tool's error names no app-only tool among those available", async () => {
  const client = await connect(`${running.url}/mcp-lite/v1/`);
  try {
    const err = (await client.call('docs_open_documents', {}).catch((e: unknown) => e)) as {
      code: string;
      data: { available_tools: string[] };
    };
    expect(err.code).toBe('tool_not_found');
    expect(err.data.available_tools).toContain('docs_browse_documents');
    expect(err.data.available_tools).not.toContain('docs_open_document');
  } finally {
    await client.close();
  }
});
