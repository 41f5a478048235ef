/**
 * Local-first work on the BullMQ queue: a long-running call that reaches a replica which works jobs and has a slot
 * free runs right there, without BullMQ's round trips, under a lease in Redis with its job kept beside the
 * promise. Everything BullMQ gives still holds: its partials reach a streaming redeem on another replica, a cancel
 * from another replica aborts it, a replica killed with -9 mid-job has its job queued again and finished by
 * another worker (settled once), a replica that shuts down hands its running jobs back, and a replica whose slots
 * are all taken sends the call through BullMQ. Real Redis at REDIS_URL, real HTTP, the dying replica a real process.
 */
import { randomBytes } from 'node:crypto';
import { Queue } from 'bullmq';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createServer, type ToolServer } from '../../src/index.js';
import { type RunningServer, serve } from '../../src/node.js';
import { BullMqWorkQueue, RedisPromiseStore } from '../../src/stores/redis/index.js';
import { runCommand, start } from '../support/cli-process.js';
import { readSse } from '../support/http-harness.js';
import { latch } from '../support/latch.js';
import { deletePrefix } from '../support/scale-cluster.js';

const url = process.env.REDIS_URL;
if (!url) console.warn('local-first tests skipped: REDIS_URL is not set (CI sets it; see .ci/run)');

const RUN = `mcplite-test-local-${randomBytes(4).toString('hex')}`;
const STORE_PREFIX = `${RUN}:store:`;
/** Which replica ran what, in order: `<replica>:<tool>`. */
const ran: string[] = [];
const open: Array<{ close(): Promise<void> }> = [];
/** Resolved once a replica's store is asked to wait on a promise (a redeem waiting); renewed for each test. */
let redeemWaits = latch();

/** The tools of replica `label`: `hold` with `block` waits for its abort on A; it answers at once otherwise. */
function tools(label: string) {
  return [
    {
      name: 'countdown',
      description: 'Counts down, one partial a step',
      longRunning: { estimatedMs: 1000 },
      async *handler() {
        ran.push(`${label}:countdown`);
        // The redeem elsewhere is waiting (and watching the partials) before the first one.
        await redeemWaits.promise;
        for (let n = 3; n > 0; n--) yield { n };
        return { liftoff: label };
      },
    },
    {
      name: 'hold',
      description: 'Holds until aborted on replica A',
      inputSchema: { type: 'object', properties: { block: { type: 'boolean' } } },
      longRunning: { estimatedMs: 30_000 },
      handler: (args: { block?: boolean }, ctx: { signal: AbortSignal }) => {
        ran.push(`${label}:hold`);
        if (label !== 'A' || !args.block) return { by: label };
        return new Promise((_resolve, reject) =>
          ctx.signal.addEventListener('abort', () => {
            ran.push(`${label}:aborted`);
            reject(ctx.signal.reason);
          }),
        );
      },
    },
  ];
}

function replica(label: string, queueName: string, work: boolean, concurrency?: number): ToolServer {
  const server = createServer({
    tools: tools(label),
    secret: 'shared',
    leaseMs: 600,
    promiseStore: tellingWaits(new RedisPromiseStore({ url: url!, prefix: STORE_PREFIX })),
    workQueue: new BullMqWorkQueue({
      url: url!,
      prefix: RUN,
      queueName,
      work,
      ...(concurrency ? { concurrency } : {}),
    }),
  });
  open.push(server);
  return server;
}

async function served(server: ToolServer): Promise<string> {
  const running: RunningServer = await serve(server, { port: 0 });
  open.unshift({ close: () => running.close(0) });
  return `${running.url}/mcp-lite/v1/rpc`;
}

function call(rpc: string, name: string, args: Record<string, unknown> = {}, sse = false) {
  return fetch(rpc, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(sse ? { accept: 'text/event-stream' } : {}) },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } }),
  });
}

async function promiseOf(rpc: string, name: string, args: Record<string, unknown> = {}): Promise<string> {
  const body = (await (await call(rpc, name, args)).json()) as any;
  expect(body.result?._meta?.response_type, JSON.stringify(body)).toBe('promise');
  return body.result._meta.promise_token;
}

async function redeem(rpc: string, token: string, waitMs: number) {
  return ((await (await call(rpc, 'redeem', { promise: token, wait_ms: waitMs })).json()) as any).result;
}

function store(): RedisPromiseStore {
  const s = new RedisPromiseStore({ url: url!, prefix: STORE_PREFIX, recentMax: 0 });
  open.push(s);
  return s;
}

