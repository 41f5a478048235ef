import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { McpLiteError } from '../core/errors.js';
import type { NeutralHandler, NeutralRequest, NeutralResponse } from '../core/http.js';
import { isOverLimit, limitConnections, refuseOverLimit } from './connection-limit.js';
import { closeIdleSockets } from './idle-sockets.js';
import { writeStream } from './node-stream.js';

/**
 * The node:http adapter, the fast default. It makes no `Request` object: headers are node's own object, the body
 * is read only when a binding asks (and only up to its limit), the AbortSignal is created only when used.
 */

const NOT_FOUND_BODY = JSON.stringify({
  jsonrpc: '2.0',
  id: null,
  error: { code: -32601, message: 'Not found' },
});
// What a handler that declines at once is treated as: a resolved "not mine".
const DECLINED = Promise.resolve(undefined);
const INTERNAL_BODY = JSON.stringify({
  jsonrpc: '2.0',
  id: null,
  error: { code: -32603, message: 'Internal error' },
});

class NodeRequest implements NeutralRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: Readonly<Record<string, string | undefined>>;
  private controller: AbortController | undefined;

  constructor(
    private readonly req: IncomingMessage,
    private readonly res: ServerResponse,
  ) {
    this.method = req.method ?? 'GET';
    this.path = pathOf(req.url ?? '/');
    // node joins repeated headers with ", " except set-cookie, which requests do not carry.
    this.headers = req.headers as Record<string, string | undefined>;
  }

  // A getter, as the path is cut before the query on the hot path and few requests need the query.
  get query(): string {
    const target = this.req.url ?? '';
    const q = target.indexOf('?');
    return q < 0 ? '' : target.slice(q + 1);
  }

  // A getter: node asks the socket (a call into C++) and few requests ever need the address.
  get remoteAddress(): string | undefined {
    return this.req.socket?.remoteAddress;
  }

  get signal(): AbortSignal {
    if (!this.controller) {
      const controller = new AbortController();
      this.controller = controller;
      const gone = () => {
        if (!this.res.writableFinished) {
          controller.abort(new McpLiteError('cancelled', 'The client went away'));
        }
      };
      if (this.res.closed) gone();
      else this.res.once('close', gone);
    }
    return this.controller.signal;
  }

  readBody(limit: number): Promise<Uint8Array> {
    const declared = this.req.headers['content-length'];
    if (declared !== undefined && Number(declared) > limit) return Promise.reject(tooLarge(limit));
    if (this.req.destroyed) {
      return Promise.reject(new McpLiteError('cancelled', 'The connection closed before the body was read'));
    }
    // The client waits for this before it sends the body; a refusal above goes out instead and saves the upload.
    if (awaitingContinue.delete(this.res)) this.res.writeContinue();
    return new Promise((resolve, reject) => {
      const chunks: Buffer[] = [];
      let size = 0;
      // Settled once; later events are ignored rather than unsubscribed from: removing three listeners costs
      // every request more than the flag, and the request object goes away with them.
      let settled = false;
      const onData = (chunk: Buffer) => {
        if (settled) return;
        size += chunk.length;
        if (size > limit) {
          settled = true;
          chunks.length = 0;
          // Stop reading: the response says Connection: close, so the rest is never buffered.
          this.req.pause();
          reject(tooLarge(limit));
          return;
        }
        chunks.push(chunk);
      };
      const onEnd = () => {
        if (settled) return;
        settled = true;
        resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size));
      };
      // A connection that closes (or fails: node then closes the request too) before the body ended must not
      // leave this promise and its chunks pending. No 'error' listener: node emits a request's errors only to
      // listeners it has, and 'close' follows every one of them.
      const onClose = () => {
        if (settled) return;
        settled = true;
        chunks.length = 0;
        reject(new McpLiteError('cancelled', 'The connection closed before the request body was read'));
      };
      this.req.on('data', onData);
      this.req.on('end', onEnd);
      this.req.on('close', onClose);
    });
  }
}

/** The path of a request target: origin-form (`/a?b`) or absolute-form (`http://h/a?b`, RFC 9112 3.2.2). */
function pathOf(target: string): string {
  if (target.charCodeAt(0) !== 47 /* / */) {
    try {
      return new URL(target).pathname;
    } catch {
      return target;
    }
  }
  const q = target.indexOf('?');
  return q < 0 ? target : target.slice(0, q);
}

/** Responses whose client sent `Expect: 100-continue` and still waits for the go-ahead (see `listenNode`). */
const awaitingContinue = new WeakSet<ServerResponse>();

function tooLarge(limit: number): McpLiteError {
  return new McpLiteError('payload_too_large', `Payload Too Large: the body exceeds ${limit} bytes`, {
    limit,
  });
}

