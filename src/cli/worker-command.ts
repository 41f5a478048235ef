import { type Command, Option } from 'commander';
import type { ToolServer } from '../core/server.js';
import { createServer } from '../create-server.js';
// Types only: ioredis and BullMQ load with the Redis state (redis-state.ts), never for other commands.
import type { BullMqWorkQueue } from '../stores/redis/queue.js';
import { CliError } from './errors.js';
import { loadToolModule, nearestPackage } from './load-module.js';
import { demoModulePath } from './locate.js';
import { createLogger, LOG_LEVELS, type LogLevel } from './logger.js';
import { integer } from './parse.js';
import { addQueueTuning, type RedisFlags, redisStateFor, SECRET_REQUIRED } from './redis-state.js';

/** The flags of `mcplite worker`, as commander parses them. */
export interface WorkerFlags extends RedisFlags {
  demo?: boolean;
  redis: string;
  concurrency: number;
  grace: number;
  logLevel: LogLevel;
}

/**
 * Adds `worker [module]` to the program: a process that serves no request and only runs the long-running work
 * fronts (`mcplite serve --redis`) put on the shared queue, so work scales apart from request handling.
 */
export function registerWorker(program: Command): void {
  const command = program
    .command('worker')
    .description(
      'Only run the long-running work that fronts (mcplite serve --redis) put on the Redis queue (BullMQ), ' +
        "with a module's tools; needs the fronts' MCPLITE_SECRET",
    )
    .argument('[module]', 'a .js/.mjs module (or .ts, with tsx installed) that exports tools')
    .option('--demo', 'work for the bundled demo tools (examples/demo)')
    .requiredOption('--redis <url>', 'the Redis the fronts use (redis://[user:password@]host:port[/db])')
    .addOption(
      new Option('--concurrency <n>', 'most jobs run at once in this process')
        .argParser(integer(1))
        .default(16),
    )
    .option('--redis-prefix <prefix>', 'prefix of every Redis key: the same as the fronts (default mcplite:)')
    .addOption(
      new Option(
        '--grace <ms>',
        'on SIGTERM/SIGINT, how long running jobs may finish; the rest go back to the queue',
      )
        .argParser(integer(0))
        .default(10_000),
    )
    .addOption(
      new Option('--log-level <level>', 'log level (JSON logs go to stderr)')
        .choices(LOG_LEVELS)
        .default('info'),
    );
  addQueueTuning(command).action(async (module: string | undefined, flags: WorkerFlags) => {
    await runWorker(module, flags);
  });
}

/**
 * Loads the tools as `serve` does, builds a ToolServer whose promises live in Redis and whose queue works jobs
 * here, prints the ready line and exits cleanly on SIGTERM/SIGINT. Refuses to start without MCPLITE_SECRET: a
 * job answering an elicitation carries state the fronts signed, and every replica must verify it alike.
 */
export async function runWorker(module: string | undefined, flags: WorkerFlags): Promise<ToolServer> {
  if (flags.demo && module) throw new CliError('Give either a module or --demo, not both');
  const spec = flags.demo ? demoModulePath() : module;
  if (!spec)
    throw new CliError('Nothing to work for: give a tool module (mcplite worker ./tools.js) or --demo');
  const secret = process.env.MCPLITE_SECRET;
  if (!secret) throw new CliError(SECRET_REQUIRED, 2);
  const logger = createLogger(flags.logLevel);
  const loaded = await loadToolModule(spec);
  const own =
    loaded.serverOptions.name && loaded.serverOptions.version ? undefined : nearestPackage(loaded.path);
  // The same stores, prefixes and queue as `serve --redis` makes, so that fronts and workers meet.
  const state = await redisStateFor(flags, logger, true);
  const queue = state.workQueue as BullMqWorkQueue;
  // Everything redisStateFor opened (each close is idempotent; the ToolServer closes the queue and promises too).
  const release = () =>
    Promise.all([queue.close(), state.promiseStore.close(), state.rateLimitStore.close?.(), state.close()]);
  let server: ToolServer;
  try {
    server = createServer({
      ...(own ? { name: own.name, version: own.version } : {}),
      ...loaded.serverOptions,
      tools: loaded.tools,
      logger,
      secret,
      promiseStore: state.promiseStore,
      workQueue: queue,
    });
  } catch (err) {
    await release();
    throw new CliError(`Invalid tools in ${loaded.path}: ${(err as Error).message}`, 2, { cause: err });
  }
  try {
    // A worker may start before Redis does (compose, Kubernetes): wait a little before giving up.
    for (let tries = 1; ; tries++) {
      try {
        await queue.ready();
        break;
      } catch (err) {
        if (tries >= 20) throw err;
        await new Promise((r) => setTimeout(r, 500));
      }
    }
  } catch (err) {
    await server.close();
    await release();
    throw new CliError((err as Error).message, 1, { cause: err });
  }
  // The one line on stdout: scripts and tests wait for it.
  process.stdout.write(`mcplite worker ready (queue ${queue.name}, concurrency ${queue.concurrency})\n`);
  logger.info(
    { queue: queue.name, concurrency: queue.concurrency, tools: server.catalog.names() },
    'working',
  );
  stopOnSignals(queue, () => server.close().then(release), logger, flags.grace);
  return server;
}

/**
 * SIGTERM/SIGINT: stop taking jobs, let running ones finish within `graceMs` (the rest are aborted and handed
 * back to the queue for another worker), close and exit 0. A second signal exits at once with 1.
 */
function stopOnSignals(
  queue: BullMqWorkQueue,
  closeRest: () => Promise<unknown>,
  logger: ReturnType<typeof createLogger>,
  graceMs: number,
): void {
  let stopping = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping) {
      logger.warn({ signal }, 'second signal: exiting without waiting');
      process.exit(1);
    }
    stopping = true;
    logger.info({ signal, graceMs }, 'shutting down');
    queue
      .close(graceMs)
      .then(closeRest)
      .then(
        () => {
          logger.info({}, 'stopped');
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
