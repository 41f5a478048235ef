// The official MCP TypeScript SDK's stateless Streamable HTTP server, set up as its own example
// (examples/server/simpleStatelessStreamableHttp): createMcpExpressApp, then per request a new McpServer and a
// StreamableHTTPServerTransport without session ids (the SDK's defaults otherwise), serving the same echo tool
// as the demo. The MCP benchmark compares mcplite's /mcp against it in the same run.
import { createMcpExpressApp } from '@modelcontextprotocol/sdk/server/express.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';

function getServer() {
  const server = new McpServer({ name: 'sdk-bench', version: '1.0.0' });
  server.registerTool(
    'echo',
    {
      description: 'Echo the message back',
      inputSchema: { message: z.string(), repeat: z.number().int().optional() },
    },
    async ({ message, repeat }) => {
      const value = { message, repeat: repeat ?? 1 };
      return { content: [{ type: 'text', text: JSON.stringify(value) }], structuredContent: value };
    },
  );
  return server;
}

const app = createMcpExpressApp();
app.post('/mcp', async (req, res) => {
  const server = getServer();
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
  await server.connect(transport);
  await transport.handleRequest(req, res, req.body);
  res.on('close', () => {
    void transport.close();
    void server.close();
  });
});

const listener = app.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  console.log(`sdk listening on http://127.0.0.1:${listener.address().port}/mcp`);
});
