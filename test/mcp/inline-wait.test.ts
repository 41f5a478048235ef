/**
 * Long-running work in one step for ordinary MCP clients: a client that did not opt into tasks (the official SDK's
 * `callTool`) gets a promise's answer in the call it made when the work ends within `mcpInlineWaitMs`, with the
 * handler's progress on the way; only beyond the wait the promise and the instruction to call `redeem`. The work
 * ends when the test says so (a gate it opens), never after a sleep.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reportProgress } from '../../src/core/notices.js';
import { createServer, MemoryPromiseStore, type ToolDefinition } from '../../src/index.js';
import { type RunningServer, serve } from '../../src/node.js';

/** Each run's gate by tag, made by whichever side comes first: the test opens it to let the work end. */
const gates = new Map<string, { opened: Promise<void>; open: () => void }>();
function gate(tag: string): { opened: Promise<void>; open: () => void } {
  let g = gates.get(tag);
  if (!g) {
    let open!: () => void;
    const opened = new Promise<void>((resolve) => {
      open = resolve;
    });
    g = { opened, open };
    gates.set(tag, g);
  }
  return g;
}
/** Each promise made, by tag: resolved once the store holds it (the call is promised work from then on). */
const promised = new Map<string, Promise<void>>();
const marks = new Map<string, () => void>();

/** The real memory store, telling the test when a promise is stored. */
class WatchedStore extends MemoryPromiseStore {
  override async create(...args: Parameters<MemoryPromiseStore['create']>): Promise<boolean> {
    const made = await super.create(...args);
    for (const mark of marks.values()) mark();
    return made;
  }
}

function expectPromise(tag: string): Promise<void> {
  const p = new Promise<void>((resolve) => marks.set(tag, resolve));
  promised.set(tag, p);
  return p;
}

const OUTPUT = { type: 'object', properties: { done: { type: 'string' } }, required: ['done'] } as const;

/** Reports one step, then waits for its gate. */
async function work(tag: string, ctx: Parameters<ToolDefinition['handler']>[1]): Promise<{ done: string }> {
  await reportProgress(ctx, 1, { total: 2, message: `started ${tag}` });
  await gate(tag).opened;
  await reportProgress(ctx, 2, { total: 2, message: `finishing ${tag}` });
  return { done: tag };
}

const tools: ToolDefinition[] = [
  {
    name: 'crunch',
    description: 'Long-running',
    inputSchema: { type: 'object', properties: { tag: { type: 'string' } }, required: ['tag'] },
    longRunning: { estimatedMs: 3000 },
    handler: async ({ tag }: { tag: string }, ctx) => work(tag, ctx),
  },
  {
    name: 'slow',
    description: 'Promoted past the answer budget',
    inputSchema: { type: 'object', properties: { tag: { type: 'string' } }, required: ['tag'] },
    outputSchema: OUTPUT,
    handler: async ({ tag }: { tag: string }, ctx) => work(tag, ctx),
  },
];

let waiting: RunningServer;
let brief: RunningServer;
beforeAll(async () => {
  const store = new WatchedStore();
  waiting = await serve(createServer({ promiseStore: store, answerBudgetMs: 20, tools }), { port: 0 });
  brief = await serve(
    createServer({ promiseStore: new MemoryPromiseStore(), answerBudgetMs: 20, mcpInlineWaitMs: 1, tools }),
    { port: 0 },
  );
});
afterAll(() => Promise.all([waiting.close(1000), brief.close(1000)]));

async function sdk(url: string): Promise<Client> {
  const client = new Client({ name: 'inline-wait-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`)));
  await client.listTools();
  return client;
}

type Result = { structuredContent?: any; isError?: boolean; content: Array<{ text?: string }>; _meta?: any };

describe('a promise awaited within the call, through the official SDK client', () => {
  it('a long-running tool answers in one callTool, with its progress', async () => {
    const tag = 'one-step-crunch';
    const stored = expectPromise(tag);
    const client = await sdk(waiting.url);
    try {
      const progress: Array<string | undefined> = [];
      const result = (await client.callTool({ name: 'crunch', arguments: { tag } }, undefined, {
        onprogress: (p) => {
          progress.push(p.message);
          // The work ends once it is promised work (stored) and has reported its first step.
          if (progress.length === 1) void stored.then(() => gate(tag).open());
        },
        timeout: 30_000,
      })) as Result;
      expect(result.isError).toBeUndefined();
      expect(result.structuredContent).toEqual({ done: tag });
      expect(progress).toEqual([`started ${tag}`, `finishing ${tag}`]);
    } finally {
      await client.close();
    }
  });

  it('a call promoted past the answer budget answers in one callTool', async () => {
    // Without a progress token: a call that streams its progress is never promoted. The gate opens only once the
    // call is stored as a promise, so this answer came from promoted work.
    const tag = 'one-step-slow';
    void expectPromise(tag).then(() => gate(tag).open());
    const client = await sdk(waiting.url);
    try {
      const result = (await client.callTool({ name: 'slow', arguments: { tag } })) as Result;
      expect(result.isError).toBeUndefined();
      expect(result.structuredContent).toEqual({ done: tag });
    } finally {
      await client.close();
    }
  });

  it('beyond mcpInlineWaitMs answers with the promise and the instruction to redeem', async () => {
    const client = await sdk(brief.url);
    try {
      const tag = 'beyond';
      const first = (await client.callTool({ name: 'crunch', arguments: { tag } })) as Result;
      const token = first.structuredContent.promise_token as string;
      expect(first.content[0]!.text).toContain(`Call the tool "redeem" with {"promise": "${token}"}`);
      gate(tag).open();
      const redeemed = await client.callTool({
        name: 'redeem',
        arguments: { promise: token, wait_ms: 20_000 },
      });
      expect(redeemed.structuredContent).toEqual({ done: tag });
    } finally {
      await client.close();
    }
  });
});
