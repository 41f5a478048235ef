/**
 * OpenTelemetry tracing on every binding (issue 27), with the real SDK exporting to memory: a tools/call over
 * MCP-lite HTTP, MCP Streamable HTTP and legacy HTTP+SSE (the official SDK client), stdio, WebSocket (MCP and
 * MCP-lite), gRPC and Webtools is one SERVER span `tools/call <tool>` with the MCP conventions' attributes, a child of the trace
 * named by `_meta.traceparent`, else the `traceparent` header or gRPC metadata; the handler's own spans are its
 * children; a failure is `error.type=tool_error`, a protocol error its code; `mcp.server.operation.duration` is
 * recorded with the conventions' buckets.
 */
import { createHash } from 'node:crypto';
import { PassThrough } from 'node:stream';
import { Metadata } from '@grpc/grpc-js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, defineTool, failure } from '../../src/index.js';
import { type RunningServer, serve, serveMcpStdio } from '../../src/node.js';
import { makeClient, toolRequest, unary } from '../support/grpc-client.js';
import { postJson } from '../support/http-harness.js';
import { registerTestSdk, remoteParent, type TestSdk, waitForSpans } from '../support/otel-sdk.js';
import { connectWs } from '../support/ws-client.js';

const greet = defineTool<{ name: string }>({
  name: 'greet',
  description: 'Greets, inside a span of its own',
  inputSchema: { type: 'object', required: ['name'], properties: { name: { type: 'string' } } },
  handler: async ({ name }) =>
    trace.getTracer('greet-tool').startActiveSpan('compose greeting', async (span) => {
      await new Promise((r) => setTimeout(r, 5));
      span.end();
      return { greeting: `hello ${name}` };
    }),
});

const refuse = defineTool<Record<string, never>>({
  name: 'refuse',
  description: 'Always fails',
  inputSchema: { type: 'object' },
  handler: () => failure('no, thanks', { code: 'refused' }),
});

let sdk: TestSdk;
let running: RunningServer;
let stdio: { input: PassThrough; output: PassThrough; lines: any[] };

beforeAll(async () => {
  sdk = registerTestSdk();
  const server = createServer({ tools: [greet, refuse], telemetry: { recordArguments: true } });
  running = await serve(server, { port: 0, grpcPort: 0 });
  const input = new PassThrough();
  const output = new PassThrough();
  const lines: any[] = [];
  let buffered = '';
  output.setEncoding('utf8').on('data', (chunk: string) => {
    buffered += chunk;
    for (let i = buffered.indexOf('\n'); i >= 0; i = buffered.indexOf('\n')) {
      lines.push(JSON.parse(buffered.slice(0, i)));
      buffered = buffered.slice(i + 1);
    }
  });
  serveMcpStdio(server, { input, output });
  stdio = { input, output, lines };
});

afterAll(async () => {
  stdio?.input.end();
  await running?.close(1000);
  await sdk?.shutdown();
});

