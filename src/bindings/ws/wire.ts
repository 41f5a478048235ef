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
  /** The client asked to end the connection (the draft's `exit`). */
  normal: 1000,
  /** The server is shutting down. */
  goingAway: 1001,
} as const;