async function bullJob(queueName: string, token: string) {
  const q = new Queue(queueName, { connection: { url: url! }, prefix: RUN });
  try {
    return await q.getJob(token);
  } finally {
    await q.close();
  }
}

function until(check: () => boolean | Promise<boolean>, timeoutMs = 60_000): Promise<void> {
  return expect.poll(check, { timeout: timeoutMs, interval: 25 }).toBe(true);
}

afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close().catch(() => {})));
  ran.length = 0;
  redeemWaits = latch();
});

afterAll(async () => {
  if (url) await deletePrefix(url, RUN);
});

describe.skipIf(!url)('local-first work on the BullMQ queue (real Redis)', () => {
  it('runs the call where it arrived, under a lease and not through BullMQ; a redeem elsewhere streams it', async () => {
    const name = `q-${randomBytes(4).toString('hex')}`;
    const a = await served(replica('A', name, true));
    const b = await served(replica('B', name, false));
    const token = await promiseOf(a, 'countdown');
    const record = await store().get(token);
    expect(record?.status).toBe('pending');
    expect(record?.leaseUntil).toBeGreaterThan(Date.now());
    expect(await bullJob(name, token)).toBeUndefined();
    const events = await readSse(await call(b, 'redeem', { promise: token, wait_ms: 10_000 }, true));
    expect(events.filter((e) => e.event === 'message').map((e) => e.data.partial)).toEqual([
      { n: 3 },
      { n: 2 },
      { n: 1 },
    ]);
    expect(JSON.stringify(events.find((e) => e.event === 'done')?.data)).toContain('"liftoff":"A"');
    expect(ran).toEqual(['A:countdown']);
    // Ended: no lease left behind, nothing queued.
    expect((await store().get(token))?.leaseUntil).toBeUndefined();
    expect((await store().lapsedLeases(Date.now() + 60_000, 10)).includes(token)).toBe(false);
  }, 120_000);

  it('aborts the work when another replica cancels the promise', async () => {
    const name = `q-${randomBytes(4).toString('hex')}`;
    const a = await served(replica('A', name, true));
    const b = await served(replica('B', name, false));
    const token = await promiseOf(a, 'hold', { block: true });
    await until(() => ran.includes('A:hold'));
    const cancelled = (await (await call(b, 'cancel', { promise: token })).json()) as any;
    expect(cancelled.result.content).toMatchObject({ cancelled: true });
    await until(() => ran.includes('A:aborted'));
    expect(await redeem(a, token, 0)).toMatchObject({ _meta: { response_type: 'failure' } });
  });

  it('sends the call through BullMQ when every local slot is taken', async () => {
    const name = `q-${randomBytes(4).toString('hex')}`;
    const a = await served(replica('A', name, true, 1));
    replica('W', name, true);
    const held = await promiseOf(a, 'hold', { block: true });
    await until(() => ran.includes('A:hold'));
    expect((await store().get(held))?.leaseUntil).toBeDefined();
    // A's one local slot is taken: the next call is queued (no lease), and a queue worker (A's or W's) answers it.
    const queued = await promiseOf(a, 'hold');
    const record = await store().get(queued);
    expect(record?.leaseUntil).toBeUndefined();
    const answer = await redeem(a, queued, 10_000);
    expect(answer._meta.response_type).toBe('answer');
    expect(ran.filter((r) => r.endsWith(':hold'))).toHaveLength(2);
  }, 120_000);

  it('hands its running work back when it shuts down: another worker finishes it', async () => {
    const name = `q-${randomBytes(4).toString('hex')}`;
    const serverA = replica('A', name, true);
    const a = await served(serverA);
    replica('W', name, true);
    const token = await promiseOf(a, 'hold', { block: true });
    await until(() => ran.includes('A:hold'));
    await serverA.close();
    const record = await store().waitSettled(token, 10_000);
    expect(record?.settlement).toMatchObject({ outcome: { type: 'answer', result: { by: 'W' } } });
    expect(ran).toEqual(['A:hold', 'A:aborted', 'W:hold']);
  }, 120_000);

  it('queues the job of a replica killed with -9 again once its lease runs out; another worker settles it once', async () => {
    const name = `q-${randomBytes(4).toString('hex')}`;
    const child = runCommand(process.execPath, ['--import', 'tsx', 'test/support/local-first-server.ts'], {
      REDIS_URL: url!,
      PREFIX: STORE_PREFIX,
      QUEUE_PREFIX: RUN,
      QUEUE_NAME: name,
      LEASE_MS: '600',
    });
    try {
      await until(() => /local-first server on (\S+)/.test(child.stdout()), 15_000);
      const doomed = /local-first server on (\S+)/.exec(child.stdout())![1]!;
      const token = await promiseOf(`${doomed}rpc`, 'slow');
      const observer = store();
      // Three renewals of its lease seen in the store: pending, running there, not queued.
      const leases = new Set<number>();
      await expect
        .poll(
          async () => {
            const lease = (await observer.get(token))?.leaseUntil;
            if (lease !== undefined) leases.add(lease);
            return leases.size;
          },
          { timeout: 30_000, interval: 100 },
        )
        .toBeGreaterThanOrEqual(4);
      const alive = await observer.get(token);
      expect(alive?.status).toBe('pending');
      expect(alive?.leaseUntil).toBeGreaterThan(Date.now());
      expect(await bullJob(name, token)).toBeUndefined();
      child.child.kill('SIGKILL');
      expect(await child.exited).toBe('SIGKILL');
      // The survivor knows `slow` as a tool that answers at once; its sweep finds the lapsed lease.
      let settles = 0;
      let sweeps = 0;
      const survivor = createServer({
        tools: [
          {
            name: 'slow',
            description: 'Answers at once here',
            longRunning: { estimatedMs: 1 },
            handler: () => {
              ran.push('survivor:slow');
              return { by: 'survivor' };
            },
          },
        ],
        leaseMs: 600,
        promiseStore: countingSweeps(
          countingSettles(new RedisPromiseStore({ url: url!, prefix: STORE_PREFIX }), () => settles++),
          () => sweeps++,
        ),
        workQueue: new BullMqWorkQueue({ url: url!, prefix: RUN, queueName: name }),
      });
      open.push(survivor);
      const record = await observer.waitSettled(token, 15_000);
      expect(record?.settlement).toMatchObject({ outcome: { type: 'answer', result: { by: 'survivor' } } });
      // Settled once, and not run again by the survivor's next two sweeps for lapsed leases.
      const swept = sweeps;
      await until(() => sweeps >= swept + 2, 30_000);
      expect(ran).toEqual(['survivor:slow']);
      expect(settles).toBe(1);
    } finally {
      child.child.kill('SIGKILL');
    }
  }, 120_000);

  it('`mcplite serve --redis` runs a long-running call local-first, and through BullMQ with --no-local-first', async () => {
    const leased = async (flags: string[]) => {
      const cli = await start(['--demo', '--redis', url!, '--redis-prefix', `${RUN}:cli:`, ...flags], {
        MCPLITE_SECRET: 'shared',
      });
      try {
        const token = await promiseOf(`${cli.base}rpc`, 'analyze_dataset', {
          dataset_id: 'all',
          analysis_type: 'summary',
        });
        const observer = new RedisPromiseStore({ url: url!, prefix: `${RUN}:cli:`, recentMax: 0 });
        open.push(observer);
        const record = await observer.get(token);
        expect(record?.status).toBe('pending');
        expect((await redeem(`${cli.base}rpc`, token, 20_000))._meta.response_type).toBe('answer');
        return record?.leaseUntil !== undefined;
      } finally {
        cli.child.kill('SIGTERM');
        await cli.exited;
      }
    };
    expect(await leased([])).toBe(true);
    expect(await leased(['--no-local-first'])).toBe(false);
  }, 60_000);
});

/** `store` with every settle that changed a record counted. */
/** The store, counting its sweeps for lapsed leases (`lapsedLeases`). */
function countingSweeps(store: RedisPromiseStore, counted: () => void): RedisPromiseStore {
  const lapsed = store.lapsedLeases.bind(store);
  store.lapsedLeases = async (now, limit) => {
    const tokens = await lapsed(now, limit);
    counted();
    return tokens;
  };
  return store;
}

/** The store, resolving `redeemWaits` when it is asked to wait on a promise. */
function tellingWaits(store: RedisPromiseStore): RedisPromiseStore {
  const wait = store.waitSettled.bind(store);
  store.waitSettled = (token, timeoutMs, signal) => {
    redeemWaits.resolve();
    return wait(token, timeoutMs, signal);
  };
  return store;
}

function countingSettles(store: RedisPromiseStore, counted: () => void): RedisPromiseStore {
  const settle = store.settle.bind(store);
  store.settle = async (token, s) => {
    const changed = await settle(token, s);
    if (changed) counted();
    return changed;
  };
  return store;
}
