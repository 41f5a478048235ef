import { request as httpRequest } from 'node:http';
import { createParser } from 'eventsource-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  callMessage,
  expectStillServing,
  type JsonRpcResponse,
  postJson,
  postSse,
  readSse,
  type SseEvent,
  startServer,
  type TestServer,
  waitFor,
} from '../../../../test/support/http-harness.js';
import { defineTool, failure } from '../../../index.js';

const HEARTBEAT_MS = 40;

/** State the handlers share with the tests. */
const probe = {
  idleRelease: undefined as (() => void) | undefined,
  hangupAborted: false,
  produced: 0,
};

const PARTIAL_COUNT = 200;
const PARTIAL_SIZE = 256 * 1024;

const tools = [
  defineTool({
    name: 'report',
    description: 'Streams a report in two parts',
    inputSchema: { type: 'object', required: ['topic'], properties: { topic: { type: 'string' } } },
    handler: async ({ topic }: { topic: string }, ctx) => {
      await ctx.partial(`Report on ${topic}`);
      await ctx.partial('\n\nRevenue rose by 15%');
      await ctx.partial({ section: 3 });
      return { pages: 3 };
    },
  }),
  defineTool({
    name: 'count',
    description: 'An async generator: yields 1..3, returns the sum',
    handler: async function* () {
      yield 1;
      yield 2;
      yield 3;
      return 6;
    },
  }),
  defineTool({
    name: 'crash',
    description: 'Crashes after one partial',
    handler: async (_args, ctx) => {
      await ctx.partial('about to fail');
      throw new Error('secret connection string postgres://admin:hunter2@db');
    },
  }),
  defineTool({
    name: 'refuse',
    description: 'Fails for a business reason',
    handler: () => failure('Quota used up', { code: 'QUOTA' }),
  }),
  defineTool({
    name: 'bigint',
    description: 'Returns something JSON cannot carry',
    handler: () => ({ n: 10n }),
  }),
  defineTool({
    name: 'idle',
    description: 'Waits until the test lets it go',
    handler: () =>
      new Promise((resolve) => {
        probe.idleRelease = () => resolve('released');
      }),
  }),
  defineTool({
    name: 'hangup',
    description: 'Streams, then waits until aborted',
    handler: async (_args, ctx) => {
      ctx.signal.addEventListener('abort', () => {
        probe.hangupAborted = true;
      });
      await ctx.partial('first');
      await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve));
      return 'never seen';
    },
  }),
  defineTool({
    name: 'flood',
    description: 'Emits many large partials',
    handler: async (_args, ctx) => {
      const chunk = 'x'.repeat(PARTIAL_SIZE);
      for (let i = 0; i < PARTIAL_COUNT; i++) {
        await ctx.partial({ i, chunk });
        probe.produced = i + 1;
      }
      return { total: PARTIAL_COUNT };
    },
  }),
];

let t: TestServer;

beforeAll(async () => {
  t = await startServer({ tools }, { heartbeatMs: HEARTBEAT_MS });
});
afterAll(() => t.close());

const without = (events: SseEvent[], type: string) => events.filter((e) => e.event !== type);

