/**
 * A promise keeps its trace across replicas (issue 27), real Redis and BullMQ, the real OpenTelemetry SDK: a
 * long-running call on front A (which works no jobs) answers with a promise; its job goes through BullMQ to a
 * worker in another process, whose work is a span `execute_tool analyse` in the trace of A's call (the context
 * travels with the job) with the handler's span under it; a `redeem` on front B links to that work span.
 */
import { randomBytes } from 'node:crypto';
import { SpanKind } from '@opentelemetry/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type ToolServer } from '../../src/index.js';
import { type RunningServer, serve } from '../../src/node.js';
import { BullMqWorkQueue, RedisPromiseStore } from '../../src/stores/redis/index.js';
import { type Cli, runCommand } from '../support/cli-process.js';
import { registerTestSdk, remoteParent, type TestSdk, waitForSpans } from '../support/otel-sdk.js';
import { deletePrefix } from '../support/scale-cluster.js';

const url = process.env.REDIS_URL;
if (!url) console.warn('otel promise tests skipped: REDIS_URL is not set');

const RUN = `mcplite-test-otel-${randomBytes(4).toString('hex')}`;
const STORE_PREFIX = `${RUN}:store:`;
const QUEUE_NAME = 'otel-work';

/** A front: the same tool, promises in Redis, a queue it submits to and never works. */
function front(): ToolServer {
  return createServer({
    tools: [
      {
        name: 'analyse',
        description: 'Long-running analysis',
        longRunning: { estimatedMs: 500 },
        handler: () => ({ by: 'front' }),
      },
    ],
    secret: 'shared',
    promiseStore: new RedisPromiseStore({ url: url!, prefix: STORE_PREFIX }),
    workQueue: new BullMqWorkQueue({ url: url!, prefix: RUN, queueName: QUEUE_NAME, work: false }),
  });
}

interface PrintedSpan {
  name: string;
  kind: number;
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  attributes: Record<string, unknown>;
}

describe.skipIf(!url)('a promise in one trace across replicas and a BullMQ worker', () => {
  let sdk: TestSdk;
  let worker: Cli;
  const servers: ToolServer[] = [];
  const running: RunningServer[] = [];

  beforeAll(async () => {
    sdk = registerTestSdk();
    worker = runCommand(process.execPath, ['--import', 'tsx', 'test/support/otel-queue-worker.ts'], {
      REDIS_URL: url!,
      STORE_PREFIX,
      QUEUE_PREFIX: RUN,
      QUEUE_NAME,
    });
    const deadline = Date.now() + 20_000;
    while (!worker.stdout().includes('ready')) {
      if (Date.now() > deadline) throw new Error(`worker not ready: ${worker.stderr()}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    for (let i = 0; i < 2; i++) {
      const server = front();
      servers.push(server);
      running.push(await serve(server, { port: 0 }));
    }
  }, 120_000);

  afterAll(async () => {
    worker?.child.kill('SIGTERM');
    for (const r of running) await r.close(0);
    for (const s of servers) await s.close();
    await sdk?.shutdown();
    if (url) await deletePrefix(url, RUN);
  });

  const rpc = (r: RunningServer, name: string, args: Record<string, unknown>, traceparent: string) =>
    fetch(`${r.url}/mcp-lite/v1/rpc`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name, arguments: args, _meta: { traceparent } },
      }),
    }).then((res) => res.json() as Promise<any>);

  it('runs the work on the worker in the call trace; the redeem on the other front links to it', async () => {
    const parent = remoteParent();
    const made = await rpc(running[0]!, 'analyse', {}, parent.traceparent);
    expect(made.result?._meta?.response_type, JSON.stringify(made)).toBe('promise');
    const token = made.result._meta.promise_token as string;

    // The redeem comes later, on the other front, in the same trace (as the model client's auto-redeem).
    const redeemed = await rpc(
      running[1]!,
      'redeem',
      { promise: token, wait_ms: 10_000 },
      parent.traceparent,
    );
    expect(redeemed.result?.content).toEqual({ by: 'worker' });

    const [call] = (await waitForSpans(sdk, 'tools/call analyse')).filter(
      (s) => s.spanContext().traceId === parent.traceId,
    );
    expect(call?.kind).toBe(SpanKind.SERVER);
    expect(call?.parentSpanContext?.spanId).toBe(parent.spanId);
    expect(call?.attributes['mcplite.outcome']).toBe('promise');

    const printed = (): PrintedSpan[] =>
      worker
        .stdout()
        .split('\n')
        .filter((l) => l.startsWith('span '))
        .map((l) => JSON.parse(l.slice(5)) as PrintedSpan);
    await expect
      .poll(() => printed().some((s) => s.name === 'crunch numbers'), { timeout: 10_000 })
      .toBe(true);
    const work = printed().find((s) => s.name === 'execute_tool analyse');
    expect(work).toMatchObject({
      traceId: parent.traceId,
      parentSpanId: call!.spanContext().spanId,
      attributes: { 'gen_ai.tool.name': 'analyse', 'mcplite.outcome': 'answer' },
    });
    expect(printed().find((s) => s.name === 'crunch numbers')).toMatchObject({
      traceId: parent.traceId,
      parentSpanId: work!.spanId,
    });

    const [redeem] = (await waitForSpans(sdk, 'tools/call redeem')).filter(
      (s) => s.spanContext().traceId === parent.traceId,
    );
    expect(redeem?.links.map((l) => [l.context.traceId, l.context.spanId])).toEqual([
      [parent.traceId, work!.spanId],
    ]);
  }, 120_000);
});
