import type { ToolServer } from '../../../core/server.js';
import { type StdioFramingOptions, type StdioSession, serveLines } from '../../common/stdio-framing.js';
import { type McpConnectionOptions, openMcpConnection } from '../connection.js';
import { type McpProtocolOptions, mcpProtocolFor } from '../protocol.js';

/** Options of the stdio transport: the line framing's, the connection's and the MCP engine's. */
export interface StdioOptions extends StdioFramingOptions, McpConnectionOptions, McpProtocolOptions {}

/** A running stdio server. */
export type StdioServer = StdioSession;

/**
 * MCP over stdio: one JSON-RPC message per line in each direction (`common/stdio-framing.ts`, the line framing
 * MCP-lite's stdio uses too), the connection one session (`../connection.ts`: the handshake, concurrent requests,
 * notifications and server requests interleaved, the stateless revision, the draft-seed dialect). This is what
 * `mcplite serve --stdio <module>` runs.
 */
export function serveStdio(server: ToolServer, options: StdioOptions = {}): StdioServer {
  // The server's one MCP protocol object: the same engine (flights, tasks) as its other MCP transports.
  const engine = options.engine ?? mcpProtocolFor(server, options).engine;
  return serveLines(server.logger, options, (peer) =>
    openMcpConnection(server, engine, peer, {
      binding: 'mcp-stdio',
      maxInFlight: options.maxInFlight,
      serverRequestTimeoutMs: options.serverRequestTimeoutMs,
    }),
  );
}
