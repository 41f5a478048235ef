import type { ToolServer } from '../../../core/server.js';
import { type StdioFramingOptions, type StdioSession, serveLines } from '../../common/stdio-framing.js';
import { type ChannelOptions, openChannel } from '../connection.js';
import { createMcpLiteRpc, type McpLiteRpcOptions } from '../methods.js';

/** Options of MCP-lite over stdio: the line framing's, the channel's and the JSON-RPC handling's. */
export interface McpLiteStdioOptions
  extends StdioFramingOptions,
    ChannelOptions,
    Pick<McpLiteRpcOptions, 'maxBatchSize'> {}

/** A running MCP-lite stdio server. */
export type McpLiteStdioServer = StdioSession;

/**
 * MCP-lite over stdio (spec 8.2: "for CLI tools and local integrations"): one JSON-RPC message (or batch) per
 * line in each direction (`common/stdio-framing.ts`, the line framing MCP's stdio uses too), with the same methods
 * and channel semantics as over WebSocket (`../connection.ts`, docs/wire-format.md): calls run concurrently,
 * `"stream": true` sends partials as `notifications/partial`, `notifications/cancelled` aborts a call. The client
 * closing stdin ends the session once the running calls have answered. This is what
 * `mcplite serve --stdio --mcp-lite` runs.
 */
export function serveMcpLiteStdio(server: ToolServer, options: McpLiteStdioOptions = {}): McpLiteStdioServer {
  const rpc = createMcpLiteRpc(server, { maxBatchSize: options.maxBatchSize, binding: 'stdio' });
  return serveLines(server.logger, options, (peer) => openChannel(rpc, peer, options));
}
