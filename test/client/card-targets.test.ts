/**
 * A Server Card as where a connection starts (docs/discovery.md), over real sockets: the mcplite client's own
 * `connect()` takes a card URL and connects to the Streamable HTTP remote the card lists; a gateway config entry
 * `"card": "<url>"` reads a real server's card and serves that server's tools. What is not a usable card is
 * refused by name: an HTML page, a document the card schema refuses, and a card with no Streamable HTTP remote.
 */

import { readFileSync } from 'node:fs';
import { createServer as createHttpServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect } from '../../src/client/index.js';
import { SERVER_CARD_SCHEMA } from '../../src/core/discovery/server-card-schema.js';
import { createServer, defineTool } from '../../src/index.js';
import { type RunningServer, serve } from '../../src/node.js';
import { connectRefusal } from '../support/connect-refusal.js';
import { cardErrors, DISCOVERY_SPEC } from '../support/discovery-schemas.js';
import { overSdkClient, startGateway } from '../support/gateway-in-process.js';

/** A card valid against the schema, with these remotes. */
function card(remotes: { type: string; url: string }[]): Record<string, unknown> {
  return {
    $schema: 'https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json',
    name: 'com.example/other',
    version: '1.0.0',
    description: 'A server elsewhere',
    remotes,
  };
}

describe('a Server Card as a target', () => {
  let upstream: RunningServer;
  let documents: Server;
  let docs = '';

  beforeAll(async () => {
    upstream = await serve(
      createServer({
        name: 'billing',
        version: '1.2.0',
        description: 'Invoices and payments',
        tools: [defineTool({ name: 'invoice_total', description: 'Totals an invoice', handler: () => 42 })],
      }),
      { port: 0, grpc: false },
    );
    // Documents that look like cards and are not usable ones, served as a web server would.
    const pages: Record<string, [string, string]> = {
      '/html/server-card': ['text/html', '<html><body>Welcome</body></html>'],
      '/invalid/server-card': ['application/mcp-server-card+json', JSON.stringify({ name: 'x' })],
      '/sse-only/server-card': [
        'application/mcp-server-card+json',
        JSON.stringify(card([{ type: 'sse', url: `${upstream.url}/sse` }])),
      ],
      '/templated/server-card': [
        'application/json',
        JSON.stringify(card([{ type: 'streamable-http', url: 'https://{tenant}.example.com/mcp' }])),
      ],
    };
    documents = createHttpServer((req, res) => {
      const page = pages[req.url ?? ''];
      res.writeHead(page ? 200 : 404, { 'content-type': page?.[0] ?? 'text/plain' });
      res.end(page?.[1] ?? 'not found');
    });
    await new Promise<void>((resolve) => documents.listen(0, '127.0.0.1', resolve));
    docs = `http://127.0.0.1:${(documents.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await upstream?.close(200);
    await new Promise((resolve) => documents?.close(resolve));
  });

  it('the schema the client checks cards with is the published one the tests use', () => {
    const published = JSON.parse(readFileSync(join(DISCOVERY_SPEC, 'server-card/schema.json'), 'utf8'));
    expect(SERVER_CARD_SCHEMA).toEqual(published);
    // The refused cards below are valid ones: what is refused is their remotes.
    expect(cardErrors(card([{ type: 'sse', url: 'http://127.0.0.1/sse' }]))).toEqual([]);
  });

  it("connect() takes a card URL and calls the server at the card's remote", async () => {
    const client = await connect(`${upstream.url}/mcp/server-card`);
    try {
      expect((await client.listTools()).map((t) => t.name)).toEqual(['invoice_total']);
      expect(await client.call('invoice_total')).toMatchObject({ type: 'answer', value: 42 });
    } finally {
      await client.close();
    }
  });

  it('refuses what is not a usable card, by name', async () => {
    const refusal = (path: string) => connectRefusal(`${docs}${path}/server-card`, {}, path);
    expect((await refusal('/html')).message).toContain('is not a Server Card: it answered text/html');
    const invalid = await refusal('/invalid');
    expect(invalid.code).toBe('invalid_params');
    expect(invalid.message).toContain('is not valid');
    for (const path of ['/sse-only', '/templated'])
      expect((await refusal(path)).message).toContain('lists no Streamable HTTP remote');
    expect((await refusal('/missing')).message).toContain('HTTP 404');
  });

  it('a gateway entry "card" serves the tools of the server its card lists', async () => {
    const gw = await startGateway({ mcpServers: { billing: { card: `${upstream.url}/mcp/server-card` } } });
    await overSdkClient(gw, 'card-entry', async (mcp) => {
      expect((await mcp.listTools()).tools.map((t) => t.name)).toEqual(['billing_invoice_total']);
      const called = await mcp.callTool({ name: 'billing_invoice_total', arguments: {} });
      expect(JSON.stringify(called.content)).toContain('42');
    });
  });

  it('a gateway entry "card" with no Streamable HTTP remote is refused, saying why', async () => {
    await expect(
      startGateway({ mcpServers: { old: { card: `${docs}/sse-only/server-card` } } }, { strict: true }),
    ).rejects.toThrow(/lists no Streamable HTTP remote/);
  });
});