/** The one finished `tools/call greet` span of the trace `traceId`. */
async function callSpan(traceId: string, name = 'tools/call greet'): Promise<ReadableSpan> {
  const deadline = Date.now() + 5000;
  for (;;) {
    const found = sdk.spans
      .getFinishedSpans()
      .filter((s) => s.name === name && s.spanContext().traceId === traceId);
    if (found.length === 1) return found[0]!;
    if (found.length > 1 || Date.now() > deadline)
      throw new Error(`${found.length} spans ${name} in trace ${traceId}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Checks the span is the server span of a greet call under `parent`, on `binding`, with its handler's child. */
async function expectGreetSpan(
  parent: { traceId: string; spanId: string },
  binding: string | RegExp,
  attributes: Record<string, unknown>,
): Promise<ReadableSpan> {
  const span = await callSpan(parent.traceId);
  expect(span.kind).toBe(SpanKind.SERVER);
  expect(span.parentSpanContext?.spanId).toBe(parent.spanId);
  expect(span.parentSpanContext?.isRemote).toBe(true);
  expect(span.attributes).toMatchObject({
    'mcp.method.name': 'tools/call',
    'gen_ai.tool.name': 'greet',
    'gen_ai.operation.name': 'execute_tool',
    'mcplite.binding': typeof binding === 'string' ? binding : expect.stringMatching(binding),
    'mcplite.outcome': 'answer',
    'gen_ai.tool.call.arguments': JSON.stringify({ name: 'otel' }),
    ...attributes,
  });
  expect(span.attributes['error.type']).toBeUndefined();
  const [child] = (await waitForSpans(sdk, 'compose greeting', 1)).filter(
    (s) => s.parentSpanContext?.spanId === span.spanContext().spanId,
  );
  expect(child?.spanContext().traceId).toBe(parent.traceId);
  return span;
}

describe('a span per tools/call on every binding', () => {
  it('MCP-lite HTTP: the parent from params._meta.traceparent, baggage kept', async () => {
    const parent = remoteParent();
    const res = await postJson(`${running.url}/mcp-lite/v1/rpc`, {
      jsonrpc: '2.0',
      id: 'r-1',
      method: 'tools/call',
      params: { name: 'greet', arguments: { name: 'otel' }, _meta: { traceparent: parent.traceparent } },
    });
    expect(res.status).toBe(200);
    await expectGreetSpan(parent, LITE_HTTP, {
      'jsonrpc.request.id': 'r-1',
      'network.transport': 'tcp',
      'network.protocol.name': 'http',
      'mcplite.transport': 'http',
    });
  });

  it('MCP-lite HTTP: the parent from the traceparent header when _meta has none', async () => {
    const parent = remoteParent();
    const res = await postJson(
      `${running.url}/mcp-lite/v1/rpc`,
      { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'greet', arguments: { name: 'otel' } } },
      { traceparent: parent.traceparent },
    );
    expect(res.status).toBe(200);
    await expectGreetSpan(parent, LITE_HTTP, { 'jsonrpc.request.id': '2' });
  });

  it('MCP Streamable HTTP with the official SDK client: _meta.traceparent, protocol version and session', async () => {
    const parent = remoteParent();
    const client = new Client({ name: 'otel-test', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(`${running.url}/mcp`));
    await client.connect(transport);
    try {
      const result = await client.callTool({
        name: 'greet',
        arguments: { name: 'otel' },
        _meta: { traceparent: parent.traceparent },
      });
      expect(result.isError).toBeFalsy();
      const span = await expectGreetSpan(parent, 'mcp', {
        'network.transport': 'tcp',
        'network.protocol.name': 'http',
        'mcplite.transport': 'streamable-http',
      });
      expect(transport.protocolVersion).toBeTruthy();
      expect(span.attributes['mcp.protocol.version']).toBe(transport.protocolVersion);
      // A digest of the session id (the id itself lets anyone use the session): the same for every span of it.
      const digest = createHash('sha256').update(transport.sessionId!).digest('hex').slice(0, 24);
      expect(span.attributes['mcp.session.id']).toBe(digest);
      expect(JSON.stringify(span.attributes)).not.toContain(transport.sessionId);
    } finally {
      await client.close();
    }
  });

  it('MCP over the legacy HTTP+SSE transport with the official SDK client: _meta.traceparent', async () => {
    const parent = remoteParent();
    const client = new Client({ name: 'otel-test', version: '1.0.0' });
    await client.connect(new SSEClientTransport(new URL(`${running.url}/sse`)));
    try {
      const result = await client.callTool({
        name: 'greet',
        arguments: { name: 'otel' },
        _meta: { traceparent: parent.traceparent },
      });
      expect(result.isError).toBeFalsy();
    } finally {
      await client.close();
    }
    await expectGreetSpan(parent, 'mcp', {
      'network.transport': 'tcp',
      'network.protocol.name': 'http',
      'mcplite.transport': 'sse',
    });
  });

  it('MCP over stdio: _meta.traceparent, network.transport pipe', async () => {
    const parent = remoteParent();
    const send = (m: unknown) => stdio.input.write(`${JSON.stringify(m)}\n`);
    send({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
    });
    send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    send({
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { name: 'greet', arguments: { name: 'otel' }, _meta: { traceparent: parent.traceparent } },
    });
    const span = await expectGreetSpan(parent, stdioBinding(), {
      'network.transport': 'pipe',
      'mcplite.transport': 'stdio',
      'mcp.protocol.version': '2025-06-18',
    });
    expect(span.attributes['network.protocol.name']).toBeUndefined();
    expect(stdio.lines.find((l) => l.id === 2)?.result?.isError).toBeFalsy();
  });

  it('MCP over WebSocket and MCP-lite over WebSocket: _meta.traceparent', async () => {
    const wsUrl = running.url.replace(/^http/, 'ws');
    const mcpParent = remoteParent();
    const mcp = await connectWs(`${wsUrl}/mcp`, { protocol: 'mcp' });
    try {
      await mcp.request('initialize', {
        protocolVersion: '2025-06-18',
        capabilities: {},
        clientInfo: { name: 't', version: '1' },
      });
      mcp.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
      const reply = await mcp.request('tools/call', {
        name: 'greet',
        arguments: { name: 'otel' },
        _meta: { traceparent: mcpParent.traceparent },
      });
      expect(reply.result.isError).toBeFalsy();
    } finally {
      mcp.ws.close();
    }
    await expectGreetSpan(mcpParent, wsBinding('mcp'), {
      'network.protocol.name': 'websocket',
      'mcplite.transport': 'websocket',
    });
    const liteParent = remoteParent();
    const lite = await connectWs(`${wsUrl}/mcp-lite/v1/ws`);
    try {
      const reply = await lite.request('tools/call', {
        name: 'greet',
        arguments: { name: 'otel' },
        _meta: { traceparent: liteParent.traceparent },
      });
      expect(reply.result._meta.response_type).toBe('answer');
    } finally {
      lite.ws.close();
    }
    await expectGreetSpan(liteParent, wsBinding('lite'), {
      'network.protocol.name': 'websocket',
      'mcplite.transport': 'websocket',
    });
  });

  it('gRPC: the parent from the traceparent metadata entry', async () => {
    const parent = remoteParent();
    const client = makeClient(running.grpc!.address, 'full');
    try {
      const metadata = new Metadata();
      metadata.set('traceparent', parent.traceparent);
      const { error } = await unary(client, 'CallTool', toolRequest('greet', { name: 'otel' }), { metadata });
      expect(error).toBeUndefined();
    } finally {
      client.close();
    }
    await expectGreetSpan(parent, 'grpc', { 'network.protocol.name': 'grpc', 'mcplite.transport': 'grpc' });
  });

  it('Webtools: the parent from the traceparent header', async () => {
    const parent = remoteParent();
    const res = await postJson(
      `${running.url}/webtools/mcplite/`,
      { action: 'greet', request: { name: 'otel' } },
      { traceparent: parent.traceparent },
    );
    expect(res.status).toBe(200);
    await expectGreetSpan(parent, 'webtools', { 'mcplite.transport': 'http' });
  });
});

describe('outcomes and errors', () => {
  it('a failure is error.type tool_error with an ERROR status; a protocol error is its code', async () => {
    const failed = remoteParent();
    await postJson(`${running.url}/mcp-lite/v1/rpc`, {
      jsonrpc: '2.0',
      id: 3,
      method: 'tools/call',
      params: { name: 'refuse', arguments: {}, _meta: { traceparent: failed.traceparent } },
    });
    const failure = await callSpan(failed.traceId, 'tools/call refuse');
    expect(failure.attributes['error.type']).toBe('tool_error');
    expect(failure.attributes['mcplite.outcome']).toBe('failure');
    expect(failure.status.code).toBe(SpanStatusCode.ERROR);

    const invalid = remoteParent();
    await postJson(`${running.url}/mcp-lite/v1/rpc`, {
      jsonrpc: '2.0',
      id: 4,
      method: 'tools/call',
      params: { name: 'greet', arguments: { name: 42 }, _meta: { traceparent: invalid.traceparent } },
    });
    const refused = await callSpan(invalid.traceId);
    expect(refused.attributes['error.type']).toBe('invalid_params');
    expect(refused.status.code).toBe(SpanStatusCode.ERROR);
  });

  it('a listing is a span too, its parent from the traceparent header', async () => {
    const parent = remoteParent();
    const res = await postJson(
      `${running.url}/mcp-lite/v1/rpc`,
      { jsonrpc: '2.0', id: 5, method: 'tools/list' },
      { traceparent: parent.traceparent },
    );
    expect(res.status).toBe(200);
    const listing = await callSpan(parent.traceId, 'tools/list');
    expect(listing.kind).toBe(SpanKind.SERVER);
    expect(listing.parentSpanContext?.spanId).toBe(parent.spanId);
    expect(listing.attributes['mcp.method.name']).toBe('tools/list');
    expect(listing.attributes['gen_ai.tool.name']).toBeUndefined();
  });

  it('records mcp.server.operation.duration with the conventions buckets', async () => {
    const [resource] = await sdk.collect();
    const metric = resource!.scopeMetrics
      .flatMap((s) => s.metrics)
      .find((m) => m.descriptor.name === 'mcp.server.operation.duration');
    expect(metric?.descriptor.unit).toBe('s');
    const points = metric!.dataPoints as Array<{ attributes: Record<string, unknown>; value: any }>;
    const greetOnGrpc = points.find(
      (p) => p.attributes['gen_ai.tool.name'] === 'greet' && p.attributes['mcplite.binding'] === 'grpc',
    );
    expect(greetOnGrpc?.value.count).toBe(1);
    expect(greetOnGrpc?.value.buckets.boundaries).toEqual([
      0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300,
    ]);
    const failed = points.find((p) => p.attributes['error.type'] === 'tool_error');
    expect(failed?.attributes['gen_ai.tool.name']).toBe('refuse');
  });
});

/** MCP-lite HTTP's binding name (`op.caller.binding`: `http`, being renamed `mcp-lite-http` by the pipeline). */
const LITE_HTTP = /^(http|mcp-lite-http)$/;

/** The binding name of MCP over stdio (`op.caller.binding`; its framing is in `mcplite.transport`). */
function stdioBinding(): string {
  return 'mcp';
}

/** The binding names over WebSocket: MCP's is MCP's, MCP-lite's its own (`ws`, or `mcp-lite-ws`). */
function wsBinding(kind: 'mcp' | 'lite'): string | RegExp {
  return kind === 'mcp' ? 'mcp' : /^(ws|mcp-lite-ws)$/;
}
