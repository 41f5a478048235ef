/**
 * One error exit: whatever wire a call arrives on, a throwable that is not the one error type answers `internal`
 * (its message never sent) and is logged once, with its cause, by the binding's exit. A middleware throws a plain
 * Error, which nothing in core maps or logs, so each wire's exit is what is tested: the answer is that wire's
 * native internal error and the log has exactly one line carrying the thrown error.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type Logger, type Middleware } from '../../src/index.js';
import { type RunningServer, serve } from '../../src/node.js';
import { WIRES, type Wire } from '../support/middleware-wires.js';

const logged: { fields: Record<string, unknown>; message: string | undefined }[] = [];
const record = (fields: unknown, message?: string) => {
  logged.push({ fields: (fields ?? {}) as Record<string, unknown>, message });
};
const logger: Logger = {
  error: record,
  warn: () => {},
  info: () => {},
  debug: () => {},
  child: () => logger,
} as unknown as Logger;

/** Throws what no binding expects: a plain Error, named after the wire that carried the call. */
const explode: Middleware = (op, next) => {
  if (op.method === 'tools/call' && op.name === 'explode') throw new Error(`boom over ${op.caller.binding}`);
  return next();
};

const server = createServer({
  logger,
  tools: [{ name: 'explode', handler: () => 'never' }],
  middleware: [explode],
});

let running: RunningServer;

beforeAll(async () => {
  running = await serve(server, { port: 0, grpc: { port: 0 } });
});

afterAll(async () => {
  await running.close(1000);
});

/** Each wire's native internal error (docs/architecture.md, the tables). */
const INTERNAL: Record<string, unknown> = {
  'mcp-lite-http': { status: 200, code: -32603 },
  'mcp-lite-http-sse': { status: 200, event: 'error', code: -32603 },
  grpc: { status: 13 },
  webtools: { status: 500, code: 'INTERNAL_ERROR' },
  'mcp-lite-ws': { code: -32603 },
  'mcp-lite-stdio': { code: -32603 },
  'mcp-streamable-http': { code: -32603 },
  'mcp-ws': { code: -32603 },
  'mcp-stdio': { code: -32603 },
  'mcp-legacy-sse': { code: -32603 },
  draft: { status: 200, code: -32603 },
};

describe.each(WIRES)('$name', (wire: Wire) => {
  it('answers internal without the message and logs the error once', async () => {
    const session = await wire.open(running, server);
    try {
      logged.length = 0;
      const reply = await session.call('explode', {});
      expect(reply).toEqual({ native: INTERNAL[wire.name] });
      const lines = logged.filter((l) =>
        String((l.fields.err as Error | undefined)?.message).startsWith('boom'),
      );
      expect(lines).toHaveLength(1);
      expect((lines[0]!.fields.err as Error).message).toBe(`boom over ${wire.binding}`);
    } finally {
      session.close();
    }
  });
});
