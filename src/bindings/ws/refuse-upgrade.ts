import type { Duplex } from 'node:stream';
import type { McpLiteError } from '../../core/errors.js';
import { errorHeaders } from '../common/retry-after.js';
import type { ErrorWire } from './wire.js';

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
export function refuseUpgrade(
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
