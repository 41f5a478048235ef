/**
 * One trace from the model client through the gateway to the upstream server (issue 27), with the real SDK: the
 * mcplite client's CLIENT span, the gateway's SERVER span (its parent taken from what the client sent: `_meta` and
 * headers on MCP-lite HTTP, metadata on gRPC, `_meta` on MCP, headers on Webtools), the gateway's own CLIENT span
 * to its upstream, the upstream's SERVER span and the tool's span, all in one trace, each the child of the last.
 */
import { SpanKind, trace } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Client, connect } from '../../src/client/index.js';
import { gatewayTools } from '../../src/gateway/gateway-tools.js';
import { createServer, defineTool } from '../../src/index.js';
import { type RunningServer, serve } from '../../src/node.js';
import { registerTestSdk, type TestSdk } from '../support/otel-sdk.js';

const greet = defineTool<{ name: string }>({
  name: 'greet',
  description: 'Greets, inside a span of its own',
  inputSchema: { type: 'object', required: ['name'], properties: { name: { type: 'string' } } },
  handler: ({ name }) =>
    trace.getTracer('greet-tool').startActiveSpan('compose greeting', (span) => {
      span.end();
      return { greeting: `hello ${name}` };
    }),
});

let sdk: TestSdk;
let upstream: RunningServer;
let gateway: RunningServer;
let toUpstream: Client;
const clients: Client[] = [];

beforeAll(async () => {
  sdk = registerTestSdk();
  upstream = await serve(createServer({ name: 'upstream', tools: [greet] }), { port: 0 });
  toUpstream = await connect(`${upstream.url}/mcp`);
  gateway = await serve(createServer({ name: 'gateway', tools: await gatewayTools(toUpstream) }), {
    port: 0,
    grpcPort: 0,
  });
});

afterAll(async () => {
  for (const c of clients) await c.close();
  await toUpstream?.close();
  await gateway?.close(500);
  await upstream?.close(500);
  await sdk?.shutdown();
});

/** The spans of one trace, waiting until the tool's own span has ended (the last to end is the client's). */
async function traceOf(root: ReadableSpan | undefined): Promise<ReadableSpan[]> {
  expect(root).toBeDefined();
  const traceId = root!.spanContext().traceId;
  return sdk.spans.getFinishedSpans().filter((s) => s.spanContext().traceId === traceId);
}

/** The one span of `spans` named `name` of `kind` whose parent is `parent`. */
function childOf(spans: ReadableSpan[], parent: ReadableSpan, name: string, kind: SpanKind): ReadableSpan {
  const found = spans.filter(
    (s) => s.name === name && s.kind === kind && s.parentSpanContext?.spanId === parent.spanContext().spanId,
  );
  expect(found.map((s) => s.name)).toEqual([name]);
  return found[0]!;
}

describe('model client -> gateway -> upstream is one trace', () => {
  for (const target of ['lite', 'grpc', 'mcp', 'webtools'] as const) {
    it(`through the gateway's ${target} binding`, async () => {
      const url =
        target === 'lite'
          ? `${gateway.url}/mcp-lite/v1/`
          : target === 'grpc'
            ? `grpc://127.0.0.1:${gateway.grpc!.port}`
            : target === 'mcp'
              ? `${gateway.url}/mcp`
              : `${gateway.url}/webtools/gateway/`;
      const client = await connect(url);
      clients.push(client);
      sdk.spans.reset();
      const outcome = await client.call('greet', { name: target });
      expect(outcome).toMatchObject({ type: 'answer' });

      const roots = sdk.spans
        .getFinishedSpans()
        .filter((s) => s.name === 'tools/call greet' && s.kind === SpanKind.CLIENT && !s.parentSpanContext);
      expect(roots).toHaveLength(1);
      const modelClient = roots[0]!;
      expect(modelClient.attributes).toMatchObject({
        'mcp.method.name': 'tools/call',
        'gen_ai.tool.name': 'greet',
        'mcplite.outcome': 'answer',
      });
      const spans = await traceOf(modelClient);
      const atGateway = childOf(spans, modelClient, 'tools/call greet', SpanKind.SERVER);
      const gatewayClient = childOf(spans, atGateway, 'tools/call greet', SpanKind.CLIENT);
      const atUpstream = childOf(spans, gatewayClient, 'tools/call greet', SpanKind.SERVER);
      expect(atUpstream.attributes['mcplite.binding']).toBe('mcp');
      childOf(spans, atUpstream, 'compose greeting', SpanKind.INTERNAL);
    });
  }

  it('records mcp.client.operation.duration', async () => {
    const [resource] = await sdk.collect();
    const metric = resource!.scopeMetrics
      .flatMap((s) => s.metrics)
      .find((m) => m.descriptor.name === 'mcp.client.operation.duration');
    expect(metric?.descriptor.unit).toBe('s');
    const points = metric!.dataPoints as Array<{ attributes: Record<string, unknown>; value: any }>;
    const grpc = points.find((p) => p.attributes['mcplite.binding'] === 'grpc');
    expect(grpc?.attributes['gen_ai.tool.name']).toBe('greet');
    expect(grpc?.value.count).toBe(1);
  });
});
