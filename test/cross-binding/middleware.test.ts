/**
 * One middleware chain over every binding and transport (issue 23): MCP-lite HTTP and its SSE, gRPC, Webtools,
 * MCP-lite over WebSocket and stdio, MCP over Streamable HTTP (the official SDK's client), WebSocket, stdio and legacy
 * SSE (the SDK's client), and the draft dialect. One server, served over all of them at once, proves that each wire
 * hands core the same operation (method, name, checked arguments, its caller's binding and headers), answers a
 * middleware's refusal with its own native error, lists what a `visibleTools` stage leaves, answers a hidden tool as
 * its not-found, and returns an answer a middleware rewrote. The wires' clients: test/support/middleware-wires.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createServer,
  McpLiteError,
  type Middleware,
  type Operation,
  visibleTools,
} from '../../src/index.js';
import { type RunningServer, serve } from '../../src/node.js';
import { WIRES, type Wire } from '../support/middleware-wires.js';

interface Seen {
  method: Operation['method'];
  name: string | undefined;
  arguments: unknown;
  binding: string;
  headers: Readonly<Record<string, string | undefined>>;
  address: string | undefined;
}

const seen: Seen[] = [];

/** Records every operation as core hands it to middleware. */
const record: Middleware = (op, next) => {
  seen.push({
    method: op.method,
    name: op.name,
    arguments: op.arguments,
    binding: op.caller.binding,
    headers: op.caller.headers,
    address: op.caller.address,
  });
  return next();
};

/** Refuses one tool with the one error type; every wire must answer it natively. */
const refuseWipe: Middleware = (op, next) => {
  if (op.method === 'tools/call' && op.name === 'wipe') throw new McpLiteError('forbidden', 'not today');
  return next();
};

/** Rewrites echo's answer after the tool ran. */
const rewriteEcho: Middleware = async (op, next) => {
  const outcome = (await next()) as { type: string; result?: unknown };
  if (op.method !== 'tools/call' || op.name !== 'echo' || outcome.type !== 'answer') return outcome;
  return { ...outcome, result: { ...(outcome.result as object), rewritten: true } };
};

const server = createServer({
  tools: [
    {
      name: 'echo',
      inputSchema: { type: 'object', required: ['message'], properties: { message: { type: 'string' } } },
      handler: (args: { message: string }) => ({ echo: args.message }),
    },
    {
      name: 'whoami',
      handler: (_args, ctx) => ({ binding: ctx.binding, probe: ctx.headers['x-probe'] ?? 'none' }),
    },
    { name: 'wipe', handler: () => ({ wiped: true }) },
    { name: 'secret', handler: () => ({ secret: 42 }) },
  ],
  middleware: [record, refuseWipe, visibleTools((tool) => tool.name !== 'secret'), rewriteEcho],
});

let running: RunningServer;

beforeAll(async () => {
  running = await serve(server, { port: 0, grpcPort: 0 });
});

afterAll(async () => {
  await running.close(1000);
});

/** What each wire answers natively for `forbidden` and `tool_not_found` (docs/architecture.md, the tables). */
const NATIVE: Record<string, { forbidden: unknown; notFound: unknown }> = {
  'mcp-lite-http': { forbidden: { status: 403, code: -32003 }, notFound: { status: 200, code: -32601 } },
  'mcp-lite-http-sse': {
    forbidden: { status: 200, event: 'error', code: -32003 },
    notFound: { status: 200, event: 'error', code: -32601 },
  },
  grpc: { forbidden: { status: 'PERMISSION_DENIED' }, notFound: { status: 'NOT_FOUND' } },
  webtools: {
    forbidden: { status: 403, code: 'FORBIDDEN' },
    notFound: { status: 404, code: 'ACTION_NOT_FOUND' },
  },
  'mcp-lite-ws': { forbidden: { code: -32003 }, notFound: { code: -32601 } },
  'mcp-lite-stdio': { forbidden: { code: -32003 }, notFound: { code: -32601 } },
  // Streamable HTTP answers forbidden with HTTP 403, which the SDK's transport reports as its error code.
  'mcp-streamable-http': { forbidden: { code: 403 }, notFound: { code: -32602 } },
  'mcp-ws': { forbidden: { code: -32003 }, notFound: { code: -32602 } },
  'mcp-stdio': { forbidden: { code: -32003 }, notFound: { code: -32602 } },
  'mcp-legacy-sse': { forbidden: { code: -32003 }, notFound: { code: -32602 } },
  draft: { forbidden: { status: 403, code: -32003 }, notFound: { status: 200, code: 4001 } },
};

describe.each(WIRES)('$name', (wire: Wire) => {
  it('hands core the same operations, refuses natively, lists and answers what the middleware made', async () => {
    const session = await wire.open(running, server);
    try {
      seen.length = 0;
      const listed = await session.list();
      const echoed = await session.call('echo', { message: 'hi' });
      const who = await session.call('whoami', {});
      const wiped = await session.call('wipe', {});
      const hidden = await session.call('secret', {});

      // The same filtered listing on every wire.
      expect(listed.filter((n) => n !== 'redeem' && n !== 'cancel')).toEqual(['echo', 'whoami', 'wipe']);
      // The same rewritten answer.
      expect(echoed).toEqual({ answer: { echo: 'hi', rewritten: true } });
      // The handler sees the binding and the request's headers (none on stdio).
      expect(who).toEqual({
        answer: { binding: wire.binding, probe: wire.hasHeaders ? wire.name : 'none' },
      });
      // The middleware's refusal, and the hidden tool, as the wire's own errors.
      expect(wiped).toEqual({ native: NATIVE[wire.name]!.forbidden });
      expect(hidden).toEqual({ native: NATIVE[wire.name]!.notFound });

      // The same operation shape: the MCP method, the tool, the checked arguments, the caller.
      const shape = seen.map((s) => ({
        method: s.method,
        name: s.name,
        arguments: s.arguments,
        binding: s.binding,
      }));
      expect(shape).toEqual([
        { method: 'tools/list', name: undefined, arguments: undefined, binding: wire.binding },
        { method: 'tools/call', name: 'echo', arguments: { message: 'hi' }, binding: wire.binding },
        { method: 'tools/call', name: 'whoami', arguments: {}, binding: wire.binding },
        { method: 'tools/call', name: 'wipe', arguments: {}, binding: wire.binding },
        // The hidden tool's call reaches middleware refused, without its arguments (docs/middleware.md).
        { method: 'tools/call', name: 'secret', arguments: undefined, binding: wire.binding },
      ]);
      for (const s of seen) {
        if (wire.hasHeaders) {
          expect(s.headers['x-probe']).toBe(wire.name);
          expect(s.address).toMatch(/^(127\.0\.0\.1|::1|::ffff:127\.0\.0\.1)$/);
        } else {
          expect(s.headers).toEqual({});
        }
      }
    } finally {
      session.close();
    }
  });
});
