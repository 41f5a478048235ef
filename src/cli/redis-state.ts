import type { ElicitationNonceStore } from '../core/elicitation-nonces.js';
import type { PromiseStore } from '../core/promises/store.js';
import type { RateLimitStore } from '../core/rate-limit.js';
import type { SessionStateStore } from '../core/session-state.js';
import type { WorkQueue } from '../core/work-queue.js';
import { loadOptional } from '../optional-peers.js';
import { type Command, Option } from './commander.js';
import { CliError } from './errors.js';
import type { createLogger } from './logger.js';
import { integer } from './parse.js';

/** The Redis flags shared by `mcplite serve` and `mcplite worker`. */
export interface RedisFlags {
  /** `--redis <url>`: keep every piece of state in this Redis. */
  redis?: string;
  /** `--redis-prefix <prefix>`: the prefix of every key, so that deployments can share one Redis. */
  redisPrefix?: string;
  /** `--no-worker` (serve only): commander sets `worker: false`; the front then works no queued jobs itself. */
  worker?: boolean;
  /** `--concurrency <n>`: most queued jobs this process works at once (and as many run where they arrive). */
  concurrency?: number;
  /**
   * `--no-local-first` (serve only): commander sets `localFirst: false`; every long-running call then goes through
   * BullMQ, even when this process has a slot free (see `BullMqWorkQueueOptions.localFirst`).
   */
  localFirst?: boolean;
  /** `--stalled-interval <ms>`: how often workers look for jobs whose worker died (BullMQ). */
  stalledInterval?: number;
  /** `--lock-duration <ms>`: how long a job's lock lasts unrenewed, i.e. how soon a dead worker is noticed. */
  lockDuration?: number;
}

/** Adds the queue tuning flags that `serve --redis` and `worker` share. */
export function addQueueTuning(command: Command): Command {
  return command
    .addOption(
      new Option(
        '--stalled-interval <ms>',
        'with --redis: how often workers look for jobs whose worker died (default 30000)',
      ).argParser(integer(100)),
    )
    .addOption(
      new Option(
        '--lock-duration <ms>',
        "with --redis: how long a job's lock lasts unrenewed: a dead worker's job runs elsewhere after it (default 30000)",
      ).argParser(integer(100)),
    );
}

/** Everything a replica keeps in Redis, made for one process. */
export interface RedisState {
  /** Promises (records and results). */
  promiseStore: PromiseStore;
  /** Long-running work (BullMQ). */
  workQueue: WorkQueue;
  /** Rate-limit buckets. */
  rateLimitStore: RateLimitStore;
  /** Used elicitation nonces, so that a state answered on one replica is refused on every other. */
  elicitationNonceStore: ElicitationNonceStore;
  /** MCP handshake sessions, event logs, server requests, task-resume data. */
  sessionStore: SessionStateStore;
  /** Rejects while Redis cannot be reached (`/readyz`, the gRPC health service). */
  readiness: () => Promise<void>;
  /** The prefix every key starts with. */
  prefix: string;
  /**
   * Closes what the ToolServer does not (the session store and the stores' shared connection); call it after the
   * server's close.
   */
  close(): Promise<void>;
}

/** The message of a replica started for Redis without the shared elicitation key. */
export const SECRET_REQUIRED =
  '--redis needs MCPLITE_SECRET: every replica must share the key that signs elicitation states ' +
  '(set the same random value everywhere, e.g. MCPLITE_SECRET=$(openssl rand -hex 32))';

/**
 * Connects the Redis stores and the BullMQ queue for one process. Loaded on demand, so that a server without
 * `--redis` never loads ioredis or BullMQ. Refuses to start without `MCPLITE_SECRET`: replicas that sign
 * elicitation states with different keys would reject each other's.
 */
export async function redisStateFor(
  flags: RedisFlags & { redis: string },
  logger: ReturnType<typeof createLogger>,
  work: boolean,
): Promise<RedisState> {
  if (!process.env.MCPLITE_SECRET) throw new CliError(SECRET_REQUIRED, 2);
  const redis = await loadOptional('redis', () => import('../stores/redis/index.js'));
  const prefix = flags.redisPrefix ?? 'mcplite:';
  // One command connection for the three stores (each still opens the subscriber it needs); BullMQ makes its own.
  const client = redis.connectRedis(flags.redis, { logger });
  const promiseStore = new redis.RedisPromiseStore({ client, prefix });
  const rateLimitStore = new redis.RedisRateLimitStore({ client, prefix });
  const workQueue = new redis.BullMqWorkQueue({
    url: flags.redis,
    prefix: prefix.replace(/:$/, ''),
    work,
    logger,
    ...(flags.concurrency !== undefined ? { concurrency: flags.concurrency } : {}),
    ...(flags.localFirst === false ? { localFirst: false } : {}),
    ...(flags.stalledInterval !== undefined ? { stalledIntervalMs: flags.stalledInterval } : {}),
    ...(flags.lockDuration !== undefined ? { lockDurationMs: flags.lockDuration } : {}),
  });
  const sessionStore = new redis.RedisSessionStore({ client, prefix });
  const elicitationNonceStore = new redis.RedisElicitationNonceStore({ client, prefix });
  return {
    promiseStore,
    workQueue,
    rateLimitStore,
    elicitationNonceStore,
    sessionStore,
    readiness: () => promiseStore.ping(),
    prefix,
    close: async () => {
      await sessionStore.close();
      if (client.status !== 'end') await client.quit().catch(() => client.disconnect());
    },
  };
}
