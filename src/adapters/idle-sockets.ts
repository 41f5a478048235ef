import type { Server } from 'node:http';
import type { Socket } from 'node:net';

/** What the sweep last saw of one connection: the bytes moved either way, and since when they have not changed. */
interface Seen {
  moved: number;
  since: number;
}

/** Stops watching a socket (one the server handed on, such as an upgraded WebSocket with keepalives of its own). */
export type ForgetSocket = (socket: Socket) => void;

/**
 * Closes every connection of `server` on which no byte has moved either way for `idleMs` (within a quarter of it
 * more): a client that stopped reading an answer, a request whose handler never answers, a socket left open.
 * node's own socket timeout (`server.setTimeout`) does the same, but re-arms it twice per request (a new timer
 * object and a bound function each time) and refreshes it on every read and write: about a microsecond of every
 * small request on Node 20. One sweep over the open connections every quarter of the timeout finds the same idle
 * ones for a few property reads per connection, whatever the request rate. Returns how to stop watching a socket.
 */
export function closeIdleSockets(server: Server, idleMs: number): ForgetSocket {
  if (idleMs <= 0) return () => {};
  const sockets = new Map<Socket, Seen>();
  server.on('connection', (socket: Socket) => {
    sockets.set(socket, { moved: 0, since: Date.now() });
    socket.once('close', () => sockets.delete(socket));
  });
  const sweep = setInterval(
    () => {
      const now = Date.now();
      for (const [socket, seen] of sockets) {
        const moved = socket.bytesRead + socket.bytesWritten;
        if (moved !== seen.moved) {
          seen.moved = moved;
          seen.since = now;
        } else if (now - seen.since >= idleMs) {
          sockets.delete(socket);
          socket.destroy();
        }
      }
    },
    Math.max(10, Math.min(30_000, Math.floor(idleMs / 4))),
  );
  sweep.unref();
  server.once('close', () => clearInterval(sweep));
  return (socket) => {
    sockets.delete(socket);
  };
}
