// Preloaded (`node --import`) into the tracing-on contender of bench/sections/otel.js: the real OpenTelemetry
// SDK registered before mcplite starts, as `mcplite serve --otel` does, but exporting nowhere, so that the section
// measures what tracing costs the server (spans made, sampled, ended and batched; the duration histogram
// recorded) and not an exporter's network traffic.
import { context, metrics, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { CompositePropagator, W3CBaggagePropagator, W3CTraceContextPropagator } from '@opentelemetry/core';
import {
  AggregationTemporality,
  MeterProvider,
  PeriodicExportingMetricReader,
} from '@opentelemetry/sdk-metrics';
import { BatchSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';

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
trace.setGlobalTracerProvider(
  new TracerProvider({ spanProcessors: [new BatchSpanProcessor({ exporter: noopSpans })] }),
);
metrics.setGlobalMeterProvider(
  new MeterProvider({
    readers: [new PeriodicExportingMetricReader({ exporter: noopMetrics, exportIntervalMillis: 10_000 })],
  }),
);
