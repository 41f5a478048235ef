/**
 * An MCP Apps server built with the official SDK's McpServer over Streamable HTTP (stateless), for the inspector's
 * Apps host tests: `show_shelf` with a `ui://` view, `legacy_shelf` with the same view named by the deprecated
 * `_meta["ui/resourceUri"]` alone, `open_item` callable by views only, `model_only` hidden from
 * views, a plain resource, and whatever extra resources a test needs (a view that is not one, a base64 view).
 */
import { createServer as createHttpServer, type Server } from 'node:http';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';

/** The view's URI. */
export const VIEW_URI = 'ui://shelf/view.html';
/** The media type of an MCP Apps view. */
export const VIEW_MIME = 'text/html;profile=mcp-app';

/** One extra resource: its URI and its one content (served as given). */
export interface ExtraResource {
  uri: string;
  content: Record<string, unknown>;
}

/** The view's document and `_meta.ui`, asked for on each read (the server's own origin is known by then). */
export interface ShelfOptions {
  view(origin: string): { html: string; ui: Record<string, unknown> };
  extra?: ExtraResource[];
}

/** A running shelf server: its MCP URL, its origin, and how to stop it. */
export interface Shelf {
  url: string;
  origin: string;
  close(): void;
}

/** Starts the shelf server on a free loopback port. `/linked` answers a small page (an open-link target). */
export async function serveShelf(options: ShelfOptions): Promise<Shelf> {
  let origin = '';
  const http: Server = createHttpServer(async (req, res) => {
    if (req.url === '/linked') {
      res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>linked</title>');
      return;
    }
    const server = new McpServer({ name: 'shelf', version: '1.0.0' });
    server.registerTool(
      'show_shelf',
      {
        description: 'Shows the shelf',
        inputSchema: { owner: z.string() },
        _meta: { ui: { resourceUri: VIEW_URI } },
      },
      async ({ owner }) => ({
        content: [{ type: 'text', text: `${owner}'s shelf: a, b` }],
        structuredContent: { items: ['a', 'b'] },
      }),
    );
    server.registerTool(
      'open_item',
      {
        description: 'Opens one item (the view calls it)',
        inputSchema: { id: z.string() },
        _meta: { ui: { resourceUri: VIEW_URI, visibility: ['app'] } },
      },
      async ({ id }) => ({
        content: [{ type: 'text', text: `opened ${id}` }],
        structuredContent: { opened: id },
      }),
    );
    // A view named only by the deprecated flat key, as servers built on older helpers still list it.
    server.registerTool(
      'legacy_shelf',
      { description: 'Shows the shelf (older helpers)', _meta: { 'ui/resourceUri': VIEW_URI } },
      async () => ({ content: [{ type: 'text', text: 'a, b' }], structuredContent: { items: ['a', 'b'] } }),
    );
    server.registerTool(
      'model_only',
      { description: 'Not for views', _meta: { ui: { visibility: ['model'] } } },
      async () => ({ content: [{ type: 'text', text: 'no' }] }),
    );
    server.registerResource('view', VIEW_URI, { mimeType: VIEW_MIME }, async () => {
      const { html, ui } = options.view(origin);
      return { contents: [{ uri: VIEW_URI, mimeType: VIEW_MIME, text: html, _meta: { ui } }] };
    });
    server.registerResource('note', 'note://shelf/hello', { mimeType: 'text/plain' }, async () => ({
      contents: [{ uri: 'note://shelf/hello', mimeType: 'text/plain', text: 'hello from a resource' }],
    }));
    for (const [i, extra] of (options.extra ?? []).entries()) {
      server.registerResource(`extra-${i}`, extra.uri, {}, async () => ({
        contents: [{ uri: extra.uri, ...extra.content } as { uri: string; text: string }],
      }));
    }
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on('close', () => void transport.close());
    await server.connect(transport);
    await transport.handleRequest(req, res);
  });
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
  origin = `http://127.0.0.1:${(http.address() as { port: number }).port}`;
  return {
    url: `${origin}/mcp`,
    origin,
    close() {
      http.closeAllConnections();
      http.close();
    },
  };
}
