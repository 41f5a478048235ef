/**
 * A tool with an outputSchema, called through the official SDK client (1.32), whose outcome is not an answer: an
 * elicitation the server cannot ask (the client declared no elicitation) and a call promoted to a promise by the
 * answer budget. The SDK rejects a result that has neither structuredContent nor `isError` ("has an output schema
 * but did not return structured content") before anyone reads its text: both come as `isError` results carrying
 * the instruction, and the fallback's instruction works with arguments alone (tool wrappers pass nothing else).
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, elicit, MemoryPromiseStore } from '../../src/index.js';
import { type RunningServer, serve } from '../../src/node.js';

const OUTPUT = {
  type: 'object',
  properties: { ticket: { type: 'string' } },
  required: ['ticket'],
} as const;

/** Opens the gate of the `slow` call tagged so (the test decides when the work ends). */
const gates = new Map<string, () => void>();
const gate = (tag: string) => new Promise<void>((resolve) => gates.set(tag, resolve));

let running: RunningServer;
beforeAll(async () => {
  const server = createServer({
    promiseStore: new MemoryPromiseStore(),
    answerBudgetMs: 50,
    mcpInlineWaitMs: 0,
    tools: [
      {
        name: 'open_ticket',
        description: 'Opens a ticket; asks for the priority when it is not given',
        inputSchema: {
          type: 'object',
          properties: { title: { type: 'string' }, priority: { type: 'string' } },
          required: ['title'],
        },
        outputSchema: OUTPUT,
        handler: ({ title, priority }: { title: string; priority?: string }, ctx) => {
          const chosen =
            priority ?? (ctx.elicitation?.answers as { priority?: string } | undefined)?.priority;
          if (!chosen) {
            return elicit({
              message: 'Which priority?',
              schema: {
                type: 'object',
                properties: { priority: { type: 'string' } },
                required: ['priority'],
              },
            });
          }
          return { ticket: `${title} (${chosen})` };
        },
      },
      {
        name: 'slow_ticket',
        description: 'Opens a ticket once the test lets it',
        inputSchema: { type: 'object', properties: { tag: { type: 'string' } }, required: ['tag'] },
        outputSchema: OUTPUT,
        handler: async ({ tag }: { tag: string }) => {
          await gate(tag);
          return { ticket: tag };
        },
      },
    ],
  });
  running = await serve(server, { port: 0 });
});
afterAll(() => running.close(1000));

async function sdk(): Promise<Client> {
  const client = new Client({ name: 'outcomes-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${running.url}/mcp`)));
  await client.listTools(); // the SDK validates results against the schemas it listed
  return client;
}

type Result = { content: Array<{ type: string; text?: string }>; isError?: boolean; _meta?: any };

describe('a tool with an outputSchema, through the official SDK client', () => {
  it('an elicitation the client cannot be asked arrives as an isError result the SDK accepts, answerable by arguments', async () => {
    const client = await sdk();
    try {
      const asked = (await client.callTool({
        name: 'open_ticket',
        arguments: { title: 'printer' },
      })) as Result;
      expect(asked.isError).toBe(true);
      expect(asked._meta['mcplite/elicitation'].message).toBe('Which priority?');
      const text = asked.content[0]!.text!;
      expect(text).toContain('Which priority?');
      expect(text).toContain(
        'call this tool again with the same arguments plus the requested fields ("priority")',
      );
      // What the text says works with arguments alone, as a tool wrapper sends them.
      const again = await client.callTool({
        name: 'open_ticket',
        arguments: { title: 'printer', priority: 'high' },
      });
      expect(again.structuredContent).toEqual({ ticket: 'printer (high)' });
    } finally {
      await client.close();
    }
  });

  it('a call promoted to a promise arrives as an isError result the SDK accepts, and redeem answers', async () => {
    const client = await sdk();
    try {
      const first = (await client.callTool({
        name: 'slow_ticket',
        arguments: { tag: 'promoted' },
      })) as Result;
      expect(first.isError).toBe(true);
      const token = first._meta['mcplite/promise'].promise_token as string;
      expect(first.content[0]!.text).toContain(`"promise": "${token}"`);
      gates.get('promoted')!();
      const redeemed = await client.callTool({
        name: 'redeem',
        arguments: { promise: token, wait_ms: 20_000 },
      });
      expect(redeemed.structuredContent).toEqual({ ticket: 'promoted' });
    } finally {
      await client.close();
    }
  });
});
