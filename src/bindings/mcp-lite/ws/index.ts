import type { ToolServer } from '../../../core/server.js';
import { createWsEndpoint, type WsEndpoint, type WsEndpointOptions } from '../../common/ws-endpoint.js';
import { type ChannelOptions, openChannel } from '../connection.js';
import { createMcpLiteRpc, type McpLiteRpcOptions } from '../methods.js';
import { MCP_LITE_ERROR_WIRE } from '../wire.js';

export type { WsEndpoint, WsEndpointOptions } from '../../common/ws-endpoint.js';

/** The subprotocol of MCP-lite JSON-RPC over WebSocket (`Sec-WebSocket-Protocol: mcp-lite`). */
export const MCP_LITE_SUBPROTOCOL = 'mcp-lite';

/** Options of MCP-lite over WebSocket: the endpoint's bounds, the channel's and the JSON-RPC handling's. */
export interface McpLiteWsOptions
  extends Omit<WsEndpointOptions, 'path' | 'subprotocol' | 'wire'>,
    ChannelOptions,
    Pick<McpLiteRpcOptions, 'maxBatchSize'> {
  /** Where the endpoint is. Default `/mcp-lite/v1/ws`. */
  path?: string;
}

/**
 * MCP-lite over WebSocket (`ws://host:port/mcp-lite/v1/ws`, subprotocol `mcp-lite`; framing in
 * docs/wire-format.md): each text message is one JSON-RPC message or batch (`common/ws-endpoint.ts`, the framing
 * MCP over WebSocket uses too), answered with the HTTP binding's own methods (`../connection.ts`); many calls run at
 * once per connection, partials arrive as notifications. Node only: hand its `upgrade` to the HTTP server's
 * 'upgrade' event (`serve` and `listenNode({ onUpgrade })` do).
 */
export function createMcpLiteWsBinding(server: ToolServer, options: McpLiteWsOptions = {}): WsEndpoint {
  const rpc = createMcpLiteRpc(server, { maxBatchSize: options.maxBatchSize, binding: 'ws' });
  return createWsEndpoint(
    server,
    {
      binding: 'ws',
      ...options,
      path: options.path ?? '/mcp-lite/v1/ws',
      subprotocol: MCP_LITE_SUBPROTOCOL,
      wire: MCP_LITE_ERROR_WIRE,
    },
    (peer) => openChannel(rpc, peer, options),
  );
}
