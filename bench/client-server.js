// The server of the client benchmark: an `echo` tool served by mcplite from dist in its own process. By default
// over MCP-lite HTTP, stateless MCP, Webtools (the whole catalog as the webtool "client-bench") and gRPC,
// announcing its HTTP URL and gRPC port on stdout; with `--stdio`, over MCP on stdin/stdout instead (one
// connection, the process ends when stdin does).
import { createServer } from '../dist/src/index.js';
import { serve, serveMcpStdio } from '../dist/src/node.js';

const echo = {
  name: 'echo',
  description: 'Echoes a message.',
  inputSchema: { type: 'object', required: ['message'], properties: { message: { type: 'string' } } },
  handler: ({ message }) => ({ message }),
};
const server = createServer({ name: 'client-bench', tools: [echo] });
if (process.argv.includes('--stdio')) {
  const stdio = serveMcpStdio(server);
  await stdio.closed;
  await server.close();
  process.exit(0);
} else {
  const running = await serve(server, { port: 0, grpcPort: 0 });
  console.log(`client bench listening ${running.url} ${running.grpc.port}`);
  process.on('SIGTERM', () => running.close(500).then(() => process.exit(0)));
}
