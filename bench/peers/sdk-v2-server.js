// The official MCP TypeScript SDK v2 (@modelcontextprotocol/server with @modelcontextprotocol/node), stateless as
// its README's node:http example sets it up: per request a new McpServer and a transport without session ids,
// serving the same echo tool as the demo. A peer in the instruction and throughput sections.
import { createServer } from 'node:http';
import { NodeStreamableHTTPServerTransport } from '@modelcontextprotocol/node';
import { McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';

function echoServer() {
  const server = new McpServer({ name: 'sdk-v2-bench', version: '1.0.0' });
  server.registerTool(
    'echo',
    {
      description: 'Echo the message back',
      inputSchema: z.object({ message: z.string(), repeat: z.number().int().optional() }),
    },
    async ({ message, repeat }) => {
      const value = { message, repeat: repeat ?? 1 };
      return { content: [{ type: 'text', text: JSON.stringify(value) }], structuredContent: value };
    },
  );
  return server;
}

const http = createServer(async (req, res) => {
  const server = echoServer();
  const transport = new NodeStreamableHTTPServerTransport({ sessionIdGenerator: undefined });
  await server.connect(transport);
  res.on('close', () => {
    void transport.close();
    void server.close();
  });
  await transport.handleRequest(req, res);
});

http.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  console.log(`sdk-v2 listening on http://127.0.0.1:${http.address().port}/mcp`);
});
