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
  stopOnSignals(logger, graceMs, () => running.close(graceMs), {
    stopping: () => ({ inFlight: server.inFlight }),
    stopped: () => ({ aborted: server.inFlight }),
  });
}

/**
 * The signal policy of every long-running command (`serve`, `worker`): the first SIGTERM or SIGINT runs `stop`
 * and exits 0 when it is done (1 if it fails); a second one exits at once with 1. `fields` add to the two log lines.
 */
export function stopOnSignals(
  logger: Logger,
  graceMs: number,
  stop: () => Promise<unknown>,
  fields: { stopping?: () => object; stopped?: () => object } = {},
): void {
  let stopping = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping) {
      logger.warn({ signal, ...fields.stopping?.() }, 'second signal: exiting without waiting');
      process.exit(1);
    }
    stopping = true;
    logger.info({ signal, ...fields.stopping?.(), graceMs }, 'shutting down');
    stop().then(
      () => {
        logger.info({ ...fields.stopped?.() }, 'stopped');
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
