/**
 * OpenTelemetry copies nothing of unbounded size from a request, and makes no span name or metric series of a
 * name the caller made up: with the real SDK (spans and metrics in memory) and a real server, a call with a 1 MB
 * JSON-RPC id and 1 MB of recorded arguments yields attributes of at most `MAX_ATTRIBUTE_LENGTH`, and calls to
 * many unknown tools (refused as unknown, or rate-limited before the tool is looked up) yield no span name, no
 * `mcp.server.operation.duration` attribute and no Prometheus `tool` label that names them.
 */
import type { ReadableSpan } from '@opentelemetry/sdk-trace';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_ATTRIBUTE_LENGTH } from '../../src/core/telemetry/bounded-attribute.js';
import { createServer, defineTool } from '../../src/index.js';
import { createMetrics } from '../../src/metrics.js';
import { type RunningServer, serve } from '../../src/node.js';
import { postJson } from '../support/http-harness.js';
import { registerTestSdk, type TestSdk, waitForSpans } from '../support/otel-sdk.js';

const echo = defineTool<{ message: string }>({
  name: 'echo',
  description: 'Echoes',
  inputSchema: { type: 'object', properties: { message: { type: 'string' } } },
  handler: ({ message }) => ({ message }),
});

/** A name no server here has: the marker lets a test find it anywhere it leaked. */
const made = (i: number) => `made-up-${i}-${Math.random().toString(36).slice(2, 8)}`;

let sdk: TestSdk;
let plain: RunningServer;
let limited: RunningServer;

async function start(rateLimit?: { requestsPerSecond: number; burst: number }): Promise<RunningServer> {
  const metrics = createMetrics({ defaultMetrics: false });
  const server = createServer({
    tools: [echo],
    telemetry: { recordArguments: true, recordResults: true },
    onCallEnd: metrics.observer,
    ...(rateLimit ? { rateLimit } : {}),
  });
  return serve(server, { port: 0, metrics: { metrics } });
}

beforeAll(async () => {
  sdk = registerTestSdk();
  plain = await start();
  // One call, then every call is rate-limited: refused before the tool is looked up.
  limited = await start({ requestsPerSecond: 0.0001, burst: 1 });
});

afterAll(async () => {
  await Promise.all([plain?.close(1000), limited?.close(1000)]);
  await sdk?.shutdown();
});

const call = (running: RunningServer, id: unknown, name: string, args: unknown) =>
  postJson(`${running.url}/mcp-lite/v1/rpc`, {
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: { name, arguments: args },
  });

/** Every string value of the span's attributes, and its status message. */
function strings(span: ReadableSpan): string[] {
  const values = Object.values(span.attributes).filter((v): v is string => typeof v === 'string');
  return span.status.message === undefined ? values : [...values, span.status.message];
}

async function durationAttributes(): Promise<Array<Record<string, unknown>>> {
  const points: Array<Record<string, unknown>> = [];
  for (const resource of await sdk.collect())
    for (const scope of resource.scopeMetrics)
      for (const metric of scope.metrics)
        if (metric.descriptor.name === 'mcp.server.operation.duration')
          for (const point of metric.dataPoints) points.push(point.attributes);
  return points;
}

describe('OpenTelemetry bounds', () => {
  it('bounds every attribute a request fills: a 1 MB JSON-RPC id and 1 MB of arguments', async () => {
    const id = `huge-${'i'.repeat(1_000_000)}`;
    const message = 'm'.repeat(1_000_000);
    const res = await call(plain, id, 'echo', { message });
    expect(res.status).toBe(200);
    const [span] = (await waitForSpans(sdk, 'tools/call echo', 1)).filter((s) =>
      String(s.attributes['jsonrpc.request.id']).startsWith('huge-'),
    );
    expect(span).toBeDefined();
    expect(String(span!.attributes['jsonrpc.request.id']).length).toBeLessThanOrEqual(MAX_ATTRIBUTE_LENGTH);
    expect(String(span!.attributes['gen_ai.tool.call.arguments'])).toMatch(/^\{"message":"m+…$/);
    for (const value of strings(span!)) expect(value.length).toBeLessThanOrEqual(MAX_ATTRIBUTE_LENGTH);
  });

  it.each([
    ['refused as unknown', () => plain, 'error:tool_not_found'],
    ['rate-limited before the lookup', () => limited, 'error:rate_limited'],
  ])('names no span and no metric series after unknown tools (%s)', async (_why, server, outcome) => {
    const running = server();
    const names = Array.from({ length: 60 }, (_, i) => made(i));
    for (const name of names) expect((await call(running, 1, name, {})).status).toBeGreaterThanOrEqual(200);
    const spanNames = sdk.spans.getFinishedSpans().map((s) => s.name);
    expect(spanNames.filter((n) => n.includes('made-up-'))).toEqual([]);
    // Each call is still one span, named by the method alone.
    const spans = await waitForSpans(sdk, 'tools/call', names.length);
    expect(spans.length).toBeGreaterThanOrEqual(names.length);
    const toolNames = new Set((await durationAttributes()).map((a) => a['gen_ai.tool.name']));
    expect([...toolNames].filter((n) => String(n).includes('made-up-'))).toEqual([]);
    const prom = await (await fetch(`${running.url}/metrics`)).text();
    expect(prom).toContain(`mcplite_tool_calls_total{tool="_unknown",binding="http",outcome="${outcome}"}`);
    expect(prom).not.toContain('made-up-');
  });
});
