/**
 * Scale-out on Redis, end to end — processes killed and restarted: three fronts
 * (`mcplite serve --demo --redis … --no-worker`) and two workers (`mcplite worker --demo --redis …`) as real
 * processes of the built CLI behind a real round-robin HAProxy, where a worker is killed -9 mid-job and every
 * front is killed -9 and restarted; then one front on a private redis-server that is killed and restarted mid-run.
 * Promises across fronts are in scale-out-promises.test.ts; MCP sessions in scale-out-mcp.test.ts.
 *
 * Needs a real Redis at REDIS_URL (CI sets it; the tests skip, saying so, without it), `npm run build` (the
 * replicas run dist/src/cli/main.js), /usr/sbin/haproxy and redis-server. Each cluster here has its own key
 * prefix and deletes only its own keys. Every request has a timeout and every test a time limit, so a feature that
 * is missing fails its test instead of hanging the file.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CLI,
  type Cluster,
  callTool,
  freePort,
  getJson,
  kindOf,
  RedisServer,
  redeem,
  redeemSettled,
  startCluster,
  stopAll,
  tokenOf,
  waitFor,
} from '../support/scale-cluster.js';
import {
  ANALYSIS,
  FAST_STALL,
  LONG_ANALYSIS,
  QUICK_FAILURE,
  skipReason,
  useScaleOut,
} from '../support/scale-out.js';

describe.skipIf(skipReason !== undefined)('scale-out: 3 fronts and 2 workers on Redis behind HAProxy', () => {
  // This file's own cluster (own key prefix): started in beforeAll, stopped in afterAll.
  const { c, rpc, lbRpc, allRpc, jobState } = useScaleOut();

  it(
    'finishes on another worker a job whose worker is killed -9 mid-run, settled once',
    async () => {
      // Only worker 1 runs: the job is surely its.
      await c.workers[1]!.kill('SIGTERM');
      const token = tokenOf(await callTool(lbRpc(), 'analyze_dataset', LONG_ANALYSIS));
      await waitFor(async () => (await jobState(token)) === 'active', 15_000, 'worker 0 to take the job');
      expect(kindOf(await redeem(rpc(0), token))).toBe('promise');
      await c.workers[1]!.start();
      await c.workers[0]!.kill('SIGKILL');
      const restart = c.workers[0]!.start();
      const settled = await redeemSettled(allRpc(), token, FAST_STALL ? 30_000 : 80_000, 5000);
      await restart;
      expect(kindOf(settled), JSON.stringify(settled.body)).toBe('answer');
      expect(settled.body.result!.content).toMatchObject({
        dataset_id: 'all',
        analysis_type: 'comprehensive',
      });
      // Settled once: every front redeems the same outcome, again and again.
      for (const url of allRpc()) {
        const again = await redeem(url, token);
        expect(again.body.result).toEqual(expect.objectContaining({ content: settled.body.result!.content }));
      }
    },
    FAST_STALL ? 50_000 : 100_000,
  );

  it('keeps outstanding and settled promises redeemable across every front killed -9 and restarted', async () => {
    const settledToken = tokenOf(await callTool(rpc(0), 'analyze_dataset', QUICK_FAILURE));
    const settled = await redeemSettled([rpc(1)], settledToken, 10_000, 1000);
    expect(kindOf(settled)).toBe('failure');
    const outstanding = tokenOf(await callTool(rpc(2), 'analyze_dataset', ANALYSIS));
    const before = c.fronts.map((f) => f.pid);
    await Promise.all(c.fronts.map((f) => f.kill('SIGKILL')));
    await Promise.all(c.fronts.map((f) => f.start()));
    expect(c.fronts.map((f) => f.pid)).not.toEqual(before);
    for (const url of allRpc()) {
      const again = await redeem(url, settledToken);
      expect(again.body.result?.failure, JSON.stringify(again.body)).toEqual(settled.body.result!.failure);
    }
    const done = await redeemSettled(allRpc(), outstanding, 15_000, 3000);
    expect(kindOf(done), JSON.stringify(done.body)).toBe('answer');
    // The balancer sees them again.
    await waitFor(
      async () => (await getJson(`${c.lb!.url}/readyz`)).status === 200,
      10_000,
      'the LB to serve',
    );
  }, 120_000);
});

describe.skipIf(skipReason !== undefined)('scale-out: Redis killed and restarted mid-run', () => {
  let redis: RedisServer;
  let c: Cluster;

  beforeAll(async () => {
    // A private Redis of this test's own: never the shared one.
    redis = await new RedisServer(await freePort()).start();
    c = await startCluster({ redisUrl: redis.url, fronts: 1, workers: 0, frontsWork: true });
  }, 120_000);

  afterAll(async () => {
    await c?.stop();
    await redis?.kill();
    await stopAll();
  }, 120_000);

  it('refuses to start with --redis and no MCPLITE_SECRET (exit 2)', async () => {
    const { spawnProcess } = await import('../support/scale-cluster.js');
    const p = spawnProcess(
      'no-secret',
      process.execPath,
      [CLI, 'serve', '--demo', '--redis', redis.url, '--port', '0'],
      {
        env: { MCPLITE_SECRET: '' },
      },
    );
    expect(await p.exited).toBe(2);
    expect(p.stderr()).toMatch(/MCPLITE_SECRET/);
  }, 120_000);

  it('fails fast and clearly while Redis is down, serves what needs no state, and recovers by itself', async () => {
    const f = c.fronts[0]!;
    const before = tokenOf(await callTool(f.rpcUrl, 'analyze_dataset', QUICK_FAILURE));
    expect(kindOf(await redeemSettled([f.rpcUrl], before, 10_000, 1000))).toBe('failure');

    await redis.kill('SIGKILL');
    await waitFor(async () => (await getJson(`${f.url}/readyz`)).status === 503, 5000, '/readyz to say 503');
    expect((await getJson(`${f.url}/readyz`)).body).toMatchObject({ status: 'unavailable' });
    // The balancer's health check takes the front out: the LB itself answers 503.
    await waitFor(
      async () => (await getJson(`${c.lb!.url}/readyz`)).status === 503,
      5000,
      'the LB to say 503',
    );

    // Redeeming needs the store too: a clear error at once, not a wait.
    const t0 = Date.now();
    const lost = await redeem(f.rpcUrl, before, 5000);
    expect(Date.now() - t0, 'answered at once').toBeLessThan(3000);
    expect(lost.body.error?.message ?? '', JSON.stringify(lost.body)).toMatch(/state store|redis/i);

    const started = Date.now();
    const refused = await callTool(f.rpcUrl, 'analyze_dataset', ANALYSIS, {}, 5000);
    expect(Date.now() - started, 'answered at once, not after a timeout').toBeLessThan(3000);
    const code = refused.body?.error?.code;
    expect(refused.status, JSON.stringify(refused.body)).toBe(503);
    expect(code).toBe(-32603);
    expect(refused.body.error?.data?.reason).toBe('unavailable');
    expect(refused.body.error?.message).toMatch(/state store|redis/i);

    const echo = await callTool(f.rpcUrl, 'echo', { message: 'still here' }, {}, 5000);
    expect(echo.body.result?.content, JSON.stringify(echo.body)).toEqual({
      message: 'still here',
      repeat: 1,
    });
    expect((await getJson(`${f.url}/healthz`)).status).toBe(200);

    await redis.start();
    await waitFor(
      async () => (await getJson(`${f.url}/readyz`)).status === 200,
      15_000,
      '/readyz back to 200',
    );
    const after: string = await waitFor(
      async () => {
        const r = await callTool(f.rpcUrl, 'analyze_dataset', QUICK_FAILURE, {}, 5000);
        return kindOf(r) === 'promise' ? tokenOf(r) : '';
      },
      10_000,
      'a promise again',
    );
    expect(kindOf(await redeemSettled([f.rpcUrl, `${c.lb!.url}/mcp-lite/v1/rpc`], after, 15_000, 1000))).toBe(
      'failure',
    );
  }, 60_000);
});
