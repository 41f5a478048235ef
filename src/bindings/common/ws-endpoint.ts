import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { type RawData, type WebSocket, WebSocketServer } from 'ws';
import type { Principal } from '../../core/auth.js';
import { McpLiteError } from '../../core/errors.js';
import type { ToolServer } from '../../core/server.js';
import { errorExit } from './error-exit.js';
import { checkHostAndOrigin, type HostGuardOptions } from './host-guard.js';
import { type ErrorWire, errorHeaders } from './http-reply.js';
import type { ConnectionPeer, JsonRpcConnection } from './json-rpc-connection.js';
import { type OutboundSink, OutboundWriter, type StreamBoundOptions } from './outbound-stream.js';

/**
 * The one WebSocket framing of JSON-RPC, for MCP (`/mcp`, subprotocol `mcp`) and MCP-lite (`/mcp-lite/v1/ws`,
 * subprotocol `mcp-lite`) alike, on the `ws` package: the upgrade checked as the HTTP bindings check a request
 * (refused with the status and JSON-RPC body of the protocol spoken), then one text message per JSON-RPC message
 * (or batch) in each direction, each connection one `JsonRpcConnection` (`json-rpc-connection.ts`).
 */

/** WebSocket close codes the server uses (RFC 6455 7.4.1). */
const CLOSE = {
  /** The client asked to end the connection (the draft's `exit`). */
  normal: 1000,
  /** The server is shutting down. */
  goingAway: 1001,
} as const;

/** Options of a WebSocket endpoint: where it is, and the bounds that keep one client from hurting the rest. */
export interface WsEndpointOptions extends HostGuardOptions, StreamBoundOptions {
  /** The path the upgrade request must name (a trailing slash is ignored). */
  path: string;
  /** The subprotocol spoken. A client offering others but not this one is refused; one offering none is served. */
  subprotocol: string;
  /** How the protocol spoken writes its errors (refused upgrades). */
  wire: ErrorWire;
  /** Check Host and Origin (DNS-rebinding protection, as on HTTP). Default false; `serve` turns it on for loopback. */
  checkHost?: boolean;
  /** Largest accepted message in bytes, enforced while frames are read (close 1009). Default 4 MiB. */
  maxMessageBytes?: number;
  /**
   * @deprecated The bound is `maxQueuedBytes`, the one every stream and connection has (here: default 8 MiB of a
   * connection's answers unread); this name is still honoured when that one is not given.
   */
  maxBufferedBytes?: number;
  /** A ping is sent this often; a connection that has not answered the previous one is dropped. Default 30 000; 0: off. */
  keepAliveMs?: number;
  /** Most open connections on this endpoint. Default 1024. */
  maxConnections?: number;
  /** Most open connections per caller (`callerKey`: the principal, else the address). Default 64. */
  maxConnectionsPerCaller?: number;
  /** The `binding` field of the endpoint's log lines. */
  binding?: string;
}

/** A WebSocket endpoint, as an HTTP server's upgrade listener uses it. */
export interface WsEndpoint {
  /**
   * Takes an upgrade request if it names this endpoint's path (then answers it: a WebSocket, or an HTTP refusal)
   * and returns true; returns false, touching nothing, for any other path.
   */
  upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): boolean;
  /** Open connections. */
  readonly connections: number;
  /** Refuses new connections and closes the open ones (1001); those not closed within `graceMs` are cut. */
  close(graceMs?: number): Promise<void>;
}

interface Connection {
  connection: JsonRpcConnection;
  key: string;
  alive: boolean;
}

/**
 * A WebSocket endpoint with the `ws` package: the framing every WebSocket binding shares. It checks an upgrade
 * as the HTTP bindings check a request (Host/Origin, bearer token, then the connection bounds), and keeps each
 * connection honest: messages bounded in size while read (close 1009), a ping/pong keepalive, and unread output
 * bounded by the one outbound writer (`maxQueuedBytes`). `open` makes the protocol's connection over each WebSocket.
 */
