/**
 * A long-running tool's work runs on a worker server's queue, not on the front the client called: a streaming
 * `redeem` that waits for it (MCP-lite HTTP with SSE, `wait_ms`) still gets the work's partial results as they are
 * made, then the answer. The front and the worker are two servers sharing one real Redis (promises in
 * RedisPromiseStore, work on BullMqWorkQueue); the front works no jobs itself. The same over the in-process queue.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type ToolServer } from '../src/index.js';
import { type RunningServer, serve } from '../src/node.js';
import { BullMqWorkQueue, RedisPromiseStore } from '../src/stores/redis/index.js';
import { readSse } from './support/http-harness.js';
import { deletePrefix } from './support/scale-cluster.js';

const url = process.env.REDIS_URL;
if (!url) console.warn('worker-partials tests skipped: REDIS_URL is not set (CI sets it; see .ci/run)');

const ranOn: number[] = [];

const countdown = {
  name: 'countdown',
  description: 'Counts down, one partial a step',
  inputSchema: { type: 'object', properties: { from: { type: 'integer' } } },
  longRunning: { estimatedMs: 500 },
  async *handler(args: { from?: number }) {
    ranOn.push(process.pid);
    for (let n = args.from ?? 3; n > 0; n--) {
      // Slow enough that the redeem below is waiting before the first partial.
      await new Promise((resolve) => setTimeout(resolve, 300));
      yield { n };
    }
    return { liftoff: true };
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
        tools: [countdown],
        secret: 'shared',
        promiseStore: new RedisPromiseStore({ url: url!, prefix: `${prefix}:` }),
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
});

describe('partials of in-process queued work reach a waiting streaming redeem', () => {
  it('streams them, then the answer', async () => {
    const r = await serve(createServer({ tools: [countdown] }), { port: 0 });
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
