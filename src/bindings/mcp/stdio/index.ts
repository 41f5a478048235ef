import type { ToolServer } from '../../../core/server.js';
import { type StdioFramingOptions, type StdioSession, serveLines } from '../../common/stdio-framing.js';
import { type McpConnectionOptions, openMcpConnection } from '../connection.js';
import { type EngineOptions, McpEngine } from '../engine.js';
import { taskRegistryFor } from '../tasks.js';

/** Options of the stdio transport: the line framing's, the connection's and the MCP engine's. */
export interface StdioOptions extends StdioFramingOptions, McpConnectionOptions, EngineOptions {}

/** A running stdio server. */
export type StdioServer = StdioSession;

/**
 * MCP over stdio: one JSON-RPC message per line in each direction (`common/stdio-framing.ts`, the line framing
 * MCP-lite's stdio uses too), the connection one session (`../connection.ts`: the handshake, concurrent requests,
 * notifications and server requests interleaved, the stateless revision, the draft-seed dialect). This is what
 * `mcplite serve --stdio <module>` runs.
 */
export function serveStdio(server: ToolServer, options: StdioOptions = {}): StdioServer {
  const engine = options.engine ?? new McpEngine(server, options, taskRegistryFor(server, options));
  return serveLines(server.logger, options, (peer) =>
    openMcpConnection(server, engine, peer, {
      binding: 'mcp-stdio',
      maxInFlight: options.maxInFlight,
      serverRequestTimeoutMs: options.serverRequestTimeoutMs,
    }),
  );
}