export function createWsEndpoint(
  server: ToolServer,
  options: WsEndpointOptions,
  open: (peer: ConnectionPeer) => JsonRpcConnection,
): WsEndpoint {
  const path = options.path.endsWith('/') ? options.path.slice(0, -1) : options.path;
  const maxMessage = options.maxMessageBytes ?? 4 * 1024 * 1024;
  const maxQueuedBytes = options.maxQueuedBytes ?? options.maxBufferedBytes ?? WS_MAX_QUEUED_BYTES;
  const keepAliveMs = options.keepAliveMs ?? 30_000;
  const maxConnections = options.maxConnections ?? 1024;
  const maxPerCaller = options.maxConnectionsPerCaller ?? 64;
  const log = server.logger.child({ binding: options.binding ?? `ws-${options.subprotocol}` });
  const wss = new WebSocketServer({
    noServer: true,
    clientTracking: false,
    maxPayload: maxMessage,
    perMessageDeflate: false,
    handleProtocols: (offered) => (offered.has(options.subprotocol) ? options.subprotocol : false),
  });
  const connections = new Map<WebSocket, Connection>();
  const perCaller = new Map<string, number>();
  // Upgrades past their checks but not yet connections: they count against the bounds too.
  let reserved = 0;
  let closing = false;

  const sweep =
    keepAliveMs > 0
      ? setInterval(() => {
          for (const [ws, c] of connections) {
            if (!c.alive) {
              log.debug({ caller: c.key }, 'no pong: connection dropped');
              ws.terminate();
              continue;
            }
            c.alive = false;
            ws.ping();
          }
        }, keepAliveMs)
      : undefined;
  sweep?.unref();

  function upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): boolean {
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    let p = q < 0 ? url : url.slice(0, q);
    if (p.endsWith('/')) p = p.slice(0, -1);
    if (p !== path) return false;
    // Until `ws` owns the socket, a reset must not become an unhandled 'error' event.
    socket.on('error', ignore);
    void accept(req, socket, head).catch((err) => {
      log.error({ err }, 'upgrade failed');
      socket.destroy();
    });
    return true;
  }

  async function accept(req: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    const headers = req.headers as Record<string, string | undefined>;
    if (closing)
      return refuseUpgrade(
        socket,
        options.wire,
        new McpLiteError('unavailable', 'The server is shutting down'),
      );
    if (options.checkHost) {
      const refused = checkHostAndOrigin({ headers }, options);
      if (refused) return refuseUpgrade(socket, options.wire, refused);
    }
    const offered = headers['sec-websocket-protocol'];
    if (offered !== undefined && !offered.split(',').some((p) => p.trim() === options.subprotocol)) {
      return refuseUpgrade(
        socket,
        options.wire,
        new McpLiteError(
          'invalid_request',
          `Unsupported subprotocol: this endpoint speaks "${options.subprotocol}"`,
        ),
      );
    }
    let principal: Principal | undefined;
    try {
      // The upgrade is the request a DPoP proof binds: GET and the path without its query.
      const path = (req.url ?? '/').split('?', 1)[0]!;
      const admitted = server.authenticateCaller(headers, { method: req.method ?? 'GET', path });
      principal = admitted instanceof Promise ? await admitted : admitted;
    } catch (err) {
      return refuseUpgrade(socket, options.wire, errorExit(err, log));
    }
    if (socket.destroyed) return;
    const remoteAddress = req.socket.remoteAddress;
    const key = server.callerKey({ principal, remoteAddress });
    if (connections.size + reserved >= maxConnections) {
      return refuseUpgrade(
        socket,
        options.wire,
        new McpLiteError('resource_exhausted', `Too many WebSocket connections (at most ${maxConnections})`),
      );
    }
    const mine = perCaller.get(key) ?? 0;
    if (mine >= maxPerCaller) {
      return refuseUpgrade(
        socket,
        options.wire,
        new McpLiteError(
          'resource_exhausted',
          `Too many WebSocket connections from this caller (at most ${maxPerCaller}): close some first`,
          { limit: maxPerCaller },
        ),
      );
    }
    perCaller.set(key, mine + 1);
    reserved++;
    let taken = false;
    // `ws` may refuse the handshake itself (a bad key or version): it answers, and the slot is given back here.
    socket.once('close', () => {
      if (taken) return;
      reserved--;
      release(key);
    });
    wss.handleUpgrade(req, socket, head, (ws) => {
      taken = true;
      reserved--;
      connected(ws, key, principal, remoteAddress, headers);
    });
  }

  function release(key: string): void {
    const n = (perCaller.get(key) ?? 1) - 1;
    if (n <= 0) perCaller.delete(key);
    else perCaller.set(key, n);
  }

  function connected(
    ws: WebSocket,
    key: string,
    principal: Principal | undefined,
    remoteAddress: string | undefined,
    headers: Readonly<Record<string, string | undefined>>,
  ): void {
    // The one outbound writer: a client that leaves `maxQueuedBytes` unread is cut off (the socket terminated).
    const sink: OutboundSink = {
      get waitingBytes() {
        return ws.bufferedAmount;
      },
      send(text) {
        // With little waiting to be written, nothing to wait for: a callback per message costs every answer.
        if (ws.bufferedAmount < LOW_WATER) {
          ws.send(text);
          return undefined;
        }
        // Resolved on error too: a closed connection must not leave a streaming handler waiting.
        return new Promise<void>((resolve) => ws.send(text, () => resolve()));
      },
      drop: () => ws.terminate(),
    };
    const out = new OutboundWriter(sink, {
      maxQueuedBytes,
      onCutOff: () =>
        log.warn({ caller: key, buffered: ws.bufferedAmount }, 'client is not reading: connection dropped'),
    });
    const peer: ConnectionPeer = {
      principal,
      remoteAddress,
      headers,
      write: (text) => out.write(text),
      end() {
        ws.close(CLOSE.normal);
      },
    };
    const c: Connection = { connection: open(peer), key, alive: true };
    connections.set(ws, c);
    ws.on('message', (data: RawData, isBinary: boolean) => {
      c.alive = true;
      if (isBinary) {
        c.connection.refuse(
          new McpLiteError('parse_error', 'Parse error: send each JSON-RPC message as a text frame'),
        );
        return;
      }
      c.connection.receiveBytes(data as Buffer);
    });
    ws.on('pong', () => {
      c.alive = true;
    });
    // `ws` reports bad frames (and oversized messages) here, then closes with the matching code (1002, 1007, 1009).
    ws.on('error', (err) => log.debug({ err, caller: key }, 'WebSocket error'));
    ws.once('close', () => {
      out.end();
      connections.delete(ws);
      release(key);
      c.connection.close();
    });
  }

  return {
    upgrade,
    get connections() {
      return connections.size;
    },
    async close(graceMs = 2000) {
      closing = true;
      if (sweep) clearInterval(sweep);
      const deadline = Date.now() + graceMs;
      // The calls may be done while their answers are still on the way out: wait for the connections to send them.
      while (Date.now() < deadline && [...connections.values()].some((c) => c.connection.inFlight > 0)) {
        await new Promise((r) => setTimeout(r, 10));
      }
      if (connections.size === 0) return;
      const all = [...connections.keys()];
      const closed = Promise.all(all.map((ws) => new Promise((resolve) => ws.once('close', resolve))));
      for (const ws of all) ws.close(CLOSE.goingAway, 'Server shutting down');
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise((resolve) => {
        timer = setTimeout(resolve, Math.max(0, deadline - Date.now()));
      });
      await Promise.race([closed, timeout]);
      clearTimeout(timer);
      for (const ws of connections.keys()) ws.terminate();
    },
  };
}

