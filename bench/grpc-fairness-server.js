// The server of the gRPC fairness benchmark: an `echo` tool and a long-running `slow` tool (its promise is what the
// flood redeems), served by listenGrpc from dist with its defaults, in a process of its own so that its memory is
// its own. Announces its address and pid on stdout.
import { listenGrpc } from '../dist/src/bindings/grpc/index.js';
import { createServer } from '../dist/src/index.js';

const echo = {
  name: 'echo',
  description: 'Echoes a message.',
  inputSchema: { type: 'object', required: ['message'], properties: { message: { type: 'string' } } },
  handler: ({ message }) => ({ message }),
};

const slow = {
  name: 'slow',
  description: 'Runs for a minute (long-running, so it answers with a promise at once).',
  inputSchema: { type: 'object' },
  longRunning: { estimatedMs: 60_000 },
  handler: (_args, ctx) =>
    new Promise((resolve) => {
      const timer = setTimeout(() => resolve({ done: true }), 60_000);
      ctx.signal.addEventListener('abort', () => clearTimeout(timer), { once: true });
    }),
};

const server = createServer({ tools: [echo, slow], name: 'mcplite-fairness', version: '0.1.0' });
// MAX_STREAMS=0 serves without the per-connection stream limit, the way the server ran before it had one.
const maxStreams =
  process.env.MAX_STREAMS === undefined ? {} : { maxStreamsPerConnection: Number(process.env.MAX_STREAMS) };
const grpc = await listenGrpc(server, { port: 0, ...maxStreams });
console.log(`fairness grpc listening on ${grpc.address} pid ${process.pid}`);
process.on('SIGTERM', async () => {
  await grpc.close(1000);
  await server.close();
  process.exit(0);
});
