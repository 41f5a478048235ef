/**
 * The harness of the cross-binding suite (test/cross-binding-*.test.ts): one table of cases, run over every
 * binding, asserting that they agree (docs/architecture.md, "The outcome model": the outcome model is the same on
 * every wire). Each binding contributes one adapter that speaks its wire with a real client and normalises the
 * replies into a common shape (test/support/cross-binding-shape.ts): MCP-lite over HTTP, gRPC, WebSocket and stdio
 * (cross-binding-mcp-lite.ts), Webtools (cross-binding-webtools.ts), and full MCP over WebSocket, the legacy
 * HTTP+SSE transport and Streamable HTTP with the official SDK's clients (cross-binding-mcp-sdk.ts). A binding
 * joins by adding its adapter to ADAPTERS. Each case states the expected transcript, so the bindings cannot
 * agree on something wrong. Here too: the tools, the fixture servers (one ToolServer per fixture,
 * served over every binding at once) and `describeCases`, which runs a file's cases.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearerAuth } from '../../src/core/auth.js';
import {
  createServer,
  elicit,
  failure,
  McpLiteError,
  needMoreResource,
  type ToolDefinition,
} from '../../src/index.js';
import { serve } from '../../src/node.js';
import { grpcAdapter, httpAdapter, stdioAdapter, wsAdapter } from './cross-binding-mcp-lite.js';
import { mcpLegacySseAdapter, mcpStreamableHttpAdapter, mcpWsAdapter } from './cross-binding-mcp-sdk.js';
import type {
  BindingAdapter,
  Endpoint,
  FixtureName,
  ListedTool,
  Reply,
  Session,
} from './cross-binding-shape.js';
import { webtoolsAdapter } from './cross-binding-webtools.js';

/** Every binding in the suite. A new binding adds its adapter here. */
const ADAPTERS: BindingAdapter[] = [
  httpAdapter,
  grpcAdapter,
  webtoolsAdapter,
  wsAdapter,
  stdioAdapter,
  mcpWsAdapter,
  mcpLegacySseAdapter,
  mcpStreamableHttpAdapter,
];

// ---- the tools and the servers (one ToolServer per fixture, served over every binding at once) ----

/** The version every fixture server reports. */
export const VERSION = '9.9.9';

/** The schema of the size the elicitation tools ask for. */
export const SIZE_SCHEMA = {
  type: 'object',
  required: ['size'],
  properties: { size: { type: 'string', enum: ['S', 'M', 'L'] } },
};
/** The schema of the colour `ask_two` asks for. */
export const COLOUR_SCHEMA = {
  type: 'object',
  required: ['colour'],
  properties: { colour: { type: 'string' } },
};

/** The tools every fixture server serves, one per outcome and error the cases exercise. */
export const tools: ToolDefinition[] = [
  {
    name: 'echo',
    '@type': 'query',
    description: 'Echoes the message',
    inputSchema: {
      type: 'object',
      required: ['message'],
      properties: { message: { type: 'string' }, times: { type: 'integer', minimum: 1 } },
    },
    handler: (args: { message: string; times?: number }) => ({ echo: args.message, times: args.times ?? 1 }),
  },
  { name: 'list', description: 'A list answer', handler: () => ['a', 1, null, { b: [true, 2.5] }] },
  { name: 'text', description: 'A string answer', handler: () => 'plain text' },
  {
    name: 'fail',
    description: 'Fails',
    handler: () => failure('Out of stock', { code: 'OOS', details: { sku: 'x1' } }),
  },
  {
    name: 'ask',
    description: 'Elicits a size',
    handler: (_args, ctx) =>
      ctx.elicitation
        ? { size: ctx.elicitation.answers.size, step: (ctx.elicitation.context as { step: number }).step }
        : elicit({
            message: 'Which size?',
            schema: {
              type: 'object',
              required: ['size'],
              properties: { size: { type: 'string', enum: ['S', 'M', 'L'] } },
            },
            context: { step: 1 },
          }),
  },
  {
    name: 'ask_two',
    description: 'Elicits a size and a colour in one round',
    handler: (_args, ctx) =>
      ctx.elicitation
        ? ctx.elicitation.answers
        : elicit({
            requests: {
              size: { message: 'Which size?', schema: SIZE_SCHEMA },
              colour: { message: 'Which colour?', schema: COLOUR_SCHEMA },
            },
          }),
  },
  {
    name: 'delete_note',
    description: 'Deletes a note once the user confirms; a decline or cancel keeps it',
    inputSchema: { type: 'object', required: ['id'], properties: { id: { type: 'string' } } },
    handler: (args: { id: string }, ctx) => {
      if (!ctx.elicitation) {
        return elicit({ message: `Delete note ${args.id}?`, schema: { type: 'object', properties: {} } });
      }
      return ctx.elicitation.action === 'accept'
        ? { deleted: args.id }
        : { kept: args.id, action: ctx.elicitation.action };
    },
  },
  {
    name: 'more',
    description: 'Needs more budget',
    handler: () =>
      needMoreResource({ resource: 'cost', requested: 5, granted: 1, unit: 'usd', message: 'Costs 5 USD' }),
  },
  {
    name: 'slow',
    description: 'Long-running',
    longRunning: { estimatedMs: 100 },
    handler: async () => {
      await new Promise((r) => setTimeout(r, 20));
      return { done: true };
    },
  },
  {
    name: 'report',
    description: 'Streams',
    handler: async function* () {
      yield 'part one';
      yield { part: 2 };
      return { pages: 2 };
    },
  },
  {
    name: 'report_fail',
    description: 'Streams, then fails',
    handler: async (_args, ctx) => {
      await ctx.partial('begun');
      return failure('Printer jammed');
    },
  },
  {
    name: 'report_boom',
    description: 'Streams, then throws',
    handler: async (_args, ctx) => {
      await ctx.partial('begun');
      throw new Error('secret internals');
    },
  },
  {
    name: 'boom',
    description: 'Throws',
    handler: () => {
      throw new Error('secret internals');
    },
  },
  {
    name: 'upstream',
    description: 'Times out upstream',
    handler: () => {
      throw new McpLiteError('deadline_exceeded', 'The upstream timed out');
    },
  },
];

