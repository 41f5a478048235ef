/**
 * The tools the client tests call on every binding: one per outcome, a streaming one, a long-running one and a
 * slow synchronous one (for deadlines and cancellation).
 */
import { elicit, failure, needMoreResource, type ToolDefinition } from '../../src/index.js';

/** Set by the slow tools when their signal aborts, so tests can see a cancel reach the handler. */
export const aborted = new Set<string>();

export const clientTools: ToolDefinition[] = [
  {
    name: 'echo',
    '@type': 'query',
    description: 'Echo the message back',
    inputSchema: {
      type: 'object',
      properties: { message: { type: 'string' }, times: { type: 'integer', minimum: 1 } },
      required: ['message'],
    },
    handler: ({ message, times = 1 }: { message: string; times?: number }) => ({ message, times }),
  },
  {
    name: 'refuse',
    description: 'Always fails for a business reason',
    handler: () => failure('No stock left', { code: 'out_of_stock', details: { sku: 'A1' } }),
  },
  {
    name: 'budget',
    description: 'Needs more rows than granted',
    handler: () =>
      needMoreResource({
        resource: 'rows',
        requested: 120,
        granted: 50,
        unit: 'rows',
        message: 'Need 120 rows',
      }),
  },
  {
    name: 'count',
    description: 'Streams 1..n as partials, then answers the total',
    inputSchema: { type: 'object', properties: { n: { type: 'integer' } } },
    handler: async ({ n = 3 }: { n?: number }, ctx) => {
      for (let i = 1; i <= n; i++) await ctx.partial({ i });
      return { total: n };
    },
  },
  {
    name: 'slow_job',
    description: 'Long-running: answers after ms milliseconds',
    inputSchema: { type: 'object', properties: { ms: { type: 'integer' }, id: { type: 'string' } } },
    longRunning: { estimatedMs: 200 },
    handler: ({ ms = 300, id = '' }: { ms?: number; id?: string }, ctx) =>
      new Promise((resolve, reject) => {
        const t = setTimeout(() => resolve({ done: true, ms }), ms);
        ctx.signal.addEventListener('abort', () => {
          clearTimeout(t);
          aborted.add(id);
          reject(ctx.signal.reason);
        });
      }),
  },
  {
    name: 'subscribe',
    description: 'Asks for an email, then subscribes it',
    inputSchema: { type: 'object', properties: { topic: { type: 'string' } } },
    handler: ({ topic = 'news' }: { topic?: string }, ctx) => {
      if (!ctx.elicitation) {
        return elicit({
          message: 'Which email should we use?',
          schema: { type: 'object', properties: { email: { type: 'string' } }, required: ['email'] },
        });
      }
      return { subscribed: ctx.elicitation.answers.email, topic };
    },
  },
];
