import type { ToolServer } from '../../../core/server.js';
import { createWsEndpoint, type WsEndpoint, type WsEndpointOptions } from '../../common/ws-endpoint.js';
import { type McpConnectionOptions, openMcpConnection } from '../connection.js';
import { type McpProtocolOptions, mcpProtocolFor } from '../protocol.js';
import { MCP_ERROR_WIRE } from '../wire.js';

/** The subprotocol of MCP over WebSocket, as the official SDK's WebSocketClientTransport asks for it. */
export const MCP_SUBPROTOCOL = 'mcp';

/** Options of MCP over WebSocket: the endpoint's bounds, each connection's and the MCP engine's options. */
export interface McpWsOptions
  extends Omit<WsEndpointOptions, 'path' | 'subprotocol' | 'wire'>,
    McpConnectionOptions,
    McpProtocolOptions {
  /** Where the endpoint is. Default `/mcp` (an upgrade on the Streamable HTTP path). */
  path?: string;
}

/**
 * MCP over WebSocket (`ws://host:port/mcp`, subprotocol `mcp`, as the draft seed's section 2 and the official SDK's
 * WebSocketClientTransport have it): one message per text frame (`common/ws-endpoint.ts`, the framing MCP-lite over
 * WebSocket uses too), each connection one session of the MCP JSON-RPC loop, exactly as stdio (`../connection.ts`):
 * concurrent requests, notifications both ways, server requests (elicitation), progress and cancellation, and the
 * draft-seed dialect for a client that speaks it.
 */
export function createMcpWsBinding(server: ToolServer, options: McpWsOptions = {}): WsEndpoint {
  // The server's one MCP protocol object: the same engine (flights, tasks) as its other MCP transports.
  const engine = options.engine ?? mcpProtocolFor(server, options).engine;
  return createWsEndpoint(
    server,
    {
      binding: 'mcp',
      ...options,
      path: options.path ?? '/mcp',
      subprotocol: MCP_SUBPROTOCOL,
      wire: MCP_ERROR_WIRE,
    },
    (peer) =>
      openMcpConnection(server, engine, peer, {
        binding: 'mcp-ws',
        maxInFlight: options.maxInFlight,
        serverRequestTimeoutMs: options.serverRequestTimeoutMs,
      }),
  );
}
