import type { Duplex } from 'node:stream';
import type { ErrorCode, McpLiteError } from '../../core/errors.js';
import type { JsonRpcId } from '../common/jsonrpc.js';

/** The subprotocol of MCP-lite JSON-RPC over WebSocket (`Sec-WebSocket-Protocol: mcp-lite`). */
export const MCP_LITE_SUBPROTOCOL = 'mcp-lite';

/** The subprotocol of MCP over WebSocket, as the official SDK's WebSocketClientTransport asks for it. */
export const MCP_SUBPROTOCOL = 'mcp';

/**
 * How the protocol spoken on an endpoint writes its errors: a refused upgrade is an HTTP response with that
 * protocol's status and JSON-RPC body (as its HTTP binding would answer), a bad frame a JSON-RPC error.
 */
export interface ErrorWire {
  /** A JSON-RPC error response. */
  errorMessage(id: JsonRpcId | undefined, err: McpLiteError): string;
  /** The HTTP status of a whole-request error. */
  httpStatus: Readonly<Record<ErrorCode, number>>;
}

/** WebSocket close codes the server uses (RFC 6455 7.4.1). */
export const CLOSE = {
  /** The server is shutting down. */
  /** The client asked to end the connection (the draft's `exit`). */
  normal: 1000,
  goingAway: 1001,
} as const;

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
 * `extraHeaders` carries e.g. `WWW-Authenticate`.
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
    ...extraHeaders,
  };
  let head = `HTTP/1.1 ${status} ${REASONS[status] ?? 'Error'}\r\n`;
  for (const [name, value] of Object.entries(headers)) head += `${name}: ${value}\r\n`;
  socket.end(`${head}\r\n${body}`);
  // A peer that never reads the refusal must not keep the socket open.
  setTimeout(() => socket.destroy(), 1000).unref();
}
