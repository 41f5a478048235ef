import type { ToolServer } from '../../core/server.js';
import { parseJsonBody } from '../common/json-body.js';
import { errorMessage } from '../common/jsonrpc.js';
import { openMcpConnection } from '../mcp/connection.js';
import { type EngineOptions, McpEngine } from '../mcp/engine.js';
import { taskRegistryFor } from '../mcp/tasks.js';
import { HTTP_STATUS, toMcpError } from '../mcp/wire.js';
import { createWsEndpoint, type WsEndpoint, type WsEndpointOptions } from './endpoint.js';
import { MCP_SUBPROTOCOL } from './wire.js';

/** Options of MCP over WebSocket: the endpoint's bounds and the MCP engine's options. */
export interface McpWsOptions
  extends Omit<WsEndpointOptions, 'path' | 'subprotocol' | 'wire'>,
    EngineOptions {
  /** Where the endpoint is. Default `/mcp` (an upgrade on the Streamable HTTP path). */
  path?: string;
  /** Most requests running at once per connection; past it a request is answered -32004. Default 256. */
  maxInFlight?: number;
  /** How long to wait for the client's answer to a server request (elicitation). Default 5 minutes. */
  serverRequestTimeoutMs?: number;
}

/**
 * MCP over WebSocket (`ws://host:port/mcp`, subprotocol `mcp`, as the draft seed's section 2 and the official SDK's
 * WebSocketClientTransport have it): each connection is one session of the MCP JSON-RPC loop, exactly as stdio
 * (`mcp/connection.ts`), one message per text frame: concurrent requests, notifications both ways, server requests
 * (elicitation), progress and cancellation, and the draft-seed dialect for a client that speaks it. Framing only.
 */
export function createMcpWsBinding(server: ToolServer, options: McpWsOptions = {}): WsEndpoint {
  const engine = options.engine ?? new McpEngine(server, options, taskRegistryFor(server, options));
  const wire = {
    errorMessage: (id: Parameters<typeof errorMessage>[0], err: Parameters<typeof toMcpError>[0]) =>
      errorMessage(id, toMcpError(err, false)),
    httpStatus: HTTP_STATUS,
  };
  return createWsEndpoint(
    server,
    { binding: 'mcp', ...options, path: options.path ?? '/mcp', subprotocol: MCP_SUBPROTOCOL, wire },
    (peer) => {
      const connection = openMcpConnection(
        server,
        engine,
        {
          write: (text) => peer.sendAndWait(text),
          end: () => peer.close(),
          principal: peer.principal,
          remoteAddress: peer.remoteAddress,
          headers: peer.headers,
        },
        {
          binding: 'mcp-ws',
          maxInFlight: options.maxInFlight,
          serverRequestTimeoutMs: options.serverRequestTimeoutMs,
        },
      );
      return {
        message(data) {
          let body: unknown;
          try {
            body = parseJsonBody(data);
          } catch (err) {
            peer.send(connection.errorFor(err));
            return;
          }
          connection.receive(body);
        },
        closed: () => connection.close(),
        get inFlight() {
          return connection.inFlight;
        },
      };
    },
  );
}