const fixtures = new Map<FixtureName, Endpoint>();
const closers: Array<() => Promise<void>> = [];

/** Starts the fixture servers before the file's cases and closes them after. */
function useFixtures(): void {
  beforeAll(async () => {
    const open = createServer({ tools, version: VERSION, mcpInlineWaitMs: 0 });
    const openRunning = await serve(open, { port: 0, grpcPort: 0 });
    const guarded = createServer({
      tools,
      version: VERSION,
      authenticate: bearerAuth(['t0ken']),
      mcpInlineWaitMs: 0,
    });
    const guardedRunning = await serve(guarded, { port: 0, grpcPort: 0 });
    fixtures.set('open', { running: openRunning, server: open });
    fixtures.set('guarded', { running: guardedRunning, server: guarded });
    fixtures.set('guarded-with-token', { running: guardedRunning, server: guarded, token: 't0ken' });
    closers.push(
      () => openRunning.close(1000),
      () => guardedRunning.close(1000),
    );
  });

  afterAll(async () => {
    await Promise.all(closers.map((c) => c()));
  });
}

// ---- the table's helpers ----

/** The meta of a plain reply: a timestamp and the server version, no promise. */
export const META = {
  promise_token: false,
  estimated_completion: false,
  timestamp: true,
  server_version: VERSION,
};
/** The normalised reply of an answer with this content. */
export const answer = (content: unknown): Reply => ({
  kind: 'result',
  response_type: 'answer',
  fields: { content },
  meta: META,
});

/** The listing as core makes it, normalised like the adapters' (a throwaway server, closed at once). */
export function coreListing(): ListedTool[] {
  const reference = createServer({ tools, version: VERSION });
  const listed = reference.listTools().tools.map((t) => ({
    name: t.name,
    type: t['@type'] ?? '',
    description: t.description,
    inputSchema: t.inputSchema,
  }));
  void reference.close();
  return listed;
}

/** One case of the table: what it runs through a session, and the transcript it must give. */
export interface Case {
  name: string;
  fixture?: FixtureName;
  /** Runs the case through one binding's session and returns its transcript. */
  run(s: Session): Promise<unknown>;
  expected: unknown;
}

/** Registers the cases (one test each, run over every adapter) and the fixture servers' lifecycle. */
export function describeCases(cases: Case[]): void {
  useFixtures();
  describe.each(cases)('$name', (c) => {
    it('every binding gives the expected transcript, so they all agree', async () => {
      const endpoint = fixtures.get(c.fixture ?? 'open')!;
      const transcripts: Array<{ binding: string; transcript: unknown }> = [];
      for (const adapter of ADAPTERS) {
        if (adapter.skips?.includes(c.fixture ?? 'open')) continue;
        const session = adapter.open(endpoint);
        try {
          transcripts.push({ binding: adapter.name, transcript: await c.run(session) });
        } finally {
          session.close();
        }
      }
      for (const t of transcripts)
        expect({ binding: t.binding, transcript: t.transcript }).toEqual({
          binding: t.binding,
          transcript: c.expected,
        });
      const [first, ...rest] = transcripts;
      for (const t of rest) expect(t.transcript).toEqual(first!.transcript);
    });
  });
}
