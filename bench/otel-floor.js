// The OpenTelemetry SDK's own cost per traced operation, apart from mcplite (bench/sections/otel.js prints it):
// run with the same preload as the tracing-on server (bench/otel-noop-sdk.js), it makes SERVER spans with the
// attributes mcplite's span of an MCP-lite HTTP tools/call carries, ends them into the batch processor, and
// records the duration histogram with the metric's attributes, yielding to the event loop as a server does so
// that batches are exported. Prints one JSON line: CPU microseconds per operation for each part. Whatever tracing
// costs a server on top of this is mcplite's; this much no instrumentation built on the SDK can avoid.
import { metrics, ROOT_CONTEXT, SpanKind, trace } from '@opentelemetry/api';

const OPERATIONS = 200_000;
const WARMUP = 20_000;

const metric = {
  'mcp.method.name': 'tools/call',
  'network.transport': 'tcp',
  'mcplite.binding': 'mcp-lite-http',
  'gen_ai.operation.name': 'execute_tool',
  'gen_ai.tool.name': 'echo',
};
const span = {
  ...metric,
  'mcplite.transport': 'http',
  'network.protocol.name': 'http',
  'jsonrpc.request.id': '1',
  'client.address': '127.0.0.1',
};

const tracer = trace.getTracer('mcplite');
const histogram = metrics
  .getMeterProvider()
  .getMeter('mcplite')
  .createHistogram('mcp.server.operation.duration', { unit: 's' });

const parts = {
  span: () => {
    const s = tracer.startSpan('tools/call echo', { kind: SpanKind.SERVER, attributes: span }, ROOT_CONTEXT);
    s.setAttribute('mcplite.outcome', 'answer');
    s.end();
  },
  histogram: () => histogram.record(0.001, metric),
};

async function cpuMicrosPerOperation(run) {
  const pass = async (count) => {
    for (let i = 0; i < count; i++) {
      run();
      if (i % 100 === 0) await new Promise((resolve) => setImmediate(resolve));
    }
  };
  await pass(WARMUP);
  const before = process.cpuUsage();
  await pass(OPERATIONS);
  const used = process.cpuUsage(before);
  return (used.user + used.system) / OPERATIONS;
}

const empty = await cpuMicrosPerOperation(() => {});
const result = {};
for (const [name, run] of Object.entries(parts)) {
  result[name] = Math.max(0, (await cpuMicrosPerOperation(run)) - empty);
}
console.log(JSON.stringify(result));
