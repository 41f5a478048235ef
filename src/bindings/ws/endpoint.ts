import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { type RawData, type WebSocket, WebSocketServer } from 'ws';
import type { Principal } from '../../core/auth.js';
import { McpLiteError, toMcpLiteError } from '../../core/errors.js';
import type { ToolServer } from '../../core/server.js';
import { checkHostAndOrigin, type HostGuardOptions } from '../common/host-guard.js';
import { refuseUpgrade } from './refuse-upgrade.js';
import { CLOSE, type ErrorWire } from './wire.js';

/** Options of a WebSocket endpoint: where it is, and the bounds that keep one client from hurting the rest. */
export interface WsEndpointOptions extends HostGuardOptions {
  /** The path the upgrade request must name (a trailing slash is ignored). */
  path: string;
  /** The subprotocol spoken. A client offering others but not this one is refused; one offering none is served. */
  subprotocol: string;
  /** How the protocol spoken writes its errors (refused upgrades, bad frames). */
  wire: ErrorWire;
  /** Check Host and Origin (DNS-rebinding protection, as on HTTP). Default false; `serve` turns it on for loopback. */
  checkHost?: boolean;
  /** Largest accepted message in bytes, enforced while frames are read (close 1009). Default 4 MiB. */
  maxMessageBytes?: number;
  /**
   * Most bytes waiting to be written to one connection: a client that stops reading reaches it and is disconnected
   * rather than buffered for without bound. Default 8 MiB.
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

/** One connection, as the protocol spoken over it sees it. */
export interface WsPeer {
  /** Sends one text message; a peer that has too much waiting unread is disconnected instead. */
  send(text: string): void;
  /** Sends one text message and resolves once it is written to the socket (backpressure for streams). */
  sendAndWait(text: string): Promise<void>;
  /** Closes the connection normally (1000) once what was sent has gone out. */
  close(): void;
  /** The caller the upgrade request authenticated, if auth is on. */
  readonly principal: Principal | undefined;
  /** The peer's address. */
  readonly remoteAddress: string | undefined;
  /** The upgrade request's headers (`op.caller.headers`, `ctx.headers` of every call on the connection). */
  readonly headers: Readonly<Record<string, string | undefined>>;
}

/** What the protocol does with a connection's messages. */
export interface WsSession {
  /** One text message (a complete one, within the size limit). */
  message(data: Buffer): void;
  /** The connection is gone (closed by either side, or dropped). */
  closed(): void;
  /** Requests still being answered: a closing server waits for them (within its grace) before closing. */
  readonly inFlight: number;
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
  session: WsSession;
  key: string;
  alive: boolean;
}

/**
 * A WebSocket endpoint with the `ws` package: the framing every WebSocket binding shares. It checks an upgrade
 * as the HTTP bindings check a request (Host/Origin, bearer token, then the connection bounds), and keeps each
 * connection honest: messages bounded in size while read, a ping/pong keepalive, and a bound on unread output.
 */
export function createWsEndpoint(
  server: ToolServer,
  options: WsEndpointOptions,
  open: (peer: WsPeer) => WsSession,
): WsEndpoint {
  const path = options.path.endsWith('/') ? options.path.slice(0, -1) : options.path;
  const maxMessage = options.maxMessageBytes ?? 4 * 1024 * 1024;
  const maxBuffered = options.maxBufferedBytes ?? 8 * 1024 * 1024;
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
      const admitted = server.authenticateCaller(headers);
      principal = admitted instanceof Promise ? await admitted : admitted;
    } catch (err) {
      return refuseUpgrade(socket, options.wire, toMcpLiteError(err));
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
    const overflowed = () => {
      if (ws.bufferedAmount <= maxBuffered) return;
      log.warn({ caller: key, buffered: ws.bufferedAmount }, 'client is not reading: connection dropped');
      ws.terminate();
    };
    const peer: WsPeer = {
      principal,
      remoteAddress,
      headers,
      send(text) {
        ws.send(text);
        overflowed();
      },
      sendAndWait(text) {
        // With little waiting to be written, nothing to wait for: a callback per message costs every answer.
        if (ws.bufferedAmount < LOW_WATER) {
          ws.send(text);
          overflowed();
          return DONE;
        }
        return new Promise<void>((resolve) => {
          // Resolved on error too: a closed connection must not leave a streaming handler waiting.
          ws.send(text, () => resolve());
          overflowed();
        });
      },
      close() {
        ws.close(CLOSE.normal);
      },
    };
    const c: Connection = { session: open(peer), key, alive: true };
    connections.set(ws, c);
    ws.on('message', (data: RawData, isBinary: boolean) => {
      c.alive = true;
      if (isBinary) {
        peer.send(
          options.wire.errorMessage(
            null,
            new McpLiteError('parse_error', 'Parse error: send each JSON-RPC message as a text frame'),
          ),
        );
        return;
      }
      c.session.message(data as Buffer);
    });
    ws.on('pong', () => {
      c.alive = true;
    });
    // `ws` reports bad frames (and oversized messages) here, then closes with the matching code (1002, 1007, 1009).
    ws.on('error', (err) => log.debug({ err, caller: key }, 'WebSocket error'));
    ws.once('close', () => {
      connections.delete(ws);
      release(key);
      c.session.closed();
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
      // The calls may be done while their answers are still on the way out: wait for the sessions to send them.
      while (Date.now() < deadline && [...connections.values()].some((c) => c.session.inFlight > 0)) {
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
const DONE = Promise.resolve();
