/**
 * The real OpenTelemetry SDK for tests: a tracer provider exporting to memory, a meter provider read on demand,
 * W3C trace context and baggage propagation and the AsyncLocalStorage context manager, registered globally as
 * an application would before it makes its server (`registerTestSdk`).
 */
import { context, metrics, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { CompositePropagator, W3CBaggagePropagator, W3CTraceContextPropagator } from '@opentelemetry/core';
import {
  AggregationTemporality,
  InMemoryMetricExporter,
  MeterProvider,
  PeriodicExportingMetricReader,
  type ResourceMetrics,
} from '@opentelemetry/sdk-metrics';
import {
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
  TracerProvider,
} from '@opentelemetry/sdk-trace';

/** The registered SDK: the spans it finished and the metrics it read. */
export interface TestSdk {
  spans: InMemorySpanExporter;
  /** Collects the metrics recorded so far. */
  collect(): Promise<ResourceMetrics[]>;
  shutdown(): Promise<void>;
}

/** Registers the SDK globally (call before making the server). */
export function registerTestSdk(): TestSdk {
  const spans = new InMemorySpanExporter();
  const tracerProvider = new TracerProvider({
    spanProcessors: [new SimpleSpanProcessor({ exporter: spans })],
  });
  const exporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
  const reader = new PeriodicExportingMetricReader({ exporter, exportIntervalMillis: 3_600_000 });
  const meterProvider = new MeterProvider({ readers: [reader] });
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(
    new CompositePropagator({ propagators: [new W3CTraceContextPropagator(), new W3CBaggagePropagator()] }),
  );
  trace.setGlobalTracerProvider(tracerProvider);
  metrics.setGlobalMeterProvider(meterProvider);
  return {
    spans,
    async collect() {
      const result = await reader.collect();
      return [result.resourceMetrics];
    },
    async shutdown() {
      await tracerProvider.shutdown();
      await meterProvider.shutdown();
      trace.disable();
      metrics.disable();
      propagation.disable();
      context.disable();
    },
  };
}

/** The finished spans named `name`. */
export function spansNamed(sdk: TestSdk, name: string): ReadableSpan[] {
  return sdk.spans.getFinishedSpans().filter((s) => s.name === name);
}

/** Waits (up to 5 s) until `count` spans named `name` have finished; returns them. */
export async function waitForSpans(sdk: TestSdk, name: string, count = 1): Promise<ReadableSpan[]> {
  const deadline = Date.now() + 5000;
  for (;;) {
    const found = spansNamed(sdk, name);
    if (found.length >= count || Date.now() > deadline) return found;
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** A fresh W3C `traceparent` of a sampled remote parent, and its trace and span ids. */
export function remoteParent(): { traceparent: string; traceId: string; spanId: string } {
  const hex = (bytes: number) =>
    Array.from(crypto.getRandomValues(new Uint8Array(bytes)), (b) => b.toString(16).padStart(2, '0')).join(
      '',
    );
  const traceId = hex(16);
  const spanId = hex(8);
  return { traceparent: `00-${traceId}-${spanId}-01`, traceId, spanId };
}