function ignore(): void {}

/** Below this many unwritten bytes a sender does not wait for the socket. */
const LOW_WATER = 64 * 1024;
/** The default bound on a WebSocket connection's unread answers: it carries all of one client's traffic. */
const WS_MAX_QUEUED_BYTES = 8 * 1024 * 1024;

/** The reason phrase of each status an upgrade is refused with. */
const REASONS: Readonly<Record<number, string>> = {
  400: 'Bad Request',
  500: 'Internal Server Error',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  429: 'Too Many Requests',
  503: 'Service Unavailable',
};

/**
 * Refuses an upgrade request with a plain HTTP response (the socket is not a WebSocket yet) and closes the socket.
 * `extraHeaders` carries e.g. `Allow`; the error's own headers (`WWW-Authenticate`, `Retry-After`) are added.
 */
function refuseUpgrade(
  socket: Duplex,
  wire: ErrorWire,
  err: McpLiteError,
  extraHeaders: Record<string, string> = {},
): void {
  if (socket.destroyed) return;
  const status = wire.httpStatus[err.code];
  const body = wire.errorMessage(null, err);
  const headers = {
    connection: 'close',
    'content-type': 'application/json',
    'content-length': String(Buffer.byteLength(body)),
    // The challenge of an authentication refusal, from the error's data as on every HTTP binding.
    ...errorHeaders(err, extraHeaders),
  };
  let head = `HTTP/1.1 ${status} ${REASONS[status] ?? 'Error'}\r\n`;
  for (const [name, value] of Object.entries(headers)) head += `${name}: ${value}\r\n`;
  socket.end(`${head}\r\n${body}`);
  // A peer that never reads the refusal must not keep the socket open.
  setTimeout(() => socket.destroy(), 1000).unref();
}
