import { loadOtel } from '../core/telemetry/otel-api.js';
import { loadOptional } from '../optional-peers.js';

/** The OpenTelemetry Node SDK as `serve` and `worker` run it: stopped (and flushed) on shutdown. */
export interface RunningOtel {
  /** Exports what is buffered and stops the SDK. */
  shutdown(): Promise<void>;
}

/**
 * Whether to turn on the OpenTelemetry Node SDK: `--otel`, or an OTLP endpoint in the environment
 * (`OTEL_EXPORTER_OTLP_ENDPOINT` or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`), as every OpenTelemetry distribution
 * reads it. `OTEL_SDK_DISABLED=true` keeps it off.
 */
export function otelWanted(flag: boolean | undefined, env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return false;
  return flag === true || Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT);
}

/**
 * Starts the OpenTelemetry Node SDK configured from the standard environment: the OTLP exporter
 * (`OTEL_EXPORTER_OTLP_ENDPOINT`, `OTEL_EXPORTER_OTLP_PROTOCOL`: `http/protobuf` by default, `http/json`,
 * `grpc`; `OTEL_EXPORTER_OTLP_HEADERS`), `OTEL_SERVICE_NAME` (default `mcplite`), `OTEL_TRACES_SAMPLER`, the W3C
 * propagators and the AsyncLocalStorage context manager. Started before the server is made, so that the server
 * installs its tracing. Throws a one-line error naming the packages when the SDK is not installed.
 */
export async function startOtel(env: NodeJS.ProcessEnv = process.env): Promise<RunningOtel> {
  const { NodeSDK } = await loadOptional('otel', () => import('@opentelemetry/sdk-node'));
  // The library's own copy of the API must be loaded too (an optional peer as well).
  await loadOptional('otel', () => import('@opentelemetry/api'));
  await loadOtel();
  // NodeSDK reads OTEL_SERVICE_NAME itself; without one, a trace says mcplite rather than unknown_service:node.
  const sdk = new NodeSDK(env.OTEL_SERVICE_NAME ? {} : { serviceName: 'mcplite' });
  sdk.start();
  return {
    shutdown: () => sdk.shutdown().catch(() => {}),
  };
}

/** Makes `running.close` (what SIGTERM runs) also flush and stop the SDK, so the last spans are exported. */
export function flushOnClose(running: { close(graceMs?: number): Promise<void> }, otel: RunningOtel): void {
  const close = running.close.bind(running);
  running.close = (graceMs?: number) => close(graceMs).finally(() => otel.shutdown());
}
