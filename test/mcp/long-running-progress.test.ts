/**
 * Issue 22, item 1: a long-running tool that reports progress, called over MCP with a progress token. The call
 * answers with a promise at once while the work goes on; the work's later notices used to be sent to the answered
 * request (a JSON response turned into a stream nobody reads), so `reportProgress` never returned, the handler
 * stopped at it and the promise never settled. Through the official SDK client (Streamable HTTP with a session,
 * legacy HTTP+SSE) and the mcplite client over MCP (stateless and handshake), each with a progress token.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect } from '../../src/client/index.js';
import { reportProgress } from '../../src/core/notices.js';
import { createServer, MemoryPromiseStore } from '../../src/index.js';
import { type RunningServer, serve } from '../../src/node.js';

/** How far each run of the tool got, by its `tag`. */
const reached = new Map<string, number>();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let running: RunningServer;

beforeAll(async () => {
  const server = createServer({
    promiseStore: new MemoryPromiseStore(),
    // This is about progress after the promise answered the call (test/mcp/inline-wait.test.ts: within the call).
    mcpInlineWaitMs: 0,
    tools: [
      {
        name: 'crunch',
        description: 'Long-running; reports three steps of progress, the first after the call was answered',
        inputSchema: { type: 'object', properties: { tag: { type: 'string' } }, required: ['tag'] },
        longRunning: { estimatedMs: 300 },
        handler: async ({ tag }: { tag: string }, ctx) => {
          // The promise answers the call at once; the progress comes after that answer.
          await sleep(50);
          for (let step = 1; step <= 3; step++) {
            await reportProgress(ctx, step, { total: 3, message: `step ${step}` });
            reached.set(tag, step);
            await sleep(20);
          }
          return `crunched ${tag}`;
        },
      },
    ],
  });
  running = await serve(server, { port: 0 });
});
afterAll(() => running.close(1000));

type SdkResult = { content: Array<{ text?: string }>; structuredContent?: any; _meta?: any };

async function sdkRun(transport: Transport, tag: string): Promise<void> {
  const client = new Client({ name: 'progress-test', version: '1.0.0' });
  const errors: Error[] = [];
  client.onerror = (err) => errors.push(err);
  await client.connect(transport);
  try {
    const progress: number[] = [];
    const first = (await client.callTool({ name: 'crunch', arguments: { tag } }, undefined, {
      onprogress: (p) => progress.push(p.progress),
    })) as SdkResult;
    const token = first._meta?.['mcplite/promise']?.promise_token as string;
    expect(token).toMatch(/^prom_/);
    const started = Date.now();
    const redeemed = (await client.callTool({
      name: 'redeem',
      arguments: { promise: token, wait_ms: 5000 },
    })) as SdkResult;
    expect(redeemed.structuredContent).toEqual({ result: `crunched ${tag}` });
    expect(Date.now() - started).toBeLessThan(4000);
    expect(reached.get(tag)).toBe(3);
    // Nothing was sent under the spent progress token (the SDK reports such a notification as an error).
    expect(errors.map((e) => e.message)).toEqual([]);
  } finally {
    await client.close();
  }
}

describe('a long-running tool that reports progress, over MCP with a progress token', () => {
  it('settles through the official SDK client over Streamable HTTP (session)', async () => {
    await sdkRun(new StreamableHTTPClientTransport(new URL(`${running.url}/mcp`)), 'streamable');
  });

  it('settles through the official SDK client over legacy HTTP+SSE', async () => {
    await sdkRun(new SSEClientTransport(new URL(`${running.url}/sse`)), 'legacy');
  });

  it.each([
    ['stateless (2026-07-28)', {}],
    ['handshake', { mcpRevision: 'handshake' as const }],
  ])('settles through the mcplite client, %s, which auto-redeems', async (_name, options) => {
    const tag = `client-${_name}`;
    const client = await connect(`${running.url}/mcp`, { binding: 'mcp', ...options });
    try {
      const partials: unknown[] = [];
      const outcome = await client.call(
        'crunch',
        { tag },
        { onPartial: (p) => partials.push(p), timeout: 8000 },
      );
      expect(outcome).toMatchObject({ type: 'answer', value: `crunched ${tag}` });
      expect(reached.get(tag)).toBe(3);
    } finally {
      await client.close();
    }
  });
});
