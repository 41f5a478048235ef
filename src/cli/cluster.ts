import type { Cluster, Worker } from 'node:cluster';
import type { Logger } from '../core/logger.js';
import { loadOptional } from '../optional-peers.js';
import { CliError } from './errors.js';

/**
 * `mcplite serve --cluster <n>`: n worker processes on one machine (node:cluster), each running the same
 * `serve` on the same ports. node's cluster module shares each listening socket: the primary accepts the
 * connections and hands them to the workers round-robin (Linux, macOS), for the HTTP port and for the gRPC port
 * alike (grpc-js listens through node's net module). State is shared through Redis, which is why `--redis` is
 * required. The primary serves nothing itself: it forks the workers, restarts one that dies unexpectedly (with
 * a backoff, and gives up when they keep dying), relays SIGTERM/SIGINT to them and exits once they all have.
 *
 * `/metrics` (with `--metrics`) answers with the whole cluster's metrics, whichever worker takes the scrape
 * (metrics-cluster.ts); `/healthz` names the pid of the worker that answered.
 */

/** The flags `--cluster` looks at. */
export interface ClusterFlags {
  /** `--cluster <n>`: how many workers. */
  cluster?: number;
  /** `--redis <url>`: required with `--cluster`, so that the workers share state. */
  redis?: string;
  /** `--stdio`: has no port to share, so cannot go with `--cluster`. */
  stdio?: boolean;
  /** `--grace <ms>`: how long each worker may take to stop; the primary waits that plus a margin. */
  grace: number;
  /** `--metrics`: the primary gathers the workers' metrics, so that a scrape of any worker shows the cluster's. */
  metrics?: boolean;
}

/** Options of the primary's supervision (the defaults suit the CLI; tests shorten them). */
export interface SupervisorOptions {
  /** Most unexpected worker deaths within `restartWindowMs` before the primary gives up. Default 10. */
  maxRestarts?: number;
  /** The window `maxRestarts` counts in. Default 60 000 ms. */
  restartWindowMs?: number;
  /** The first restart's delay, doubled for each further restart in the window, at most `maxBackoffMs`. Default 250. */
  backoffMs?: number;
  /** The longest delay before a restart. Default 10 000 ms. */
  maxBackoffMs?: number;
}

/** The message of `--cluster` without `--redis`. */
export const CLUSTER_NEEDS_REDIS =
  '--cluster needs --redis <url>: each worker is a separate process, and without Redis promises, MCP sessions ' +
  'and rate limits would live in one worker while the next request goes to another';

/** Refuses flags `--cluster` cannot work with (throws a CliError); a no-op without `--cluster`. */
export function checkClusterFlags(flags: ClusterFlags): void {
  if (flags.cluster === undefined) return;
  if (!flags.redis) throw new CliError(CLUSTER_NEEDS_REDIS, 2);
  if (flags.stdio) throw new CliError('--cluster serves ports: it cannot go with --stdio', 2);
}

/**
 * The `--cluster` branch of `mcplite serve`. In the primary it runs the supervisor and never settles (the process
 * exits when the workers have); in a worker it relays the primary's shutdown and resolves, so that the worker goes
 * on to serve. Without `--cluster` it resolves at once.
 */
export async function clusterRole(
  flags: ClusterFlags,
  logger: Logger,
  options: SupervisorOptions = {},
): Promise<void> {
  if (flags.cluster === undefined) return;
  checkClusterFlags(flags);
  // Loaded here, not with the file: node:cluster brings child_process along, about 10 ms of every start.
  const cluster = (await import('node:cluster')).default;
  if (cluster.isWorker) {
    relayShutdown();
    return;
  }
  if (flags.metrics)
    (await loadOptional('metrics', () => import('../metrics-cluster.js'))).answerClusterMetrics();
  superviseWorkers(cluster, flags.cluster, flags.grace, logger, options);
  await new Promise<never>(() => {});
}

/** The IPC message by which the primary asks a worker to stop, as the signal itself would. */
interface StopMessage {
  mcplite: 'stop';
  signal: NodeJS.Signals;
}

function isStopMessage(m: unknown): m is StopMessage {
  return typeof m === 'object' && m !== null && (m as { mcplite?: unknown }).mcplite === 'stop';
}

/**
 * In a worker: a stop message from the primary becomes the signal itself (so the usual graceful shutdown runs),
 * unless the worker got that signal directly already: Ctrl-C reaches every process of the terminal's group, and
 * a second signal means "exit now" to the worker.
 */
function relayShutdown(): void {
  let signalled = false;
  const direct = (signal: NodeJS.Signals) => {
    signalled = true;
    // Still starting (no shutdown handler yet): stop as the signal's default would.
    if (process.listenerCount(signal) === 1) process.exit(0);
  };
  process.on('SIGTERM', direct);
  process.on('SIGINT', direct);
  // The primary is gone (killed): nobody hands this worker connections any more, so stop gracefully.
  process.once('disconnect', () => {
    if (!signalled) process.kill(process.pid, 'SIGTERM');
  });
  process.on('message', (m: unknown) => {
    if (!isStopMessage(m)) return;
    // The terminal's signal arrives before the primary's message: a short wait tells them apart.
    setTimeout(() => {
      if (!signalled) process.kill(process.pid, m.signal);
    }, DIRECT_SIGNAL_WAIT_MS);
  });
}

