/**
 * The app every runtime test serves: one fetch handler with MCP (Streamable HTTP, stateless 2026-07-28 included),
 * MCP-lite HTTP (+ SSE) and Webtools, built from the fetch path only (the fetch adapter, the bindings, core and the
 * memory stores), so that it loads where `node:*` does not (Workers without `nodejs_compat`). Made at module scope,
 * as a Worker makes it: nothing here may start a timer or draw a random value before the first request.
 */
import { toFetchHandler } from '../../src/adapters/fetch.js';
import { composeHandlers } from '../../src/bindings/common/compose.js';
import { createMcpBinding } from '../../src/bindings/mcp/index.js';
import { createHttpBinding } from '../../src/bindings/mcp-lite/http/index.js';
import { createWebtoolsBinding } from '../../src/bindings/webtools/index.js';
import { elicit } from '../../src/core/outcomes.js';
import { defineTool } from '../../src/core/tool.js';
import { createServer } from '../../src/create-server.js';

/** Whether this runtime lets code be generated from strings (ajv needs it; Workers forbid it). */
function codeGeneration(): boolean {
  try {
    return new Function('return true')() === true;
  } catch {
    return false;
  }
}

const tools = [
  defineTool({
    name: 'greet',
    description: 'Greets someone; the greeting defaults to Hello',
    inputSchema: {
      type: 'object',
      properties: {
        name: { type: 'string', minLength: 1 },
        greeting: { type: 'string', default: 'Hello' },
      },
      required: ['name'],
      additionalProperties: false,
    },
    handler: (args: { name: string; greeting: string }) => `${args.greeting}, ${args.name}!`,
  }),
  defineTool({
    name: 'count',
    description: 'Streams 1, 2, 3, then answers done',
    handler: async function* () {
      for (let i = 1; i <= 3; i++) {
        yield i;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      return 'done';
    },
  }),
  defineTool({
    name: 'slow_sum',
    description: 'Adds two numbers after a while, as a promise',
    longRunning: { estimatedMs: 300 },
    inputSchema: {
      type: 'object',
      properties: { a: { type: 'number' }, b: { type: 'number' } },
      required: ['a', 'b'],
    },
    handler: async (args: { a: number; b: number }) => {
      await new Promise((resolve) => setTimeout(resolve, 300));
      return { sum: args.a + args.b };
    },
  }),
  defineTool({
    name: 'confirm_order',
    description: 'Asks the user which size, then confirms the order (a signed elicitation round)',
    inputSchema: { type: 'object', properties: { item: { type: 'string' } }, required: ['item'] },
    handler: (args: { item: string }, ctx) => {
      const answers = ctx.elicitation?.answers as { size?: string } | undefined;
      if (!answers?.size)
        return elicit({
          message: `Which size of ${args.item}?`,
          schema: { type: 'object', properties: { size: { enum: ['S', 'M', 'L'] } }, required: ['size'] },
        });
      return `Ordered ${args.item} in ${answers.size}`;
    },
  }),
  defineTool({
    name: 'runtime',
    description: 'Says what this runtime allows',
    handler: () => ({
      codeGeneration: codeGeneration(),
      nodeProcess: typeof globalThis.process === 'object',
    }),
  }),
];

const server = createServer({ name: 'runtimes', tools, logger: console, rateLimit: 1000 });

/** The app as a fetch handler: `(request, env?, ctx?) => Response`. */
export const fetchHandler = toFetchHandler(
  composeHandlers(createMcpBinding(server), createHttpBinding(server), createWebtoolsBinding(server)),
);

/** The Workers module shape. */
export default { fetch: fetchHandler };
