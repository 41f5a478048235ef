import type { Logger } from '../core/logger.js';
import type { ToolServer } from '../core/server.js';
import type { RunningServer } from '../serve.js';

/**
 * Graceful shutdown on SIGTERM and SIGINT: stop accepting, let in-flight calls finish within `graceMs` (what is
 * left after that is aborted), then exit 0. A second signal exits at once with 1, for an operator who does not
 * want to wait.
 */
export function exitOnSignals(
  running: RunningServer,
  server: ToolServer,
  logger: Logger,
  graceMs: number,
): void {
  let stopping = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping) {
      logger.warn({ signal, inFlight: server.inFlight }, 'second signal: exiting without waiting');
      process.exit(1);
    }
    stopping = true;
    logger.info({ signal, inFlight: server.inFlight, graceMs }, 'shutting down');
    running.close(graceMs).then(
      () => {
        logger.info({ aborted: server.inFlight }, 'stopped');
        process.exit(0);
      },
      (err: unknown) => {
        logger.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
}
