// tmcp (the fastest Node MCP server in published benchmarks) with its HTTP transport on srvx, serving the same
// echo tool as the demo: one server and transport for the process, as tmcp's README sets it up. A peer in the
// instruction and throughput sections.
import { ZodJsonSchemaAdapter } from '@tmcp/adapter-zod';
import { HttpTransport } from '@tmcp/transport-http';
import { serve } from 'srvx';
import { McpServer } from 'tmcp';
import { z } from 'zod';

const server = new McpServer(
  { name: 'tmcp-bench', version: '1.0.0', description: 'echo' },
  { adapter: new ZodJsonSchemaAdapter(), capabilities: { tools: {} } },
);
server.tool(
  {
    name: 'echo',
    description: 'Echo the message back',
    schema: z.object({ message: z.string(), repeat: z.number().int().optional() }),
  },
  async ({ message, repeat }) => {
    const value = { message, repeat: repeat ?? 1 };
    return { content: [{ type: 'text', text: JSON.stringify(value) }], structuredContent: value };
  },
);
const transport = new HttpTransport(server);

const http = serve({
  port: Number(process.env.PORT ?? 0),
  hostname: '127.0.0.1',
  silent: true,
  fetch: async (request) => (await transport.respond(request)) ?? new Response(null, { status: 404 }),
});
await http.ready();
console.log(`tmcp listening on ${new URL('/mcp', http.url).href}`);
