/**
 * What the scale-out test files (test/scale-out-*.test.ts) share: whether they can run at all (REDIS_URL, the
 * built CLI, HAProxy; a visible warning when not), which CLI flags exist, the demo calls they make, and the one
 * cluster shape they start (useScaleOut): three fronts and two workers on the Redis at REDIS_URL behind HAProxy.
 * Each file starts its own in beforeAll (its own key prefix, picked by startCluster) and stops it in afterAll, so
 * the files can run in parallel.
 */
import { existsSync } from 'node:fs';
import { Queue } from 'bullmq';
import { afterAll, beforeAll } from 'vitest';
import { DEFAULT_QUEUE_NAME } from '../../src/stores/redis/queue.js';
import { CLI, type Cluster, cliOptions, HAPROXY, startCluster, stopAll } from './scale-cluster.js';

export const REDIS_URL = process.env.REDIS_URL;
const BUILT = existsSync(CLI);
const HAVE_HAPROXY = existsSync(HAPROXY);
/** Why the scale-out tests cannot run here; undefined when they can. */
export const skipReason = !REDIS_URL
  ? 'REDIS_URL is not set (CI sets it; locally: REDIS_URL=redis://127.0.0.1:6379 npx vitest run test/scale-out-*.test.ts)'
  : !BUILT
    ? `${CLI} is missing: run \`npm run build\` first`
    : !HAVE_HAPROXY
      ? `${HAPROXY} is missing: apt-get install haproxy`
      : undefined;
if (skipReason) console.warn(`scale-out tests skipped: ${skipReason}`);

// What the CLI offers decides a few arguments; a flag that does not exist yet is left out and said so.
const serveFlags = skipReason ? new Set<string>() : cliOptions('serve');
const workerFlags = skipReason ? new Set<string>() : cliOptions('worker');
export const QUOTA_FLAG = serveFlags.has('--max-promises-per-caller');
/** How many promises the 10,000-promise test makes: every call comes from 127.0.0.1, one caller. */
export const MANY = QUOTA_FLAG ? 10_000 : 900;
export const TTL_FLAG = ['--promise-ttl', '--promise-ttl-ms'].find((f) => serveFlags.has(f));
export const METRICS_FLAG = serveFlags.has('--metrics');
export const FAST_STALL = workerFlags.has('--stalled-interval') && workerFlags.has('--lock-duration');
if (!skipReason) {
  if (!QUOTA_FLAG)
    console.warn('scale-out: serve has no --max-promises-per-caller; making 900 promises instead of 10,000');
  if (!TTL_FLAG) console.warn('scale-out: serve has no --promise-ttl flag: the expiry test is skipped');
  if (!FAST_STALL)
    console.warn(
      'scale-out: worker has no --stalled-interval/--lock-duration: the kill -9 test waits for BullMQ defaults (up to ~60 s)',
    );
}

/** A demo call that answers with a promise at once and settles in ~2 s (summary) or ~3 s (comprehensive). */
export const ANALYSIS = { dataset_id: 'all', analysis_type: 'summary' } as const;
export const LONG_ANALYSIS = { dataset_id: 'all', analysis_type: 'comprehensive' } as const;
/** A promise that settles as soon as a worker takes it: a business failure (unknown dataset). */
export const QUICK_FAILURE = { dataset_id: 'no_such_dataset', analysis_type: 'summary' } as const;

/**
 * Called in a describe: starts three fronts and two workers on the Redis at REDIS_URL behind HAProxy, under a key
 * prefix of their own, in beforeAll, and stops them (deleting their keys) and any process the file still has
 * running in afterAll. Returns the cluster (a view of the one beforeAll started: read it in tests, not before) and
 * the MCP-lite RPC URLs of its fronts and balancer.
 */
export function useScaleOut() {
  let c: Cluster | undefined;
  beforeAll(async () => {
    c = await startCluster({
      redisUrl: REDIS_URL!,
      fronts: 3,
      workers: 2,
      frontArgs: [
        ...(QUOTA_FLAG ? ['--max-promises-per-caller', '20000'] : []),
        ...(METRICS_FLAG ? ['--metrics'] : []),
      ],
      workerArgs: [
        // Info, so that a cancelled handler's "analysis stopped early" line shows where it ran.
        '--log-level',
        'info',
        ...(FAST_STALL ? ['--stalled-interval', '1000', '--lock-duration', '2000'] : []),
      ],
    });
  }, 60_000);

  afterAll(async () => {
    await c?.stop();
    await stopAll();
  }, 30_000);

  const started = (): Cluster => {
    if (!c) throw new Error('the scale-out cluster is not started: use it in a test, after beforeAll');
    return c;
  };
  return {
    c: new Proxy({} as Cluster, { get: (_, key) => Reflect.get(started(), key) }),
    rpc: (i: number) => started().fronts[i]!.rpcUrl,
    lbRpc: () => `${started().lb!.url}/mcp-lite/v1/rpc`,
    allRpc: () => started().fronts.map((f) => f.rpcUrl),
    jobState: (token: string) => jobState(started(), token),
  };
}

/**
 * The BullMQ state of a promise's job in the cluster's queue (`active` once a worker runs it; undefined when there
 * is no such job), read from its Redis: what a test waits on instead of a pause. The CLI's queue has the default
 * name, under the cluster's key prefix.
 */
export async function jobState(c: Cluster, token: string): Promise<string | undefined> {
  const q = new Queue(DEFAULT_QUEUE_NAME, {
    connection: { url: c.redisUrl },
    prefix: c.prefix.replace(/:$/, ''),
  });
  try {
    return (await (await q.getJob(token))?.getState()) ?? undefined;
  } finally {
    await q.close();
  }
}
