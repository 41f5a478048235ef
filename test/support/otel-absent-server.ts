/**
 * For test/otel/absent.test.ts, run with `--require test/support/hide-otel.cjs`: mcplite loads, serves and calls
 * without `@opentelemetry/api`. Prints `otel <loaded?>` and then `answer <json>` of one call through the client.
 */
import { connect } from '../../src/client/index.js';
import { loadOtel, otelNow } from '../../src/core/telemetry/otel-api.js';
import { createServer, defineTool } from '../../src/index.js';
import { serve } from '../../src/node.js';

const echo = defineTool<{ text: string }>({
  name: 'echo',
  description: 'Echoes',
  inputSchema: { type: 'object', required: ['text'], properties: { text: { type: 'string' } } },
  handler: ({ text }) => ({ text }),
});

const running = await serve(createServer({ tools: [echo] }), { port: 0 });
process.stdout.write(`otel ${otelNow() !== undefined || (await loadOtel()) !== undefined}\n`);
const client = await connect(`${running.url}/mcp-lite/v1/`);
const outcome = await client.call('echo', { text: 'no otel here' });
process.stdout.write(`answer ${JSON.stringify(outcome)}\n`);
await client.close();
await running.close(0);