describe('SSE streaming (spec 4.3, A.4)', () => {
  it('answers Accept: text/event-stream with an event stream', async () => {
    const res = await postSse(t.rpcUrl, callMessage('report', { topic: 'Q4' }));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    expect(res.headers.get('cache-control')).toContain('no-cache');
    await readSse(res);
  });

  it('sends the partials as message events in order, then done with the result and _meta', async () => {
    const events = without(
      await readSse(await postSse(t.rpcUrl, callMessage('report', { topic: 'Q4' }))),
      'heartbeat',
    );
    expect(events.map((e) => e.event)).toEqual(['message', 'message', 'message', 'done']);
    expect(events.slice(0, 3).map((e) => e.data)).toEqual([
      { partial: 'Report on Q4' },
      { partial: '\n\nRevenue rose by 15%' },
      { partial: { section: 3 } },
    ]);
    const done = events[3]!.data;
    expect(done.content).toEqual({ pages: 3 });
    expect(done._meta).toMatchObject({ response_type: 'answer', server_version: '0.0.0' });
    expect(typeof done._meta.timestamp).toBe('string');
  });

  it('streams the yields of an async generator handler', async () => {
    const events = without(await readSse(await postSse(t.rpcUrl, callMessage('count', {}))), 'heartbeat');
    expect(events.map((e) => e.data.partial ?? e.data.content)).toEqual([1, 2, 3, 6]);
    expect(events.at(-1)!.event).toBe('done');
  });

  it('sends a failure outcome as done with response_type failure', async () => {
    const events = without(await readSse(await postSse(t.rpcUrl, callMessage('refuse', {}))), 'heartbeat');
    expect(events).toHaveLength(1);
    expect(events[0]!.event).toBe('done');
    expect(events[0]!.data.failure).toEqual({ message: 'Quota used up', code: 'QUOTA' });
    expect(events[0]!.data._meta.response_type).toBe('failure');
  });

  it('sends an error event for an unknown tool', async () => {
    const events = await readSse(await postSse(t.rpcUrl, callMessage('reprot', {})));
    expect(events.map((e) => e.event)).toEqual(['error']);
    expect(events[0]!.data).toMatchObject({
      code: -32601,
      data: { requested_tool: 'reprot', suggestion: "Did you mean 'report'?" },
    });
  });

  it('sends an error event for invalid params', async () => {
    const events = await readSse(await postSse(t.rpcUrl, callMessage('report', { topic: 7 })));
    expect(events.map((e) => e.event)).toEqual(['error']);
    expect(events[0]!.data.code).toBe(-32602);
    expect(events[0]!.data.data.errors[0].field).toBe('topic');
  });

  it('sends an error event for a bad tool name', async () => {
    const events = await readSse(
      await postSse(t.rpcUrl, { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 3 } }),
    );
    expect(events.map((e) => e.event)).toEqual(['error']);
    expect(events[0]!.data.code).toBe(-32602);
  });

  it('sends an error event, leaking nothing, when the handler throws after a partial', async () => {
    const res = await postSse(t.rpcUrl, callMessage('crash', {}));
    const events = without(await readSse(res), 'heartbeat');
    expect(events.map((e) => e.event)).toEqual(['message', 'error']);
    expect(events[1]!.data).toEqual({ code: -32603, message: 'Internal error' });
    expect(JSON.stringify(events)).not.toContain('hunter2');
  });

  it('sends an error event when the result cannot be serialised, and stays up', async () => {
    const events = without(await readSse(await postSse(t.rpcUrl, callMessage('bigint', {}))), 'heartbeat');
    expect(events.map((e) => e.event)).toEqual(['error']);
    expect(events[0]!.data).toEqual({ code: -32603, message: 'Internal error' });
    await expectStillServing(t.rpcUrl);
  });

  it('sends heartbeat events while the handler is idle', async () => {
    probe.idleRelease = undefined;
    let heartbeats = 0;
    const events = await readSse(await postSse(t.rpcUrl, callMessage('idle', {})), (e) => {
      // Let the handler finish once two heartbeats have arrived.
      if (e.event === 'heartbeat' && ++heartbeats === 2) probe.idleRelease?.();
    });
    const beats = events.filter((e) => e.event === 'heartbeat');
    expect(beats.length).toBeGreaterThanOrEqual(2);
    expect(Number.isNaN(Date.parse(beats[0]!.data.timestamp))).toBe(false);
    expect(events.at(-1)).toMatchObject({ event: 'done', data: { content: 'released' } });
  });

  it('answers JSON when the client prefers application/json', async () => {
    const res = await postJson(t.rpcUrl, callMessage('report', { topic: 'Q1' }), {
      accept: 'application/json, text/event-stream',
    });
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(((await res.json()) as JsonRpcResponse).result.content).toEqual({ pages: 3 });
  });

  it('answers a batch with JSON even when SSE is asked for', async () => {
    const res = await postSse(t.rpcUrl, [callMessage('report', { topic: 'a' }), callMessage('count', {})]);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(((await res.json()) as JsonRpcResponse[]).map((r) => r.result.content)).toEqual([{ pages: 3 }, 6]);
  });

  it('answers a streamed notification with 202 and no body', async () => {
    const res = await postSse(t.rpcUrl, {
      jsonrpc: '2.0',
      method: 'tools/call',
      params: { name: 'report', arguments: { topic: 'n' } },
    });
    expect(res.status).toBe(202);
    expect(await res.text()).toBe('');
  });
});

describe('client hang-up', () => {
  it('aborts the handler (its ctx.signal fires) when the client closes the stream, and stays up', async () => {
    probe.hangupAborted = false;
    const res = await postSse(t.rpcUrl, callMessage('hangup', {}));
    const reader = res.body!.getReader();
    const first = await reader.read();
    expect(new TextDecoder().decode(first.value)).toContain('"partial":"first"');
    await reader.cancel();
    await waitFor(() => probe.hangupAborted, 5000, 'the handler to see the abort');
    await expectStillServing(t.rpcUrl);
  });
});

describe('backpressure', () => {
  it('keeps a producer of large partials close to a slow reader instead of buffering ahead', async () => {
    probe.produced = 0;
    let consumed = 0;
    let maxAhead = 0;
    let done: any;
    const parser = createParser({
      onEvent: (e) => {
        if (e.event === 'message') {
          expect(JSON.parse(e.data).partial.i).toBe(consumed);
          consumed++;
        } else if (e.event === 'done') done = JSON.parse(e.data);
      },
    });
    const body = JSON.stringify(callMessage('flood', {}));
    await new Promise<void>((resolve, reject) => {
      const req = httpRequest(
        t.rpcUrl,
        { method: 'POST', headers: { 'content-type': 'application/json', accept: 'text/event-stream' } },
        (res) => {
          res.setEncoding('utf8');
          res.pause();
          // Phase 1: read nothing until the producer stalls, then check how far it got.
          let last = -1;
          const settle = setInterval(() => {
            if (probe.produced !== last) {
              last = probe.produced;
              return;
            }
            clearInterval(settle);
            maxAhead = Math.max(maxAhead, probe.produced - consumed);
            // Phase 2: read slowly, one chunk every few milliseconds.
            res.on('data', (chunk: string) => {
              parser.feed(chunk);
              maxAhead = Math.max(maxAhead, probe.produced - consumed);
              res.pause();
              setTimeout(() => res.resume(), 1);
            });
            res.on('end', resolve);
            res.resume();
          }, 200);
        },
      );
      req.on('error', reject);
      req.end(body);
    });
    expect(consumed).toBe(PARTIAL_COUNT);
    expect(done.content).toEqual({ total: PARTIAL_COUNT });
    // Kernel socket buffers hold some partials; without backpressure the producer would finish all 200 at once.
    // Socket buffers (kernel and node) may hold a few megabytes of partials; without backpressure the producer
    // would run through all 50 MiB at once.
    expect(maxAhead * PARTIAL_SIZE).toBeLessThan(16 * 1024 * 1024);
  });
});
