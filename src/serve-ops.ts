import type { Readiness, ReadinessCheck } from './bindings/common/health.js';
import type { GrpcListening } from './bindings/grpc/listen.js';
import type { NeutralHandler } from './core/http.js';
import type { ToolServer } from './core/server.js';
import type { Metrics } from './metrics.js';
import { loadOptional } from './optional-peers.js';

/**
 * The operations side of `serve`: liveness and readiness (`/healthz`, `/readyz`, the gRPC health service) and
 * Prometheus metrics (`/metrics`). Their handlers go before every binding: cheap, and answered whatever the
 * bindings' bearer auth (the Host guard still applies, as to every route).
 */

/** The operations options of `serve`. */
export interface OpsOptions {
  /**
   * Answer `GET /healthz` (liveness: 200 `{"status":"ok","pid":…}`) and `GET /readyz` (readiness: 200, or 503
   * with the reason when `readiness` fails), before any binding and without bearer auth. Default true.
   */
  health?: boolean;
  /**
   * Whether this process can serve (the CLI pings Redis): resolves when ready, rejects when not. It decides
   * `/readyz` and the gRPC health service's status (SERVING / NOT_SERVING). Default: always ready.
   */
  readiness?: ReadinessCheck;
  /** How often the gRPC health service re-runs `readiness` (it follows `/readyz` in between). Default 5 000 ms. */
  readinessPollMs?: number;
  /**
   * Serve Prometheus metrics at `GET /metrics` (or `path`), before any binding and without bearer auth. Pass the
   * Metrics whose `observer` the server got as `onCallEnd` (`createMetrics`), or tool-call series stay empty;
   * without one, a fresh one is made with the process and queue metrics. Default: off.
   */
  metrics?: boolean | { path?: string; metrics?: Metrics };
}

/**
 * The Node-only handlers the options ask for (Prometheus metrics), which `serve` puts before the bindings; health
 * and readiness are `createHandler`'s, on every runtime.
 */
export async function opsHandlers(
  server: ToolServer,
  options: Pick<OpsOptions, 'metrics'>,
): Promise<NeutralHandler[]> {
  return options.metrics ? [await metricsHandler(server, options.metrics)] : [];
}

/**
 * Makes the gRPC health service follow readiness, for the whole server ('') and for mcplite.MCPLite: a poll every
 * `pollMs` (so that a Watch hears of a change without anyone asking; Check answers from the last result, as cheap
 * as a probe should be), and every `/readyz` check in between. Returns the function that stops following (`serve`
 * calls it on close, before the listener reports NOT_SERVING for good).
 */
export function followReadiness(grpc: GrpcListening, readiness: Readiness, pollMs = 5000): () => void {
  let following = true;
  const unsubscribe = readiness.onChange((state) => {
    if (!following) return;
    const status = state.ready ? 'SERVING' : 'NOT_SERVING';
    grpc.health?.setStatus('', status);
    grpc.health?.setStatus(GRPC_SERVICE_NAME, status);
  });
  const stopPolling = readiness.poll(pollMs);
  return () => {
    following = false;
    stopPolling();
    unsubscribe();
  };
}

/** The metrics handler of `serve({ metrics })`: the given Metrics', or a fresh one's (prom-client on demand). */
async function metricsHandler(
  server: ToolServer,
  option: true | { path?: string; metrics?: Metrics },
): Promise<NeutralHandler> {
  const { path, metrics } = option === true ? {} : option;
  if (metrics) return path === undefined ? metrics.handler : metrics.handlerAt(path);
  const { createMetrics } = await loadOptional('metrics', () => import('./metrics.js'));
  return createMetrics({ ...(path !== undefined ? { path } : {}), queueStats: () => server.queueStats() })
    .handler;
}

/** The MCP-lite service's name in the gRPC health service (as `grpc/proto.ts`, which is not loaded here). */
const GRPC_SERVICE_NAME = 'mcplite.MCPLite';
