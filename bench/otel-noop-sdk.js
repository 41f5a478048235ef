// Preloaded (`node --import`) into the tracing-on contender of bench/sections/otel.js: the real OpenTelemetry
// SDK registered before mcplite starts, as `mcplite serve --otel` does, but exporting nowhere, so that the section
// measures what tracing costs the server (spans made, sampled, ended and batched; the duration histogram
// recorded) and not an exporter's network traffic. BENCH_OTEL_SAMPLE_RATIO samples that fraction of the traces
// (parent-based, the ratio at the root) instead of all of them; BENCH_OTEL_HTTP_INSTRUMENTATION=1 also registers
// the SDK's own @opentelemetry/instrumentation-http, which the bare node:http baseline is traced with so that the
// section can compare mcplite's tracing with the SDK's instrumentation of a server that does nothing else.

import { createRequire, syncBuiltinESMExports } from 'node:module';
import { context, metrics, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { CompositePropagator, W3CBaggagePropagator, W3CTraceContextPropagator } from '@opentelemetry/core';
import {
  AggregationTemporality,
  MeterProvider,
  PeriodicExportingMetricReader,
} from '@opentelemetry/sdk-metrics';
import {
  BatchSpanProcessor,
  ParentBasedSampler,
  TraceIdRatioBasedSampler,
  TracerProvider,
} from '@opentelemetry/sdk-trace';

const noopSpans = { export: (_spans, done) => done({ code: 0 }), shutdown: () => Promise.resolve() };
const noopMetrics = {
  export: (_metrics, done) => done({ code: 0 }),
  forceFlush: () => Promise.resolve(),
  shutdown: () => Promise.resolve(),
  selectAggregationTemporality: () => AggregationTemporality.CUMULATIVE,
};

context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
propagation.setGlobalPropagator(
  new CompositePropagator({ propagators: [new W3CTraceContextPropagator(), new W3CBaggagePropagator()] }),
);
const ratio = process.env.BENCH_OTEL_SAMPLE_RATIO;
trace.setGlobalTracerProvider(
  new TracerProvider({
    spanProcessors: [new BatchSpanProcessor({ exporter: noopSpans })],
    ...(ratio === undefined
      ? {}
      : { sampler: new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(Number(ratio)) }) }),
  }),
);
metrics.setGlobalMeterProvider(
  new MeterProvider({
    readers: [new PeriodicExportingMetricReader({ exporter: noopMetrics, exportIntervalMillis: 10_000 })],
  }),
);

if (process.env.BENCH_OTEL_HTTP_INSTRUMENTATION === '1') {
  const { registerInstrumentations } = await import('@opentelemetry/instrumentation');
  const { HttpInstrumentation } = await import('@opentelemetry/instrumentation-http');
  registerInstrumentations({ instrumentations: [new HttpInstrumentation()] });
  // The instrumentation patches node:http when it is required; the baseline imports it as ESM, whose named
  // exports follow the patched module only once synced.
  createRequire(import.meta.url)('node:http');
  syncBuiltinESMExports();
}
