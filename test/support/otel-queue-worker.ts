/**
 * A BullMQ worker replica for `test/otel/promises.test.ts`, as its own process: the real OpenTelemetry SDK whose
 * exporter prints each finished span as one `span {json}` line on stdout (so that the test sees the spans of
 * another process), promises in the Redis store under STORE_PREFIX, the queue QUEUE_NAME under QUEUE_PREFIX that
 * it works, and the long-running tool `analyse` (it makes a span of its own). Prints `ready` once it works.
 */
import { context, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import {
  type ReadableSpan,
  SimpleSpanProcessor,
  type SpanExporter,
  TracerProvider,
} from '@opentelemetry/sdk-trace';
import { createServer } from '../../src/index.js';
import { BullMqWorkQueue, RedisPromiseStore } from '../../src/stores/redis/index.js';

const env = (name: string): string => {
  const value = process.env[name];
  if (!value) throw new Error(`otel-queue-worker: ${name} is not set`);
  return value;
};

const printing: SpanExporter = {
  export(spans: ReadableSpan[], done) {
    for (const s of spans) {
      const line = {
        name: s.name,
        kind: s.kind,
        traceId: s.spanContext().traceId,
        spanId: s.spanContext().spanId,
        parentSpanId: s.parentSpanContext?.spanId,
        attributes: s.attributes,
      };
      process.stdout.write(`span ${JSON.stringify(line)}\n`);
    }
    done({ code: 0 });
  },
  shutdown: () => Promise.resolve(),
};
context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
propagation.setGlobalPropagator(new W3CTraceContextPropagator());
trace.setGlobalTracerProvider(
  new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter: printing })] }),
);

const url = env('REDIS_URL');
createServer({
  tools: [
    {
      name: 'analyse',
      description: 'Long-running analysis',
      longRunning: { estimatedMs: 500 },
      handler: () =>
        trace.getTracer('analyse-tool').startActiveSpan('crunch numbers', async (span) => {
          await new Promise((r) => setTimeout(r, 50));
          span.end();
          return { by: 'worker' };
        }),
    },
  ],
  secret: 'shared',
  promiseStore: new RedisPromiseStore({ url, prefix: env('STORE_PREFIX') }),
  workQueue: new BullMqWorkQueue({ url, prefix: env('QUEUE_PREFIX'), queueName: env('QUEUE_NAME') }),
});
process.stdout.write('ready\n');
