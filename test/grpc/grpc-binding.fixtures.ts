/**
 * Shared setup of the gRPC binding tests (grpc-binding*.test.ts): the tools they call, a logger that captures
 * errors, a server listening on a real port with a spec client and a full client, and a status assertion.
 */
import { type ServiceError, status } from '@grpc/grpc-js';
import { afterAll, beforeAll, expect } from 'vitest';
import { type GrpcListening, listenGrpc } from '../../src/bindings/grpc/index.js';
import { McpLiteError } from '../../src/core/errors.js';
import type { Logger } from '../../src/core/logger.js';
import { elicit, failure, needMoreResource } from '../../src/core/outcomes.js';
import type { ToolServer } from '../../src/core/server.js';
import type { ToolDefinition } from '../../src/core/tool.js';
import { createServer } from '../../src/create-server.js';
import { type McpLiteClient, makeClient } from '../support/grpc-client.js';

/** Where the handlers report how they ended, so tests can see that an abort reached them. */
export const aborted = new Map<string, unknown>();
/** How many partials the backpressure handler (`flood`) has managed to emit so far. */
export const floodProgress = { emitted: 0 };

function waitForAbort(signal: AbortSignal): Promise<unknown> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve(signal.reason);
    else signal.addEventListener('abort', () => resolve(signal.reason), { once: true });
  });
}

/** The tools every gRPC binding test calls: one per outcome, streaming, aborting, flooding and odd ones. */
export const tools: ToolDefinition[] = [
  {
    name: 'echo',
    '@type': 'query',
    title: 'Echo',
    description: 'Echoes the message',
    inputSchema: {
      type: 'object',
      required: ['message'],
      properties: { message: { type: 'string' }, repeat: { type: 'integer', minimum: 1, maximum: 10 } },
      additionalProperties: false,
    },
    outputSchema: { type: 'object', properties: { echo: { type: 'string' } } },
    annotations: { readOnlyHint: true },
    handler: (args: { message: string; repeat?: number }) => ({
      echo: args.message.repeat(args.repeat ?? 1),
    }),
  },
  { name: 'list', handler: () => [1, 'two', { three: 3 }, null, [true]] },
  { name: 'text', handler: () => 'just a string' },
  { name: 'nothing', handler: () => undefined },
  {
    name: 'fail',
    handler: () => failure('The warehouse is closed', { code: 'CLOSED', details: { reopens: '09:00' } }),
  },
  {
    name: 'ask',
    handler: (_args, ctx) => {
      if (!ctx.elicitation) {
        return elicit({
          message: 'Which colour?',
          schema: { type: 'object', required: ['colour'], properties: { colour: { type: 'string' } } },
          context: { step: 1 },
        });
      }
      return { colour: ctx.elicitation.answers.colour, context: ctx.elicitation.context };
    },
  },
  {
    name: 'more',
    handler: () =>
      needMoreResource({
        resource: 'time',
        requested: 60_000,
        granted: 1000,
        unit: 'ms',
        message: 'Needs a minute',
      }),
  },
  {
    name: 'slow',
    longRunning: { estimatedMs: 50 },
    handler: async () => {
      await new Promise((r) => setTimeout(r, 20));
      return { finished: true };
    },
  },
  {
    name: 'boom',
    handler: () => {
      throw new Error('secret at /etc/shadow password=hunter2');
    },
  },
  {
    name: 'deadline',
    handler: () => {
      throw new McpLiteError('deadline_exceeded', 'The upstream timed out');
    },
  },
  {
    name: 'report',
    handler: async function* () {
      yield 'Quarterly Report';
      yield { section: 2, text: 'Revenue' };
      return { pages: 2 };
    },
  },
  {
    name: 'report_fail',
    handler: async (_args, ctx) => {
      await ctx.partial('first');
      return failure('Ran out of paper');
    },
  },
  {
    name: 'report_boom',
    handler: async (_args, ctx) => {
      await ctx.partial('first');
      throw new Error('disk on fire at /var/secret');
    },
  },
  {
    name: 'wait',
    inputSchema: { type: 'object', required: ['key'], properties: { key: { type: 'string' } } },
    handler: async (args: { key: string }, ctx) => {
      await ctx.partial('started');
      aborted.set(args.key, await waitForAbort(ctx.signal));
      return 'too late';
    },
  },
  {
    name: 'flood',
    inputSchema: { type: 'object', properties: { count: { type: 'integer' }, size: { type: 'integer' } } },
    handler: async (args: { count?: number; size?: number }, ctx) => {
      const chunk = 'x'.repeat(args.size ?? 1024);
      for (let i = 0; i < (args.count ?? 2000); i++) {
        if (ctx.signal.aborted) return 'stopped';
        await ctx.partial({ i, chunk });
        floodProgress.emitted = i + 1;
      }
      return { sent: args.count ?? 2000 };
    },
  },
  {
    name: 'whoami',
    handler: (_args, ctx) => ({ principal: ctx.principal?.id ?? null }),
  },
  {
    name: 'weird',
    handler: () => ({
      when: new Date(0),
      nan: Number.NaN,
      gone: undefined,
      list: [undefined, 1],
      nested: { deep: { deeper: [{}] } },
    }),
  },
];

/** The errors the server logged, so tests can see where a hidden cause went. */
export const logged: Array<{ obj: unknown; msg?: string }> = [];
const captureLogger: Logger = {
  debug: () => {},
  info: () => {},
  warn: () => {},
  error: (obj, msg) => logged.push({ obj, msg }),
  child: () => captureLogger,
};

/** The server of a test file, its gRPC listener and a client of each flavour; filled in when the file starts. */
export interface GrpcBinding {
  server: ToolServer;
  grpc: GrpcListening;
  spec: McpLiteClient;
  full: McpLiteClient;
}

/**
 * For the test file it is called in: a server over `tools` (version 1.2.3, logging to `logged`) listening for gRPC on
 * a free port, with a spec client and a full client, started before the tests and closed after them.
 */
export function useGrpcBinding(): GrpcBinding {
  const live = {} as GrpcBinding;
  beforeAll(async () => {
    live.server = createServer({ tools, version: '1.2.3', logger: captureLogger });
    live.grpc = await listenGrpc(live.server, { port: 0 });
    live.spec = makeClient(live.grpc.address, 'spec');
    live.full = makeClient(live.grpc.address, 'full');
  });

  afterAll(async () => {
    live.spec?.close();
    live.full?.close();
    await live.grpc?.close(1000);
    await live.server?.close();
  });
  return live;
}

/** Asserts that a call ended with the gRPC status `code` and returns its error. */
export function expectStatus(error: ServiceError | undefined, code: status): ServiceError {
  expect(error, 'expected an error status').toBeDefined();
  expect(status[error!.code]).toBe(status[code]);
  return error!;
}
