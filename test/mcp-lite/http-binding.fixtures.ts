/**
 * Shared setup of the MCP-lite HTTP binding tests (`http-binding-*.test.ts`): the tool set every part serves and
 * the server that each part starts once for its tests.
 */
import pino from 'pino';
import { afterAll, beforeAll } from 'vitest';
import { defineTool, elicit, failure } from '../../src/index.js';
import { startServer, type TestServer } from '../support/http-harness.js';

const LEAKY_MESSAGE = 'db password hunter2 at /srv/app/secret.js';

/** How many times the `notify` tool has run (the tests send it as a notification and count the runs). */
export let notified = 0;

/** The tools the shared server serves: echo, add, notify, boom (crashes with a secret), refuse, subscribe. */
export const tools = [
  defineTool({
    name: 'echo',
    '@type': 'query',
    description: 'Echoes its text',
    inputSchema: { type: 'object', required: ['text'], properties: { text: { type: 'string' } } },
    handler: ({ text }: { text: string }) => ({ text }),
  }),
  defineTool({
    name: 'add',
    description: 'Adds two numbers',
    inputSchema: {
      type: 'object',
      required: ['a', 'b'],
      properties: { a: { type: 'number' }, b: { type: 'number' } },
      additionalProperties: false,
    },
    handler: ({ a, b }: { a: number; b: number }) => a + b,
  }),
  defineTool({
    name: 'notify',
    description: 'Counts calls (used as a notification)',
    handler: () => {
      notified++;
      return 'ok';
    },
  }),
  defineTool({
    name: 'boom',
    description: 'Always crashes',
    handler: () => {
      throw new Error(LEAKY_MESSAGE);
    },
  }),
  defineTool({
    name: 'refuse',
    description: 'Fails for a business reason',
    handler: () => failure('Out of stock', { code: 'OUT_OF_STOCK', details: { sku: 'x1' } }),
  }),
  defineTool({
    name: 'subscribe',
    description: 'Asks for an email, then subscribes it',
    inputSchema: { type: 'object', properties: { topic: { type: 'string' } } },
    handler: (args: { topic?: string }, ctx) => {
      if (ctx.elicitation) {
        return {
          subscribed: ctx.elicitation.answers.email,
          topic: args.topic,
          context: ctx.elicitation.context,
        };
      }
      return elicit({
        message: 'Which email should get the digest?',
        schema: {
          type: 'object',
          required: ['email'],
          properties: { email: { type: 'string', format: 'email' } },
        },
        context: { step: 1 },
      });
    },
  }),
];

/** The shared server of the calling test file, started by `useSharedServer` (version 1.2.3). */
export let t: TestServer;
/** The debug log lines the shared server wrote. */
export const logLines: string[] = [];

/** Starts the shared server before the calling file's tests and closes it after them. */
export function useSharedServer(): void {
  beforeAll(async () => {
    const logger = pino({ level: 'debug' }, { write: (line: string) => logLines.push(line) });
    // An answer budget (the old default) makes this a server that returns promises: it lists redeem and cancel.
    t = await startServer({ tools, version: '1.2.3', logger, answerBudgetMs: 10_000 });
  });
  afterAll(() => t.close());
}