/**
 * Writes a neutral response. A whole body is written at once and nothing is returned: a promise here would cost
 * every request extra microtask turns. A streamed body is handed to `writeStream`, whose promise is returned.
 */
function writeResponse(
  req: IncomingMessage,
  res: ServerResponse,
  response: NeutralResponse,
): Promise<void> | undefined {
  const { body, status } = response;
  // A body nobody read (an early 4xx, a 413) would otherwise be read to its end just to be thrown away.
  if (!req.complete) res.setHeader('connection', 'close');
  if (body === undefined || typeof body === 'string' || body instanceof Uint8Array) {
    if (status === 204 || status === 304) res.writeHead(status, response.headers);
    else {
      const length =
        body === undefined ? 0 : typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength;
      res.writeHead(status, withContentLength(response.headers, length));
    }
    res.end(body);
    return undefined;
  }
  return writeStream(res, status, response.headers, body, response.abandoned);
}

/**
 * The headers plus Content-Length, in one object for writeHead: a setHeader() before writeHead() would put node
 * on its slower path, which validates and copies every header once more. A Content-Length the binding set
 * itself (lower-case, as all header names here) still wins, as it did with setHeader.
 */
function withContentLength(headers: Record<string, string>, length: number): Record<string, string | number> {
  const all: Record<string, string | number> = { 'content-length': length };
  for (const name in headers) all[name] = headers[name]!;
  return all;
}

/** Options of the node adapter. */
export interface NodeListenerOptions {
  /** Called with errors the adapter itself catches (a bug in a handler); never with client data. */
  onError?: (err: unknown) => void;
}

/** Turns a neutral handler into a `(req, res)` listener for `node:http` (or anything that takes one). */
export function toNodeListener(handler: NeutralHandler, options: NodeListenerOptions = {}) {
  return (req: IncomingMessage, res: ServerResponse): void => {
    const fail = (err: unknown) => {
      options.onError?.(err);
      if (!res.headersSent) {
        res.writeHead(500, { 'content-type': 'application/json' });
        res.end(INTERNAL_BODY);
      } else res.destroy();
    };
    // One then(ok, fail) with a try/catch rather than then().catch(): a promise and a microtask less per request.
    (handler(new NodeRequest(req, res)) ?? DECLINED).then((response) => {
      try {
        writeResponse(
          req,
          res,
          response ?? { status: 404, headers: { 'content-type': 'application/json' }, body: NOT_FOUND_BODY },
        )?.catch(fail);
      } catch (err) {
        fail(err);
      }
    }, fail);
  };
}

/**
 * Takes an HTTP upgrade request (a WebSocket handshake) if it is for one of its paths, answering it, and returns
 * true; returns false for any other path, which is then answered 404.
 */
export type UpgradeHandler = (req: IncomingMessage, socket: Duplex, head: Buffer) => boolean;

/** Options of `listenNode`. */
export interface ListenOptions extends NodeListenerOptions {
  /**
   * Handles upgrade requests (WebSocket bindings). Without it node closes them. With it, every request that asks
   * for an upgrade goes here rather than to the handler (node's rule), so an `Upgrade: h2c` one is refused.
   */
  onUpgrade?: UpgradeHandler;
  /** Port; 0 picks a free one. Default 0. */
  port?: number;
  /** Address to bind. Default 127.0.0.1. */
  host?: string;
  /** Longest time to receive a whole request (headers and body), in ms. Default 30 000. */
  requestTimeoutMs?: number;
  /** Longest time to receive the headers, in ms (at most `requestTimeoutMs`). Default 10 000. */
  headersTimeoutMs?: number;
  /**
   * A connection on which no byte moved either way for this long is closed, in ms (found by a sweep every quarter
   * of it, so within 1.25 times it). Upgraded connections (WebSocket) are left to their own keepalive. Default
   * 120 000; 0 turns it off.
   */
  idleTimeoutMs?: number;
  /** Keep-alive time between requests, in ms. Default 5 000. */
  keepAliveTimeoutMs?: number;
  /**
   * Most connections served at once. The next `OVERFLOW_CONNECTIONS` (64) are answered 503 with Retry-After and
   * closed; beyond those, node closes new connections as they arrive. So a flood of sockets degrades into quick
   * refusals instead of running the process out of file descriptors. Default 900, which keeps the whole below
   * the common 1024 file limit. 0 turns the limit off.
   */
  maxConnections?: number;
}

/** A listening node:http server. */
export interface NodeListening {
  server: Server;
  port: number;
  host: string;
  /** Base URL, e.g. http://127.0.0.1:3000 */
  url: string;
  /** Stops accepting connections, lets in-flight responses finish, then closes idle sockets. */
  close(): Promise<void>;
}

