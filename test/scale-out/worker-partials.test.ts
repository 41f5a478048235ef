/**
 * A long-running tool's work runs on a worker server's queue, not on the front the client called: a streaming
 * `redeem` that waits for it (MCP-lite HTTP with SSE, `wait_ms`) still gets the work's partial results as they are
 * made, then the answer. The front and the worker are two servers sharing one real Redis (promises in
 * RedisPromiseStore, work on BullMqWorkQueue); the front works no jobs itself. The same over the in-process queue.
 * A worker's progress reports reach an ordinary MCP client (the official SDK's `callTool`) as its progress
 * notifications, with the handler's own messages, while the call waits for the answer (`mcpInlineWaitMs`). The work
 * makes its partials once a redeem waits on its promise (the store tells), never after a sleep.
 */
import { randomBytes } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reportProgress } from '../../src/core/notices.js';
import { createServer, MemoryPromiseStore, type ToolServer } from '../../src/index.js';
import { type RunningServer, serve } from '../../src/node.js';
import { BullMqWorkQueue, RedisPromiseStore } from '../../src/stores/redis/index.js';
import { readSse } from '../support/http-harness.js';
import { latch } from '../support/latch.js';
import { deletePrefix } from '../support/scale-cluster.js';

const url = process.env.REDIS_URL;
if (!url) console.warn('worker-partials tests skipped: REDIS_URL is not set (CI sets it; see .ci/run)');

const ranOn: number[] = [];

/** Resolved once a redeem waits on a promise (the store's `waitSettled`); renewed for each test. */
let redeemWaits = latch();

/** The real stores, telling the test when someone waits on a promise (a redeem, after it watches the partials). */
class WatchedRedisStore extends RedisPromiseStore {
  override waitSettled(...args: Parameters<RedisPromiseStore['waitSettled']>) {
    redeemWaits.resolve();
    return super.waitSettled(...args);
  }
}
class WatchedMemoryStore extends MemoryPromiseStore {
  override waitSettled(...args: Parameters<MemoryPromiseStore['waitSettled']>) {
    redeemWaits.resolve();
    return super.waitSettled(...args);
  }
}

const countdown = {
  name: 'countdown',
  description: 'Counts down, one partial a step',
  inputSchema: { type: 'object', properties: { from: { type: 'integer' } } },
  longRunning: { estimatedMs: 500 },
  async *handler(args: { from?: number }) {
    ranOn.push(process.pid);
    // The redeem below is waiting (and watching the partials) before the first one.
    await redeemWaits.promise;
    for (let n = args.from ?? 3; n > 0; n--) yield { n };
    return { liftoff: true };
  },
};

/** Reports two steps with messages of its own, then answers. */
const steps = {
  name: 'steps',
  description: 'Two steps, each reported as progress',
  inputSchema: { type: 'object', properties: {} },
  longRunning: { estimatedMs: 500 },
  handler: async (_args: unknown, ctx: Parameters<typeof reportProgress>[0]) => {
    ranOn.push(process.pid);
    await reportProgress(ctx, 1, { total: 2, message: 'fetched the data' });
    await reportProgress(ctx, 2, { total: 2, message: 'wrote the report' });
    return { report: 'ready' };
  },
};

describe.skipIf(!url)('partials of work a worker runs reach the streaming client (Redis, BullMQ)', () => {
  const prefix = `mcplite-test-partials-${randomBytes(4).toString('hex')}`;
  let front: ToolServer;
  let worker: ToolServer;
  let running: RunningServer;

  beforeAll(async () => {
    const make = (work: boolean) =>
      createServer({
        tools: [countdown, steps],
        secret: 'shared',
        promiseStore: new (work ? RedisPromiseStore : WatchedRedisStore)({ url: url!, prefix: `${prefix}:` }),
        workQueue: new BullMqWorkQueue({ url: url!, prefix, work }),
      });
    front = make(false);
    worker = make(true);
    running = await serve(front, { port: 0 });
  });
  afterAll(async () => {
    await running?.close(1000);
    await worker?.close();
    await deletePrefix(url!, prefix);
  });

  it('streams the worker-made partials to a waiting redeem, then the answer', async () => {
    ranOn.length = 0;
    redeemWaits = latch();
    const rpc = `${running.url}/mcp-lite/v1/rpc`;
    const call = (name: string, args: Record<string, unknown>) =>
      fetch(rpc, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: { name, arguments: args },
        }),
      });
    const started = await readSse(await call('countdown', { from: 3 }));
    const token = started.find((e) => e.event === 'done')?.data?._meta?.promise_token;
    expect(token, JSON.stringify(started)).toMatch(/^prom_/);
    const res = await call('redeem', { promise: token, wait_ms: 10_000 });
    expect(res.headers.get('content-type')).toMatch(/text\/event-stream/);
    const events = await readSse(res);
    expect(events.filter((e) => e.event === 'message').map((e) => e.data.partial)).toEqual([
      { n: 3 },
      { n: 2 },
      { n: 1 },
    ]);
    expect(JSON.stringify(events.find((e) => e.event === 'done')?.data)).toContain('liftoff');
    // It ran once, taken from the queue by the worker server: the front's queue works no jobs (work: false).
    expect(ranOn).toHaveLength(1);
    expect(await front.queueStats()).toMatchObject({ running: 0 });
  }, 120_000);

  it("gives an MCP client the worker's progress, with its messages, within the call that gets the answer", async () => {
    ranOn.length = 0;
    const client = new Client({ name: 'worker-progress', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${running.url}/mcp`)));
    try {
      const progress: Array<{ progress: number; total?: number; message?: string }> = [];
      const result = await client.callTool({ name: 'steps', arguments: {} }, undefined, {
        onprogress: (p) => progress.push({ progress: p.progress, total: p.total, message: p.message }),
        timeout: 60_000,
      });
      expect(result.isError).toBeUndefined();
      expect(result.structuredContent).toEqual({ report: 'ready' });
      expect(progress).toEqual([
        { progress: 1, total: 2, message: 'fetched the data' },
        { progress: 2, total: 2, message: 'wrote the report' },
      ]);
      expect(ranOn).toHaveLength(1);
    } finally {
      await client.close();
    }
  }, 120_000);
});

describe('partials of in-process queued work reach a waiting streaming redeem', () => {
  it('streams them, then the answer', async () => {
    redeemWaits = latch();
    const r = await serve(createServer({ tools: [countdown], promiseStore: new WatchedMemoryStore() }), {
      port: 0,
    });
    try {
      const rpc = `${r.url}/mcp-lite/v1/rpc`;
      const post = (name: string, args: Record<string, unknown>, accept?: string) =>
        fetch(rpc, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...(accept ? { accept } : {}) },
          body: JSON.stringify({
            jsonrpc: '2.0',
            id: 1,
            method: 'tools/call',
            params: { name, arguments: args },
          }),
        });
      const started = (await (await post('countdown', { from: 2 })).json()) as any;
      const token = started.result._meta.promise_token;
      const events = await readSse(
        await post('redeem', { promise: token, wait_ms: 10_000 }, 'text/event-stream'),
      );
      expect(events.filter((e) => e.event === 'message').map((e) => e.data.partial)).toEqual([
        { n: 2 },
        { n: 1 },
      ]);
      expect(JSON.stringify(events.find((e) => e.event === 'done')?.data)).toContain('liftoff');
    } finally {
      await r.close(1000);
    }
  });
});
