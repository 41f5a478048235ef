import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * An authorization server under the test's control, on a loopback port: its metadata (RFC 8414), key set and
 * introspection endpoint (RFC 7662) each either answer as the test says or stream a body that never ends, and it
 * counts every request, so a test proves by counts what the resource server asked (caches, bounds) and sees the
 * resource server close an endless answer's connection.
 */

/** The documents this server serves. */
export type Document = 'metadata' | 'jwks' | 'introspection';

/** A running hostile issuer. */
export interface HostileIssuer {
  /** The issuer identifier, e.g. `http://127.0.0.1:41234`. */
  readonly issuer: string;
  readonly introspectionEndpoint: string;
  /** How many requests each document got. */
  readonly requests: Record<Document, number>;
  /** Documents answered with a body that never ends (backpressure respected, so bytes sent = bytes taken). */
  readonly endless: Set<Document>;
  /** The introspection answer for a token (may wait, to hold a request in flight). */
  introspect: (token: string) => Record<string, unknown> | Promise<Record<string, unknown>>;
  /** Resolves once `document` has had `count` requests in all. */
  requested(document: Document, count: number): Promise<void>;
  /** Resolves when the next endless answer's connection is closed by the peer, with the bytes it took. */
  endlessClosed(): Promise<number>;
  close(): Promise<void>;
}

const CHUNK = Buffer.alloc(16 * 1024, ' ');

/** Starts a hostile issuer on 127.0.0.1 (port 0). */
export async function startHostileIssuer(): Promise<HostileIssuer> {
  const requests: Record<Document, number> = { metadata: 0, jwks: 0, introspection: 0 };
  const waiters: Array<{ document: Document; count: number; resolve: () => void }> = [];
  const closedWaiters: Array<(bytes: number) => void> = [];
  const closedBytes: number[] = [];
  const http = createServer();
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;

  const streamForever = (res: ServerResponse) => {
    let sent = 0;
    let open = true;
    res.on('close', () => {
      open = false;
      const waiter = closedWaiters.shift();
      if (waiter) waiter(sent);
      else closedBytes.push(sent);
    });
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write('{"padding":"');
    const pump = () => {
      while (open) {
        sent += CHUNK.length;
        if (!res.write(CHUNK)) return void res.once('drain', pump);
      }
    };
    pump();
  };

  const self: HostileIssuer = {
    issuer,
    introspectionEndpoint: `${issuer}/introspect`,
    requests,
    endless: new Set(),
    introspect: () => ({ active: false }),
    requested: (document, count) =>
      requests[document] >= count
        ? Promise.resolve()
        : new Promise((resolve) => waiters.push({ document, count, resolve })),
    endlessClosed: () => {
      const bytes = closedBytes.shift();
      return bytes !== undefined
        ? Promise.resolve(bytes)
        : new Promise((resolve) => closedWaiters.push(resolve));
    },
    close: () =>
      new Promise((resolve) => {
        http.closeAllConnections();
        http.close(() => resolve());
      }),
  };

  http.on('request', async (req, res) => {
    const path = new URL(req.url ?? '/', issuer).pathname;
    const document: Document | undefined = path.startsWith('/.well-known/')
      ? 'metadata'
      : path === '/jwks'
        ? 'jwks'
        : path === '/introspect'
          ? 'introspection'
          : undefined;
    if (!document) return void res.writeHead(404).end();
    requests[document]++;
    for (const w of waiters.filter((w) => w.document === document && requests[document] >= w.count)) {
      waiters.splice(waiters.indexOf(w), 1);
      w.resolve();
    }
    let body = '';
    for await (const chunk of req) body += chunk;
    if (self.endless.has(document)) return streamForever(res);
    const answer =
      document === 'metadata'
        ? { issuer, jwks_uri: `${issuer}/jwks`, introspection_endpoint: self.introspectionEndpoint }
        : document === 'jwks'
          ? { keys: [] }
          : await self.introspect(new URLSearchParams(body).get('token') ?? '');
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
  });
  return self;
}