/** How often, after a client half-closed, its connection must take some of the output it still owes, in ms. */
const HALF_CLOSED_PROGRESS_MS = 2_000;

/**
 * A client that half-closed (sent FIN) and does not read what it is owed has gone: node would keep the output
 * (a whole batch's answer, say) until the idle timeout. Its connection is destroyed, freeing that output, once
 * it takes nothing for `HALF_CLOSED_PROGRESS_MS`; one that reads on, however slowly, gets everything.
 */
function freeWhenPeerStopsReading(socket: Socket): void {
  socket.once('end', () => {
    // Watched until it closes: an answer still being worked out may be written later.
    let owed = unsentBytes(socket);
    const check = setInterval(() => {
      const now = unsentBytes(socket);
      if (now > 0 && now === owed) socket.destroy();
      owed = now;
    }, HALF_CLOSED_PROGRESS_MS);
    check.unref();
    socket.once('close', () => clearInterval(check));
  });
}

/**
 * A measure of what the socket has yet to hand to the kernel that changes whenever the peer takes some of it.
 * `writableLength` alone counts a write until all of it is sent, so one large body would look stuck however fast
 * it goes; the handle's `writeQueueSize` (libuv's count, which node's own stream code reads) falls as it is sent.
 */
function unsentBytes(socket: Socket): number {
  const handle = (socket as Socket & { _handle?: { writeQueueSize?: number } | null })._handle;
  return (handle?.writeQueueSize ?? 0) + socket.writableLength;
}

function checkingInterval(requestTimeout: number, headersTimeout: number): number {
  const shortest = Math.min(...[requestTimeout, headersTimeout].filter((t) => t > 0), 120_000);
  return Math.max(10, Math.min(30_000, Math.floor(shortest / 4)));
}

/** Serves a neutral handler on node:http with the timeouts set. */
export async function listenNode(
  handler: NeutralHandler,
  options: ListenOptions = {},
): Promise<NodeListening> {
  const requestTimeout = options.requestTimeoutMs ?? 30_000;
  // node refuses a header timeout longer than the request timeout; the shorter one wins anyway.
  const wantedHeadersTimeout = options.headersTimeoutMs ?? 10_000;
  const headersTimeout =
    requestTimeout > 0 ? Math.min(wantedHeadersTimeout, requestTimeout) : wantedHeadersTimeout;
  const served = toNodeListener(handler, options);
  const maxConnections = options.maxConnections ?? 900;
  // One property read per request, and only when a limit is set: the socket is marked when it was accepted.
  const listener =
    maxConnections > 0
      ? (req: IncomingMessage, res: ServerResponse) => {
          if (isOverLimit(req.socket)) refuseOverLimit(res);
          else served(req, res);
        }
      : served;
  const server = createServer(
    {
      requestTimeout,
      headersTimeout,
      keepAliveTimeout: options.keepAliveTimeoutMs ?? 5_000,
      // node enforces both timeouts only when it sweeps its connections (every 30 s by default), so a short
      // timeout would really last up to 30 s longer: sweep often enough for the shortest one to hold.
      connectionsCheckingInterval: checkingInterval(requestTimeout, headersTimeout),
    },
    listener,
  );
  // Without this node sends `100 Continue` before the handler has looked at the request, so a client would
  // start uploading a body that is then refused; with it, `100 Continue` is sent only when the body is read.
  server.on('checkContinue', (req: IncomingMessage, res: ServerResponse) => {
    awaitingContinue.add(res);
    listener(req, res);
  });
  // Not `server.setTimeout`, which re-arms a timer twice per request: a sweep finds the same idle connections.
  const forgetSocket = closeIdleSockets(server, options.idleTimeoutMs ?? 120_000);
  const onUpgrade = options.onUpgrade;
  if (onUpgrade) {
    server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
      let taken = false;
      try {
        taken = onUpgrade(req, socket, head);
      } catch (err) {
        options.onError?.(err);
        socket.destroy();
        return;
      }
      // An upgraded connection keeps itself alive or not (WebSocket pings), as node leaves it to do.
      if (taken) forgetSocket(socket as Socket);
      else {
        socket.on('error', () => {});
        socket.end(
          'HTTP/1.1 404 Not Found\r\nconnection: close\r\ncontent-type: application/json\r\n' +
            `content-length: ${Buffer.byteLength(NOT_FOUND_BODY)}\r\n\r\n${NOT_FOUND_BODY}`,
        );
      }
    });
  }
  server.on('connection', freeWhenPeerStopsReading);
  if (maxConnections > 0) limitConnections(server, maxConnections);
  const host = options.host ?? '127.0.0.1';
  server.listen(options.port ?? 0, host);
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  const urlHost = host.includes(':') ? `[${host}]` : host;
  return {
    server,
    port,
    host,
    url: `http://${urlHost}:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      }),
  };
}
