/**
 * Issue 22 item 17: a redirect never takes the caller's headers, token or body to another origin. Server A
 * answers 307 to server B on another loopback port; B must receive nothing, on every HTTP wire of the client
 * (and while detecting the binding). A redirect within A's origin that keeps the method is still followed.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type ConnectOptions, connect, McpLiteError } from '../../src/client/index.js';

let a: Server;
let b: Server;
let aUrl: string;
let bUrl: string;
/** Every request B received: if any, a secret crossed origins. */
const reachedB: Array<{ url: string; headers: IncomingMessage['headers']; body: string }> = [];
/** Bodies A's MCP-lite endpoint received. */
const reachedA: string[] = [];

const listen = async (handler: (req: IncomingMessage, res: ServerResponse, body: string) => void) => {
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => {
      body += c.toString();
    });
    req.on('end', () => handler(req, res, body));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
};

beforeAll(async () => {
  ({ server: b, url: bUrl } = await listen((req, res, body) => {
    reachedB.push({ url: req.url ?? '', headers: req.headers, body });
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"tools":[],"actions":[]}');
  }));
  ({ server: a, url: aUrl } = await listen((req, res, body) => {
    const url = req.url ?? '';
    if (url.startsWith('/away/')) {
      return void res.writeHead(307, { location: `${bUrl}${url}` }).end();
    }
    if (url === '/same/calltools') return void res.writeHead(307, { location: '/lite/calltools' }).end();
    if (url === '/found/calltools') return void res.writeHead(302, { location: '/lite/calltools' }).end();
    if (url === '/lite/calltools') {
      reachedA.push(body);
      const { id } = JSON.parse(body) as { id: number };
      res.writeHead(200, { 'content-type': 'application/json' });
      return void res.end(JSON.stringify({ jsonrpc: '2.0', id, result: { value: 'here' } }));
    }
    res.writeHead(404).end();
  }));
});
afterAll(async () => {
  for (const s of [a, b]) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
});
beforeEach(() => {
  reachedB.length = 0;
  reachedA.length = 0;
});

const secrets: ConnectOptions = { token: 'tok-123', headers: { 'x-custom': 'secret' } };

async function refused(target: string, options: ConnectOptions, list = false): Promise<McpLiteError> {
  const err = await connect(target, { ...secrets, ...options }).then(
    async (client) => {
      try {
        return await (list ? client.listTools() : client.call('echo', { message: 'body-secret' })).then(
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
  expect(reachedB).toEqual([]);
  return err as McpLiteError;
}

describe('a 307 to another origin', () => {
  it('MCP-lite HTTP: refused, B gets neither the headers nor the body', async () => {
    const err = await refused(`${aUrl}/away/`, { binding: 'mcp-lite-http' });
    expect(err.code).toBe('unavailable');
    expect(err.data).toMatchObject({ reason: 'redirect_refused', http_status: 307 });
    expect(err.message).toContain('another origin');
    expect(err.message).toContain(bUrl);
  });

  it('Webtools: refused for the metadata GET and the execute POST', async () => {
    const get = await refused(`${aUrl}/away/webtools/t/`, { binding: 'webtools' }, true);
    expect(get.data).toMatchObject({ reason: 'redirect_refused' });
    const post = await refused(`${aUrl}/away/webtools/t/`, { binding: 'webtools' });
    expect(post.data).toMatchObject({ reason: 'redirect_refused' });
  });

  it('MCP stateless: refused', async () => {
    const err = await refused(`${aUrl}/away/mcp`, { binding: 'mcp', mcpRevision: 'stateless' });
    expect(err.data).toMatchObject({ reason: 'redirect_refused' });
  });

  it('MCP handshake (SDK transport): not followed', async () => {
    await refused(`${aUrl}/away/mcp`, { binding: 'mcp', mcpRevision: 'handshake' });
  });

  it('detection: neither probe nor handshake follows it', async () => {
    await refused(`${aUrl}/away/somewhere`, {});
  });
});

describe('redirects within the origin', () => {
  it('a 307 that keeps the method is followed, body and all', async () => {
    const client = await connect(`${aUrl}/same/`, { ...secrets, binding: 'mcp-lite-http' });
    const outcome = await client.call('echo', { message: 'hi' });
    await client.close();
    expect(outcome).toMatchObject({ type: 'answer' });
    expect(reachedA).toHaveLength(1);
    expect(JSON.parse(reachedA[0]!).params.arguments).toEqual({ message: 'hi' });
  });

  it('a 302 that would turn the POST into a GET is refused', async () => {
    const err = await refused(`${aUrl}/found/`, { binding: 'mcp-lite-http' });
    expect(err.data).toMatchObject({ reason: 'redirect_refused', http_status: 302 });
    expect(reachedA).toEqual([]);
  });
});
