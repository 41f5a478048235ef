/**
 * How much a server's heap grows per SSE event over one long stream (issue 9: it grew about 358 bytes per event
 * until the stream ended). Run as a child process with the gc exposed:
 *
 *   node --expose-gc --import tsx test/support/sse-growth.ts [events]
 *
 * A tool sends `events` partials over MCP-lite HTTP (SSE) to a fetch client on loopback that reads and drops them.
 * The tool itself samples the heap (after a full gc) once the stream is warm and again at its end, so the figure
 * is the growth during one live stream. Prints one JSON line: `{ events, bytesPerEvent, heapStart, heapEnd }`.
 */
import { createServer, defineTool } from '../../src/index.js';
import { serve } from '../../src/node.js';

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with node --expose-gc');
const events = Number(process.argv[2] ?? 50_000);
const warm = Math.min(2_000, Math.floor(events / 10));
let heapStart = 0;
let heapEnd = 0;

function heapNow(): number {
  gc!();
  gc!();
  return process.memoryUsage().heapUsed;
}

const stream = defineTool({
  name: 'long_stream',
  description: 'Sends many small partials',
  handler: async (_args, ctx) => {
    for (let i = 0; i < events; i++) {
      if (i === warm) heapStart = heapNow();
      await ctx.partial({ i });
    }
    heapEnd = heapNow();
    return 'done';
  },
});

const running = await serve(createServer({ tools: [stream] }), { port: 0 });
const res = await fetch(`${running.url}/mcp-lite/v1/calltools`, {
  method: 'POST',
  headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
  body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'long_stream' } }),
});
const reader = res.body!.getReader();
let tail = '';
for (;;) {
  const { done, value } = await reader.read();
  if (done) break;
  tail = (tail + Buffer.from(value).toString('utf8')).slice(-200);
}
await running.close(1000);
if (!tail.includes('event: done')) throw new Error(`the stream did not end with done: ${tail}`);
const bytesPerEvent = (heapEnd - heapStart) / (events - warm);
process.stdout.write(
  `${JSON.stringify({ events, bytesPerEvent: Math.round(bytesPerEvent), heapStart, heapEnd })}\n`,
);
