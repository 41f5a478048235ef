/**
 * Issue 22 item 7: a 401 is `unauthenticated` and a 403 `forbidden`, with the `WWW-Authenticate` challenge
 * (scheme, error, resource_metadata, scope) in the error's data, on every HTTP wire: the MCP handshake (the
 * SDK's transport), MCP stateless, MCP-lite HTTP and Webtools. The server here answers as an OAuth-protected
 * resource does: the challenge header and an OAuth error object as the body (not a JSON-RPC error).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ConnectOptions, connect, McpLiteError } from '../../src/client/index.js';

let server: Server;
let base: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const metadata = `${base}/.well-known/oauth-protected-resource`;
      if ((req.url ?? '').startsWith('/forbidden/')) {
        res.writeHead(403, {
          'content-type': 'application/json',
          'www-authenticate': `Bearer error="insufficient_scope", scope="admin", resource_metadata="${metadata}"`,
        });
        return void res.end('{"error":"insufficient_scope","error_description":"Needs the admin scope"}');
      }
      res.writeHead(401, {
        'content-type': 'application/json',
        'www-authenticate': `Bearer realm="tools", error="invalid_token", error_description="The token \\"t\\" expired", resource_metadata="${metadata}", scope="tools:read tools:call"`,
      });
      res.end('{"error":"invalid_token","error_description":"The token expired"}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

/** The error of connecting and calling (whichever fails first). */
async function denied(target: string, options: ConnectOptions, list = false): Promise<McpLiteError> {
  const err = await connect(target, { token: 'expired', ...options }).then(
    async (client) => {
      try {
        return await (list ? client.listTools() : client.call('echo', { message: 'x' })).then(
          () => undefined,
          (e: unknown) => e,
        );
      } finally {
        await client.close();
      }
    },
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(McpLiteError);
  return err as McpLiteError;
}

const WIRES: Array<{ name: string; path: string; options: ConnectOptions; list?: boolean }> = [
  {
    name: 'MCP handshake (SDK transport)',
    path: 'mcp',
    options: { binding: 'mcp', mcpRevision: 'handshake' },
  },
  { name: 'MCP stateless', path: 'mcp', options: { binding: 'mcp', mcpRevision: 'stateless' } },
  { name: 'MCP, revision asked of the server', path: 'mcp', options: {} },
  { name: 'MCP-lite HTTP', path: 'mcp-lite/v1/', options: {} },
  { name: 'Webtools (metadata)', path: 'webtools/t/', options: {}, list: true },
  { name: 'Webtools (execute)', path: 'webtools/t/', options: {} },
];

describe('401 is unauthenticated with the challenge', () => {
  for (const w of WIRES) {
    it(w.name, async () => {
      const err = await denied(`${base}/${w.path}`, w.options, w.list);
      expect(err.code).toBe('unauthenticated');
      expect(err.data).toMatchObject({
        http_status: 401,
        challenge: {
          scheme: 'Bearer',
          realm: 'tools',
          error: 'invalid_token',
          error_description: 'The token "t" expired',
          resource_metadata: `${base}/.well-known/oauth-protected-resource`,
          scope: 'tools:read tools:call',
        },
      });
      expect(err.message).toContain('expired');
      // The token sent is never repeated back.
      expect(JSON.stringify(err.data)).not.toContain('Bearer expired');
    });
  }
});

describe('403 is forbidden with the challenge', () => {
  for (const w of WIRES) {
    it(w.name, async () => {
      const err = await denied(`${base}/forbidden/${w.path}`, w.options, w.list);
      expect(err.code).toBe('forbidden');
      expect(err.data).toMatchObject({
        http_status: 403,
        challenge: { scheme: 'Bearer', error: 'insufficient_scope', scope: 'admin' },
      });
      expect(err.message).toContain('admin scope');
    });
  }
});
