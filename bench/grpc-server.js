// The mcplite side of the gRPC benchmark: createServer with an `echo` tool (JSON Schema, required `message`) and a
// `ticker` tool that streams `count` partials, served by listenGrpc from dist. Runs in its own process so that it
// gets a core of its own; announces its address on stdout.
import { listenGrpc } from '../dist/src/bindings/grpc/index.js';
import { createServer } from '../dist/src/index.js';

const echo = {
  name: 'echo',
  description: 'Echoes a message, optionally repeated.',
  inputSchema: {
    type: 'object',
    required: ['message'],
    properties: { message: { type: 'string' }, repeat: { type: 'integer', minimum: 1, maximum: 100 } },
    additionalProperties: false,
  },
  handler: ({ message, repeat = 1 }) => ({
    message: Array.from({ length: repeat }, () => message).join(' '),
  }),
};

const ticker = {
  name: 'ticker',
  description: 'Streams `count` small partial results, then answers how many it sent.',
  inputSchema: {
    type: 'object',
    required: ['count'],
    properties: { count: { type: 'integer', minimum: 0 } },
  },
  handler: async ({ count }, ctx) => {
    for (let i = 0; i < count; i++) await ctx.partial({ i });
    return { sent: count };
  },
};

const server = createServer({ tools: [echo, ticker], name: 'mcplite-bench', version: '0.1.0' });
const grpc = await listenGrpc(server, { port: Number(process.env.PORT ?? 0) });
console.log(`mcplite grpc listening on ${grpc.address}`);
// The benchmark asks for the CPU time used so far, to report the server's CPU cost per call.
process.on('SIGUSR2', () => console.log(`CPU ${JSON.stringify(process.cpuUsage())}`));
process.on('SIGTERM', async () => {
  await grpc.close(1000);
  await server.close();
  process.exit(0);
});
