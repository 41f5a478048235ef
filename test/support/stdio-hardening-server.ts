/**
 * A small tool server over MCP stdio for the hardening tests (`node --import tsx
 * test/support/stdio-hardening-server.ts`): `tick` is asynchronous and reads its signal (as a handler that passes
 * it to fetch does), `big` answers with `bytes` characters (to fill the pipe). `MCPLITE_MAX_LINE_BYTES` sets the
 * line limit. Node prints a MaxListenersExceededWarning on stderr when listeners pile up on one signal or stream.
 */
import { serveMcpStdio } from '../../src/bindings/mcp/stdio/index.js';
import { createServer } from '../../src/create-server.js';

const server = createServer({
  tools: [
    {
      name: 'tick',
      handler: async (_args, ctx) => {
        await Promise.resolve();
        return { aborted: ctx.signal.aborted };
      },
    },
    {
      name: 'big',
      inputSchema: { type: 'object', properties: { bytes: { type: 'integer', maximum: 4_000_000 } } },
      handler: ({ bytes }: { bytes?: number }) => 'x'.repeat(bytes ?? 100_000),
    },
  ],
  promiseStore: false,
});
const maxLineBytes = Number(process.env.MCPLITE_MAX_LINE_BYTES) || undefined;
const maxQueuedBytes = Number(process.env.MCPLITE_MAX_QUEUED_BYTES) || undefined;
const stdio = serveMcpStdio(server, { maxLineBytes, maxQueuedBytes });
await stdio.closed;
await server.close();
process.exit(0);
