import type { Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

// The node adapter's connection limit (`maxConnections`): connections past it get a 503 rather than the process
// running out of file descriptors.

/** Connections past `maxConnections` that still get a 503 instead of being dropped unanswered. */
const OVERFLOW_CONNECTIONS = 64;
/** How long a connection past the limit may take to send its request before it is closed, in ms. */
const OVERFLOW_WAIT_MS = 2_000;
const OVER_LIMIT = Symbol('mcplite.overLimit');
const OVER_LIMIT_BODY = JSON.stringify({
  jsonrpc: '2.0',
  id: null,
  error: {
    code: -32603,
    message: 'Service Unavailable: too many connections, retry shortly',
    data: { reason: 'unavailable' },
  },
});

/** Whether the request's connection was accepted past the limit (marked on accept, one property read). */
export function isOverLimit(socket: Socket): boolean {
  return (socket as unknown as Record<symbol, boolean>)[OVER_LIMIT] === true;
}

/**
 * Counts open connections; those past `max` are marked (their request gets `refuseOverLimit`) and closed soon
 * if they send nothing, and node itself drops connections past `max + OVERFLOW_CONNECTIONS` on accept.
 */
export function limitConnections(server: Server, max: number): void {
  let open = 0;
  server.maxConnections = max + OVERFLOW_CONNECTIONS;
  server.prependListener('connection', (socket: Socket) => {
    open++;
    socket.once('close', () => open--);
    if (open > max) {
      (socket as unknown as Record<symbol, boolean>)[OVER_LIMIT] = true;
      // A timer, not socket.setTimeout: node's own connection listener runs next and resets the socket timeout.
      const timer = setTimeout(() => socket.destroy(), OVERFLOW_WAIT_MS);
      timer.unref();
      socket.once('close', () => clearTimeout(timer));
    }
  });
}

/** Answers a request on a connection past the limit: 503, retry in a second, and close. */
export function refuseOverLimit(res: ServerResponse): void {
  res.writeHead(503, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(OVER_LIMIT_BODY),
    'retry-after': '1',
    connection: 'close',
  });
  res.end(OVER_LIMIT_BODY);
}
