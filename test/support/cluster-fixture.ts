/**
 * `clusterRole` without the CLI, for test/cli/cluster.test.ts: the primary supervises the workers (short backoff),
 * each worker serves the demo tools on the HTTP and gRPC ports given as arguments (0 works: node's cluster gives
 * every worker the same port). `--redis` is only checked for presence here; nothing connects to it. A fourth
 * argument `metrics` turns on the cluster-wide `/metrics`; `crash` makes every worker die 300 ms after listening.
 *
 *   cluster-fixture.ts <port> <grpcPort|off> <workers> [metrics|crash]
 */
import { serverOptions, tools } from '../../examples/demo/index.js';
import { clusterRole } from '../../src/cli/cluster.js';
import { createLogger } from '../../src/cli/logger.js';
import { exitOnSignals } from '../../src/cli/shutdown.js';
import { createServer } from '../../src/index.js';
import { createMetrics } from '../../src/metrics.js';
import { serve } from '../../src/node.js';

const [port = '0', grpcPort = 'off', workers = '2', extra] = process.argv.slice(2);
const withMetrics = extra === 'metrics';
const logger = createLogger('warn');
await clusterRole(
  { cluster: Number(workers), redis: 'redis://not-used', grace: 2000, metrics: withMetrics },
  logger,
  // A window far longer than the test: every death falls in it, however slowly a loaded machine starts workers.
  { backoffMs: 50, maxRestarts: 3, restartWindowMs: 600_000 },
);
const metrics = withMetrics
  ? createMetrics({ cluster: true, queueStats: () => server.queueStats() })
  : undefined;
const server = createServer({
  tools,
  ...serverOptions,
  logger,
  ...(metrics ? { onCallEnd: metrics.observer } : {}),
});
const running = await serve(server, {
  port: Number(port),
  ...(grpcPort === 'off' ? {} : { grpcPort: Number(grpcPort) }),
  ...(metrics ? { metrics: { metrics } } : {}),
});
process.stdout.write(
  `worker ${process.pid} listening on ${running.url}${running.grpc ? ` grpc ${running.grpc.address}` : ' grpc off'}\n`,
);
exitOnSignals(running, server, logger, 2000);
if (extra === 'crash') setTimeout(() => process.exit(3), 300);
