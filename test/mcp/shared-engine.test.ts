/**
 * One McpEngine per server (issue 23): the MCP transports `serve` opens share the Streamable HTTP binding's engine
 * (`McpHandler.engine`, the `engine` option) instead of each building one from copied options. A native tool given
 * to the Streamable HTTP binding alone is listed and called over legacy SSE, through the official SDK's client.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { afterEach, expect, it } from 'vitest';
import { listenNode, type NodeListening } from '../../src/adapters/node.js';
import { composeHandlers } from '../../src/bindings/common/compose.js';
import { createMcpBinding } from '../../src/bindings/mcp/index.js';
import { createLegacySseBinding } from '../../src/bindings/mcp/legacy-sse/index.js';
import { createServer } from '../../src/index.js';

let listening: NodeListening | undefined;

afterEach(async () => {
  await listening?.close();
});

it('a transport given the engine answers with its methods and native tools', async () => {
  const server = createServer({
    tools: [{ name: 'echo', handler: (args: { m?: string }) => ({ m: args.m }) }],
  });
  const mcp = createMcpBinding(server, {
    nativeTools: [
      {
        tool: { name: 'native_only', inputSchema: { type: 'object' } },
        handler: () => ({ content: [{ type: 'text', text: 'from the shared engine' }] }),
      },
    ],
  });
  const legacy = createLegacySseBinding(server, { engine: mcp.engine });
  listening = await listenNode(composeHandlers(mcp, legacy), { port: 0 });
  const client = new Client({ name: 'shared-engine', version: '1.0.0' });
  await client.connect(new SSEClientTransport(new URL(`${listening.url}/sse`)));
  try {
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['echo', 'native_only']);
    const result = await client.callTool({ name: 'native_only', arguments: {} });
    expect(result.content).toEqual([{ type: 'text', text: 'from the shared engine' }]);
  } finally {
    await client.close();
    legacy.close();
    mcp.close();
  }
});
