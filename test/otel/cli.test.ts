/**
 * `mcplite serve` exports OpenTelemetry over OTLP/HTTP (issue 27): a real CLI child process, configured only by
 * the standard environment (`OTEL_EXPORTER_OTLP_ENDPOINT`, `OTEL_EXPORTER_OTLP_PROTOCOL=http/json`,
 * `OTEL_SERVICE_NAME`, `OTEL_TRACES_SAMPLER`), sends the span of a tools/call (its parent the caller's
 * `traceparent`) to a small OTLP receiver the test runs, with `--otel` and with the endpoint variable alone.
 */
import { once } from 'node:events';
import { createServer as createHttpServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type ListeningCli, run, start } from '../support/cli-process.js';
import { remoteParent } from '../support/otel-sdk.js';

interface OtlpValue {
  stringValue?: string;
  intValue?: string | number;
}
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: Array<{ key: string; value: OtlpValue }>;
}
interface Received {
  path: string;
  contentType: string | undefined;
  body: any;
}

let receiver: Server;
let endpoint: string;
const received: Received[] = [];
const running: ListeningCli[] = [];

async function readBody(req: IncomingMessage): Promise<string> {
  let text = '';
  req.setEncoding('utf8');
  for await (const chunk of req) text += chunk;
  return text;
}

beforeAll(async () => {
  receiver = createHttpServer(async (req, res) => {
    const text = await readBody(req);
    received.push({
      path: req.url ?? '',
      contentType: req.headers['content-type'],
      body: req.headers['content-type']?.includes('json') ? JSON.parse(text) : text,
    });
    res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  });
  receiver.listen(0, '127.0.0.1');
  await once(receiver, 'listening');
  endpoint = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
});

afterEach(async () => {
  for (const cli of running.splice(0)) {
    cli.child.kill('SIGTERM');
    await cli.exited;
  }
});

afterAll(() => new Promise<void>((done) => receiver.close(() => done())));

/** Every span the receiver got on /v1/traces, with the service name of its resource. */
function exportedSpans(): Array<OtlpSpan & { service: string | undefined }> {
  return received
    .filter((r) => r.path === '/v1/traces')
    .flatMap((r) =>
      (r.body.resourceSpans ?? []).flatMap((rs: any) => {
        const service = rs.resource?.attributes?.find((a: any) => a.key === 'service.name')?.value
          ?.stringValue;
        return rs.scopeSpans.flatMap((ss: any) => ss.spans.map((s: OtlpSpan) => ({ ...s, service })));
      }),
    );
}

function attribute(span: OtlpSpan, key: string): string | number | undefined {
  const value = span.attributes.find((a) => a.key === key)?.value;
  return value?.stringValue ?? value?.intValue;
}

async function callEcho(cli: ListeningCli, traceparent: string): Promise<void> {
  const res = await fetch(`${cli.base}rpc`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', traceparent },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 7,
      method: 'tools/call',
      params: { name: 'echo', arguments: { message: 'traced' } },
    }),
  });
  expect(res.status).toBe(200);
}

const OTEL_ENV = () => ({
  OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
  OTEL_SERVICE_NAME: 'otel-cli-test',
  OTEL_TRACES_SAMPLER: 'parentbased_always_on',
  OTEL_BSP_SCHEDULE_DELAY: '100',
  OTEL_METRIC_EXPORT_INTERVAL: '500',
});

describe('mcplite serve with OpenTelemetry', () => {
  it('--otel: exports the tools/call span as OTLP http/json, in the caller trace', async () => {
    const cli = await start(['--demo', '--otel'], {
      ...OTEL_ENV(),
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${endpoint}/v1/traces`,
      OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: `${endpoint}/v1/metrics`,
    });
    running.push(cli);
    const parent = remoteParent();
    await callEcho(cli, parent.traceparent);
    await expect
      .poll(() => exportedSpans().find((s) => s.traceId === parent.traceId), { timeout: 10_000 })
      .toBeDefined();
    const span = exportedSpans().find((s) => s.traceId === parent.traceId)!;
    expect(span).toMatchObject({ name: 'tools/call echo', kind: 2, parentSpanId: parent.spanId });
    expect(span.service).toBe('otel-cli-test');
    expect(attribute(span, 'gen_ai.tool.name')).toBe('echo');
    expect(attribute(span, 'jsonrpc.request.id')).toBe('7');
    expect(received.find((r) => r.path === '/v1/traces')?.contentType).toMatch(/^application\/json/);
  }, 120_000);

  it('mcplite call makes the CLIENT span; the server span is its child, in one exported trace', async () => {
    const cli = await start(['--demo'], { ...OTEL_ENV(), OTEL_EXPORTER_OTLP_ENDPOINT: endpoint });
    running.push(cli);
    const caller = run(['call', cli.base, 'echo', 'message=from the cli'], {
      ...OTEL_ENV(),
      OTEL_SERVICE_NAME: 'otel-cli-caller',
      OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
    });
    expect(await caller.exited, caller.stderr()).toBe(0);
    expect(caller.stdout()).toContain('from the cli');
    // The caller flushed before it exited.
    const clientSpan = exportedSpans().find(
      (s) => s.service === 'otel-cli-caller' && s.name === 'tools/call echo',
    );
    expect(clientSpan?.kind).toBe(3);
    expect(clientSpan?.parentSpanId ?? '').toBe('');
    await expect
      .poll(() => exportedSpans().find((s) => s.traceId === clientSpan!.traceId && s.kind === 2), {
        timeout: 10_000,
      })
      .toMatchObject({ name: 'tools/call echo', parentSpanId: clientSpan!.spanId, service: 'otel-cli-test' });
  }, 120_000);

  it('OTEL_EXPORTER_OTLP_ENDPOINT alone turns it on; the metric reaches /v1/metrics', async () => {
    const cli = await start(['--demo'], { ...OTEL_ENV(), OTEL_EXPORTER_OTLP_ENDPOINT: endpoint });
    running.push(cli);
    const parent = remoteParent();
    await callEcho(cli, parent.traceparent);
    await expect
      .poll(() => exportedSpans().some((s) => s.traceId === parent.traceId), { timeout: 10_000 })
      .toBe(true);
    await expect
      .poll(
        () =>
          received.some(
            (r) =>
              r.path === '/v1/metrics' && JSON.stringify(r.body).includes('"mcp.server.operation.duration"'),
          ),
        { timeout: 10_000 },
      )
      .toBe(true);
  }, 120_000);
});
