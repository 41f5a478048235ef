/**
 * Hostile parties of an OAuth sign-in, as real HTTP listeners on loopback ports: a resource server that refuses
 * every request with a Bearer challenge and names, in its protected resource metadata, whatever authorization
 * server the test wants (an attacker's); an authorization server that records everything it receives; and a
 * document that never ends, which records whether the reader hung up.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request as a listener received it. */
export interface Received {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

/** A running listener with what it received. */
export interface Listener {
  readonly origin: string;
  readonly received: Received[];
  /** Everything received, as one string (to assert a secret never arrived). */
  text(): string;
  close(): Promise<void>;
}

type Handler = (req: Received, res: ServerResponse, origin: string) => void;

/** Starts a listener on 127.0.0.1 (port 0) that records each request whole, then answers it with `handle`. */
export async function startListener(handle: Handler): Promise<Listener> {
  const received: Received[] = [];
  let origin = '';
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const r = {
        method: req.method ?? '',
        url: req.url ?? '/',
        headers: req.headers,
        body: Buffer.concat(chunks).toString(),
      };
      received.push(r);
      handle(r, res, origin);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    received,
    text: () => received.map((r) => `${r.method} ${r.url} ${JSON.stringify(r.headers)} ${r.body}`).join('\n'),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

/**
 * A resource server that refuses everything with `Bearer resource_metadata=…` and whose metadata names
 * `authorizationServers` (`metadata` replaces the document's handler, e.g. with an endless one).
 */
export function startProtectedResource(
  authorizationServers: () => string[],
  metadata?: (res: ServerResponse) => void,
): Promise<Listener> {
  return startListener((req, res, origin) => {
    if (req.url.startsWith('/.well-known/oauth-protected-resource')) {
      if (metadata) return metadata(res);
      return json(res, 200, { resource: `${origin}/mcp`, authorization_servers: authorizationServers() });
    }
    res
      .writeHead(401, {
        'www-authenticate': `Bearer resource_metadata="${origin}/.well-known/oauth-protected-resource/mcp"`,
        'content-type': 'application/json',
      })
      .end('{"error":"invalid_token"}');
  });
}

/**
 * An authorization server that answers its metadata (issuer = its origin, with `extra` merged: e.g. without
 * `code_challenge_methods_supported`) and refuses everything else with `invalid_client`, recording it all.
 */
export function startRecordingIssuer(extra: Record<string, unknown> = {}): Promise<Listener> {
  return startListener((req, res, origin) => {
    if (req.url.startsWith('/.well-known/')) {
      return json(res, 200, {
        issuer: origin,
        authorization_endpoint: `${origin}/authorize`,
        token_endpoint: `${origin}/token`,
        registration_endpoint: `${origin}/register`,
        response_types_supported: ['code'],
        grant_types_supported: ['authorization_code', 'client_credentials', 'refresh_token'],
        token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none'],
        code_challenge_methods_supported: ['S256'],
        ...extra,
      });
    }
    json(res, 400, { error: 'invalid_client' });
  });
}

/** A handler that answers a JSON document that never ends; `hungUp` resolves when the reader closes it. */
export function endlessDocument(): { handler: (res: ServerResponse) => void; hungUp: Promise<void> } {
  let hungUp!: () => void;
  const done = new Promise<void>((resolve) => {
    hungUp = resolve;
  });
  const chunk = `"${'x'.repeat(64 * 1024 - 2)}",`;
  return {
    hungUp: done,
    handler: (res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"resource":"x","padding":[');
      // Written as fast as the reader takes it (back-pressure), until the reader goes away.
      const pump = () => {
        while (!res.destroyed && res.write(chunk));
      };
      res.on('drain', pump);
      res.on('close', () => hungUp());
      pump();
    },
  };
}
