// The server of the client benchmark: an `echo` tool served by mcplite from dist over MCP-lite HTTP, stateless MCP
// and gRPC, in its own process; announces its HTTP URL and gRPC port on stdout.
import { createServer, serve } from '../dist/src/index.js';

const echo = {
  name: 'echo',
  description: 'Echoes a message.',
  inputSchema: { type: 'object', required: ['message'], properties: { message: { type: 'string' } } },
  handler: ({ message }) => ({ message }),
};
const running = await serve(createServer({ name: 'client-bench', tools: [echo] }), { port: 0, grpcPort: 0 });
console.log(`client bench listening ${running.url} ${running.grpc.port}`);
process.on('SIGTERM', () => running.close(500).then(() => process.exit(0)));
