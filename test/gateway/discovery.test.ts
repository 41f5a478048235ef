/**
 * A gateway's AI Catalog (docs/discovery.md): three real upstream servers behind the gateway of
 * `mcplite proxy --config`, and the gateway's `/.well-known/ai-catalog.json` lists its own card and one inline card
 * per upstream, each valid against the card schema, reached through the gateway's endpoints (an upstream's own,
 * often private, address is never published), and the gateway's MCP endpoint named there serves their tools,
 * through tool search (`toolSearch`, `mcplite proxy --tool-search`) over the upstreams' catalog.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, defineTool } from '../../src/index.js';
import { type RunningServer, serve } from '../../src/node.js';
import { cardErrors, catalogErrors } from '../support/discovery-schemas.js';
import { type InProcessGateway, startGateway } from '../support/gateway-in-process.js';

const NAMES = ['billing', 'search', 'tickets'] as const;

describe('a gateway of three upstreams', () => {
  const upstreams: RunningServer[] = [];
  let gw: InProcessGateway;

  beforeAll(async () => {
    for (const name of NAMES) {
      const server = createServer({
        name,
        tools: [defineTool({ name: 'ping', description: `Pings ${name}`, handler: () => name })],
      });
      upstreams.push(await serve(server, { port: 0, grpc: false }));
    }
    gw = await startGateway(
      { mcpServers: Object.fromEntries(NAMES.map((name, i) => [name, { url: `${upstreams[i]!.url}/mcp` }])) },
      { server: { toolSearch: true } },
    );
  }, 60_000);
  afterAll(async () => {
    await gw?.close();
    await Promise.all(upstreams.map((u) => u.close(200)));
  });

  it('lists a card for each upstream in its AI Catalog, each reached through the gateway', async () => {
    const res = await fetch(`${gw.running.url}/.well-known/ai-catalog.json`);
    expect(res.status).toBe(200);
    const text = await res.text();
    const catalog = JSON.parse(text) as {
      entries: { identifier: string; url?: string; data?: { name: string; remotes: { url: string }[] } }[];
    };
    expect(catalogErrors(catalog)).toEqual([]);
    expect(catalog.entries.map((e) => e.identifier)).toEqual([
      'urn:air:127.0.0.1:mcp:gateway',
      ...NAMES.map((name) => `urn:air:127.0.0.1:mcp:${name}`),
    ]);
    expect(catalog.entries[0]!.url).toBe(`${gw.running.url}/mcp/server-card`);
    for (const entry of catalog.entries.slice(1)) {
      expect(cardErrors(entry.data)).toEqual([]);
      expect(entry.data!.remotes.map((r) => r.url)).toEqual([
        `${gw.running.url}/mcp`,
        `${gw.running.url}/sse`,
      ]);
    }
    for (const upstream of upstreams) expect(text).not.toContain(upstream.url);
  });

  it("serves each upstream's tools at the endpoint its card names, searchable (toolSearch)", async () => {
    const catalog = (await (await fetch(`${gw.running.url}/.well-known/ai-catalog.json`)).json()) as {
      entries: { data?: { remotes: { type: string; url: string }[] } }[];
    };
    const remote = catalog.entries[1]!.data!.remotes.find((r) => r.type === 'streamable-http')!;
    const client = new Client({ name: 'gateway-discovery', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(remote.url)));
    try {
      // The gateway searches its upstreams' tools: two tools listed, the upstream's found and called.
      expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['search_tools', 'call_tool']);
      const found = await client.callTool({ name: 'search_tools', arguments: { query: 'ping tickets' } });
      expect((found.structuredContent as { tools: { name: string }[] }).tools[0]!.name).toBe('tickets_ping');
      const called = await client.callTool({ name: 'call_tool', arguments: { name: 'tickets_ping' } });
      expect(JSON.stringify(called.content)).toContain('tickets');
    } finally {
      await client.close();
    }
  });
});
