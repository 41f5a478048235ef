/**
 * The app every runtime test serves: the one assembly (`createHandler`: MCP Streamable HTTP with the stateless
 * 2026-07-28 revision, legacy HTTP+SSE, MCP-lite HTTP (+ SSE), Webtools, health, the Host/Origin guard) built from
 * the fetch path only (the fetch adapter, the bindings, core and the memory stores, as built), so that it loads where `node:*`
 * does not (Workers without `nodejs_compat`). Made at module scope, as a Worker makes it: nothing here may start a
 * timer or draw a random value before the first request. A second, OAuth-protected server rides along at
 * `/secure/mcp`, so that its protected resource metadata is served on every runtime too.
 */
// The package as it ships (`npm run build`: the bundled entries `mcplite` and `mcplite/fetch`), so that every
// runtime runs the files a user installs.
import { toFetchHandler } from '../../dist/src/adapters/fetch.js';
import {
  createHandler,
  createServer,
  defineTool,
  elicit,
  oauthResourceServer,
} from '../../dist/src/index.js';

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

const server = createServer({
  name: 'runtimes',
  description: 'The app every runtime test serves',
  card: { name: 'test.mcplite/runtimes' },
  tools,
  logger: console,
  rateLimit: 1000,
});

/** The hosts the runtimes are reached at: any other Host is refused (DNS-rebinding protection). */
const allowedHosts = ['127.0.0.1', 'localhost'];

/** A server whose tools need a token from an authorization server (never reached: only its metadata is read). */
const secured = createServer({
  name: 'secured',
  tools: [defineTool({ name: 'secret', description: 'Needs a token', handler: () => 'shh' })],
  authenticate: oauthResourceServer({
    issuer: 'https://auth.runtimes.test/',
    resource: 'http://127.0.0.1/secure/mcp',
  }),
});

/** The app as a fetch handler: `(request, env?, ctx?) => Response`. */
export const fetchHandler = toFetchHandler(
  createHandler(server, {
    allowedHosts,
    handlers: [
      createHandler(secured, {
        mcp: { path: '/secure/mcp' },
        mcpLite: false,
        webtools: false,
        legacySse: false,
        health: false,
      }),
    ],
  }),
);

/** The Workers module shape. */
export default { fetch: fetchHandler };
