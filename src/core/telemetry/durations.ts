import type { Attributes, Histogram, MeterProvider } from '@opentelemetry/api';
import { CLIENT_DURATION, DURATION_BUCKETS, SCOPE, SERVER_DURATION } from './conventions.js';
import { otelApi } from './otel-api.js';

interface Instruments {
  provider: MeterProvider;
  histogram: Histogram | undefined;
}

const cached: Record<string, Instruments | undefined> = {};

/**
 * The duration histogram `name` of the meter provider registered now, or undefined without one (the API's no-op
 * provider): made once per provider, so that a provider registered after the first call is still used.
 */
function histogramOf(name: string, description: string): Histogram | undefined {
  const api = otelApi();
  if (api === undefined) return undefined;
  const provider = api.metrics.getMeterProvider();
  let entry = cached[name];
  if (entry?.provider !== provider) {
    const meter = provider.getMeter(SCOPE);
    const histogram =
      meter === api.createNoopMeter()
        ? undefined
        : meter.createHistogram(name, {
            unit: 's',
            description,
            advice: { explicitBucketBoundaries: DURATION_BUCKETS },
          });
    entry = { provider, histogram };
    cached[name] = entry;
  }
  return entry.histogram;
}

/** Records one operation a server answered (`mcp.server.operation.duration`). */
export function recordServerDuration(seconds: number, attributes: Attributes): void {
  histogramOf(SERVER_DURATION, 'Duration of an MCP request as the server sees it')?.record(
    seconds,
    attributes,
  );
}

/** Records one operation a client made (`mcp.client.operation.duration`). */
export function recordClientDuration(seconds: number, attributes: Attributes): void {
  histogramOf(CLIENT_DURATION, 'Duration of an MCP request as the client sees it')?.record(
    seconds,
    attributes,
  );
}

/** Whether a meter provider is registered (a server records durations even when no tracer is). */
export function metricsActive(): boolean {
  return histogramOf(SERVER_DURATION, 'Duration of an MCP request as the server sees it') !== undefined;
}
