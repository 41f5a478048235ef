import type { ToolServer } from '../../../core/server.js';
import { type StdioFramingOptions, type StdioSession, serveLines } from '../../common/stdio-framing.js';
import { type McpConnectionOptions, openMcpConnection } from '../connection.js';
import { type McpProtocolOptions, mcpProtocolFor } from '../protocol.js';

/** Options of the stdio transport: the line framing's, the connection's and the MCP engine's. */
export interface McpStdioOptions extends StdioFramingOptions, McpConnectionOptions, McpProtocolOptions {}

/** A running stdio server. */
export type McpStdioServer = StdioSession;

/**
 * MCP over stdio: one JSON-RPC message per line in each direction (`common/stdio-framing.ts`, the line framing
 * MCP-lite's stdio uses too), the connection one session (`../connection.ts`: the handshake, concurrent requests,
 * notifications and server requests interleaved, the stateless revision, the draft-seed dialect). This is what
 * `mcplite serve --stdio <module>` runs.
 */
export function serveMcpStdio(server: ToolServer, options: McpStdioOptions = {}): McpStdioServer {
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

/** @deprecated Renamed `McpStdioOptions`, as MCP-lite's are `McpLiteStdioOptions`; this alias goes in the next release. */
export type StdioOptions = McpStdioOptions;

/** @deprecated Renamed `McpStdioServer`, as MCP-lite's is `McpLiteStdioServer`; this alias goes in the next release. */
export type StdioServer = McpStdioServer;

/** @deprecated Renamed `serveMcpStdio`, as MCP-lite's is `serveMcpLiteStdio`; this alias goes in the next release. */
export const serveStdio: typeof serveMcpStdio = serveMcpStdio;
