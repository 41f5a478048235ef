import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { openMcpConnection } from '../bindings/mcp/connection.js';
import { mcpProtocolFor } from '../bindings/mcp/protocol.js';
import type { ToolServer } from '../core/server.js';
import type { ClientLimits } from './limits.js';
import { mcpSdkTransport } from './mcp-sdk-transport.js';
import type { Transport } from './transport.js';
import type { ConnectOptions } from './types.js';

/**
 * A server in this process, spoken to without a socket: `connect(server)`, for tests. The client is the same
 * one every target gets (the official SDK's MCP client, so elicitation, progress, promises and errors behave as
 * over `/mcp`), linked by the SDK's `InMemoryTransport` to one MCP connection of the server, as stdio and
 * WebSocket make them (`bindings/mcp/connection.ts`, on `bindings/common/json-rpc-connection.ts`). Closing the
 * client closes the connection.
 */
export async function inMemoryTransport(
  server: ToolServer,
  options: ConnectOptions,
  limits: ClientLimits,
  signal?: AbortSignal,
): Promise<Transport> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  // The server's one MCP protocol object: the same engine (flights, tasks) as its other MCP transports.
  const engine = mcpProtocolFor(server).engine;
  const connection = openMcpConnection(
    server,
    engine,
    {
      // The connection speaks serialised messages; the linked pair carries objects (each one a fresh copy, as
      // a wire would hand over, so neither side can change what the other holds).
      write: (message) => serverSide.send(JSON.parse(message) as JSONRPCMessage),
      end: () => void serverSide.close(),
      principal: undefined,
      remoteAddress: undefined,
    },
    { binding: 'mcp-memory' },
  );
  serverSide.onmessage = (message) => connection.receive(JSON.parse(JSON.stringify(message)));
  serverSide.onclose = () => connection.close();
  await serverSide.start();
  return mcpSdkTransport({ transport: clientSide }, options, {}, limits, signal);
}
