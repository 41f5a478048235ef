import type { Middleware } from '../operation.js';
import type { TargetOf } from '../operation-target.js';
import { metricsActive } from '../telemetry/durations.js';
import { activeTracing, otelNow, otelRegistered } from '../telemetry/otel-api.js';
import { tracing } from '../telemetry/server-tracing.js';
import type { TelemetryOptions } from '../telemetry/telemetry-options.js';

/**
 * The tracing stage a server installs first in its chain, or undefined when it should not: `enabled: false`, no
 * `@opentelemetry/api`, or (unless `enabled: true`) no SDK registered yet, so that a server without one builds no
 * operation for it and pays nothing.
 */
export function tracingStage(
  options: TelemetryOptions | undefined,
  targetOf: TargetOf,
): Middleware | undefined {
  if (options?.enabled === false) return undefined;
  // Nothing registered with the API: no SDK to trace or time for, so the API is not even loaded.
  if (options?.enabled !== true && !otelRegistered()) return undefined;
  if (otelNow() === undefined) return undefined;
  if (options?.enabled !== true && activeTracing() === undefined && !metricsActive()) return undefined;
  return tracing(options ?? {}, targetOf);
}
