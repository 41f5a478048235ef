import type { ToolServer } from '../core/server.js';
import { createServer } from '../create-server.js';
// Types only: ioredis and BullMQ load with the Redis state (redis-state.ts), never for other commands.
import type { BullMqWorkQueue } from '../stores/redis/queue.js';
import { type Command, Option } from './commander.js';
import { CliError } from './errors.js';
import { loadServedModule, moduleSpec } from './load-module.js';
import { createLogger, LOG_LEVELS, type LogLevel } from './logger.js';
import { otelWanted, startOtel } from './otel.js';
import { integer } from './parse.js';
import { addQueueTuning, type RedisFlags, redisStateFor, SECRET_REQUIRED } from './redis-state.js';
import { stopOnSignals } from './shutdown.js';

/** The flags of `mcplite worker`, as commander parses them. */
export interface WorkerFlags extends RedisFlags {
  demo?: boolean;
  redis: string;
  concurrency: number;
  grace: number;
  logLevel: LogLevel;
  /** `--otel`: export OpenTelemetry over OTLP (otel.ts); also on with OTEL_EXPORTER_OTLP_ENDPOINT. */
  otel?: boolean;
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
    .option(
      '--otel',
      'export OpenTelemetry traces over OTLP, configured by the OTEL_* environment (on by itself when OTEL_EXPORTER_OTLP_ENDPOINT is set)',
    )
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
  const spec = moduleSpec(module, flags.demo, 'work for: give a tool module (mcplite worker ./tools.js)');
  const secret = process.env.MCPLITE_SECRET;
  if (!secret) throw new CliError(SECRET_REQUIRED, 2);
  const logger = createLogger(flags.logLevel);
  // Before the server is made: each job's work joins the trace of the call that made its promise.
  const otel = otelWanted(flags.otel) ? await startOtel() : undefined;
  const loaded = await loadServedModule(spec);
  if (loaded.server)
    throw new CliError(
      `${loaded.path} exports a server: a worker makes its own (promises and queue on Redis), so export the ` +
        'options instead (export default { tools, ...options })',
      2,
    );
  // The same stores, prefixes and queue as `serve --redis` makes, so that fronts and workers meet.
  const state = await redisStateFor(flags, logger, true);
  const queue = state.workQueue as BullMqWorkQueue;
  // Everything redisStateFor opened (each close is idempotent; the ToolServer closes the queue and promises too).
  const release = () =>
    Promise.all([queue.close(), state.promiseStore.close(), state.rateLimitStore.close?.(), state.close()]);
  let server: ToolServer;
  try {
    server = createServer({
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
  // Stop taking jobs and let running ones finish within the grace (the rest go back to the queue), then close.
  stopOnSignals(logger, flags.grace, () =>
    queue
      .close(flags.grace)
      .then(() => server.close())
      .then(release)
      .then(() => otel?.shutdown()),
  );
  return server;
}