/** In the primary: forks the workers and keeps them running until a signal; exits the process at the end. */
function superviseWorkers(
  cluster: Cluster,
  count: number,
  graceMs: number,
  logger: Logger,
  options: SupervisorOptions,
): void {
  const maxRestarts = options.maxRestarts ?? 10;
  const windowMs = options.restartWindowMs ?? 60_000;
  const backoffMs = options.backoffMs ?? 250;
  const maxBackoffMs = options.maxBackoffMs ?? 10_000;
  const deaths: number[] = [];
  const pendingRestarts = new Set<NodeJS.Timeout>();
  let everListened = false;
  let stopping: NodeJS.Signals | undefined;
  let failed = false;

  const slots = new Map<Worker, number>();
  const fork = (slot: number): Worker => {
    // MCPLITE_CLUSTER_WORKER: 1..n, so that a module (or a log) can tell the workers apart.
    const worker = cluster.fork({ MCPLITE_CLUSTER_WORKER: String(slot) });
    slots.set(worker, slot);
    return worker;
  };

  const stopAll = (signal: NodeJS.Signals) => {
    for (const timer of pendingRestarts) clearTimeout(timer);
    pendingRestarts.clear();
    for (const worker of Object.values(cluster.workers ?? {})) {
      if (!worker || worker.isDead()) continue;
      if (worker.isConnected()) worker.send({ mcplite: 'stop', signal } satisfies StopMessage);
      else worker.process.kill(signal);
    }
    // A worker that does not stop within its grace (and a margin) is killed.
    setTimeout(() => {
      for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill('SIGKILL');
    }, graceMs + KILL_MARGIN_MS).unref();
    exitWhenAllGone();
  };

  // Counted from `slots`, which each worker leaves on its `exit`: `cluster.workers` keeps a worker until its IPC
  // channel has closed too, and a worker can exit before that, when no event would come to look again.
  const exitWhenAllGone = () => {
    if (slots.size > 0 || pendingRestarts.size > 0) return;
    logger.info({ signal: stopping, failed }, 'cluster stopped');
    process.exit(failed ? 1 : 0);
  };

  cluster.on('listening', (worker, address) => {
    everListened = true;
    logger.debug({ pid: worker.process.pid, port: address.port }, 'cluster worker listening');
  });

  cluster.on('exit', (worker, code, signal) => {
    const slot = slots.get(worker) ?? 0;
    slots.delete(worker);
    if (stopping) {
      if (code !== 0) failed = true;
      exitWhenAllGone();
      return;
    }
    logger.error({ pid: worker.process.pid, slot, code, signal }, 'cluster worker died');
    if (!everListened) {
      // Not one worker ever served: the same error (a taken port, a bad module) would hit every restart.
      failed = true;
      stopping = 'SIGTERM';
      process.stderr.write(
        `mcplite: a cluster worker exited (${signal ?? `code ${code}`}) before serving; stopping\n`,
      );
      stopAll('SIGTERM');
      return;
    }
    const now = Date.now();
    deaths.push(now);
    while (deaths.length > 0 && deaths[0]! < now - windowMs) deaths.shift();
    if (deaths.length > maxRestarts) {
      failed = true;
      stopping = 'SIGTERM';
      logger.error({ deaths: deaths.length, windowMs }, 'cluster workers keep dying: giving up');
      process.stderr.write(
        `mcplite: cluster workers died ${deaths.length} times within ${windowMs} ms; stopping\n`,
      );
      stopAll('SIGTERM');
      return;
    }
    const delay = Math.min(maxBackoffMs, backoffMs * 2 ** (deaths.length - 1));
    const timer = setTimeout(() => {
      pendingRestarts.delete(timer);
      if (stopping) return exitWhenAllGone();
      const replacement = fork(slot);
      logger.warn({ pid: replacement.process.pid, slot, delayMs: delay }, 'cluster worker restarted');
    }, delay);
    pendingRestarts.add(timer);
  });

  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping) {
      // A second signal: the workers' own "exit now".
      logger.warn({ signal }, 'second signal: stopping the workers at once');
      for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill(signal);
      return;
    }
    stopping = signal;
    logger.info({ signal, workers: Object.keys(cluster.workers ?? {}).length }, 'cluster shutting down');
    stopAll(signal);
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);

  for (let slot = 1; slot <= count; slot++) fork(slot);
  logger.info({ workers: count, pid: process.pid }, 'cluster started');
}

/** How long a worker waits, after the primary's stop message, for the same signal sent to it directly. */
const DIRECT_SIGNAL_WAIT_MS = 100;
/** How long past the grace period the primary waits before killing a worker that has not stopped. */
const KILL_MARGIN_MS = 5000;
