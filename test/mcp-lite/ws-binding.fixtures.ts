/**
 * Shared setup of the MCP-lite over WebSocket tests (ws-binding*.test.ts): the tools (some that record aborts or
 * wait at a gate), a server per test and the clients connected to it, all dropped after each test.
 */
import { afterEach } from 'vitest';
import { bearerAuth } from '../../src/core/auth.js';
import { createServer } from '../../src/create-server.js';
import { type RunningServer, type ServeOptions, serve } from '../../src/serve.js';
import { connectWs, type WsTestClient } from '../support/ws-client.js';

/** The tags of the calls whose handler saw its signal abort. */
export const aborted: string[] = [];
/** Calls of `gate` waiting to be let through, by tag. */
export const gates = new Map<string, () => void>();

/** The tools every test serves. */
const tools = [
  {
    name: 'echo',
    inputSchema: { type: 'object', required: ['message'], properties: { message: { type: 'string' } } },
    handler: (args: { message: string }) => ({ message: args.message }),
  },
  {
    name: 'delay',
    description: 'Answers after `ms` milliseconds',
    handler: async (args: { ms: number; tag: string }) => {
      await new Promise((r) => setTimeout(r, args.ms));
      return args.tag;
    },
  },
  {
    name: 'gate',
    description: 'Answers its tag once the test lets it through',
    handler: (args: { tag: string }) =>
      new Promise((resolve) => gates.set(args.tag, () => resolve(args.tag))),
  },
  {
    name: 'report',
    handler: async function* () {
      yield 'one';
      yield { two: 2 };
      return 'done';
    },
  },
  {
    name: 'wait',
    description: 'Runs until aborted',
    handler: (args: { tag: string }, ctx: { signal: AbortSignal }) =>
      new Promise((_resolve, reject) => {
        ctx.signal.addEventListener('abort', () => {
          aborted.push(args.tag);
          reject(ctx.signal.reason);
        });
      }),
  },
  {
    name: 'whoami',
    handler: (_a: unknown, ctx: { principal?: { id: string } }) => ctx.principal?.id ?? null,
  },
  { name: 'big', handler: () => 'x'.repeat(256 * 1024) },
];

/** The server the running test started (`start`), closed after each test. */
export const live: { running?: RunningServer } = {};
const clients: WsTestClient[] = [];

/** Registers, in the calling test file, the clean-up after each test: clients dropped, the server closed. */
export function useWsServers(): void {
  afterEach(async () => {
    for (const c of clients.splice(0)) c.ws.terminate();
    await live.running?.close(500);
    live.running = undefined;
    aborted.length = 0;
    gates.clear();
  });
}

/** Serves the tools (with bearer auth when `auth`) and returns the MCP-lite WebSocket URL. */
export async function start(options: ServeOptions = {}, auth = false): Promise<string> {
  const server = createServer({
    tools,
    version: '1.2.3',
    promiseStore: false,
    ...(auth ? { authenticate: bearerAuth(['s3cret']) } : {}),
  });
  const running = await serve(server, { port: 0, ...options });
  live.running = running;
  return `${running.url.replace('http', 'ws')}/mcp-lite/v1/ws`;
}

/** Connects a test client to `url`; it is dropped after the test. */
export async function connect(url: string, options?: Parameters<typeof connectWs>[1]): Promise<WsTestClient> {
  const c = await connectWs(url, options);
  clients.push(c);
  return c;
}
