/**
 * Scale-out on Redis, end to end — promises and calls across fronts and workers: three fronts
 * (`mcplite serve --demo --redis … --no-worker`) and two workers (`mcplite worker --demo --redis …`) as real
 * processes of the built CLI, behind a real round-robin HAProxy and also addressed directly. A promise made on one
 * front is redeemed, cancelled and expired on the others; calls spread over every front; 10,000 promises at once.
 * MCP sessions and elicitation are in scale-out-mcp.test.ts; restarts in scale-out-restarts.test.ts.
 *
 * Needs a real Redis at REDIS_URL (CI sets it; the tests skip, saying so, without it), `npm run build` (the
 * replicas run dist/src/cli/main.js) and /usr/sbin/haproxy. This file starts its own cluster with its own key
 * prefix and deletes only its own keys. Every request has a timeout and every test a time limit, so a feature that
 * is missing fails its test instead of hanging the file.
 */
import { describe, expect, it } from 'vitest';
import {
  callTool,
  cancel,
  Front,
  freePort,
  getJson,
  kindOf,
  mapLimit,
  redeem,
  redeemSettled,
  tokenOf,
  waitFor,
} from '../support/scale-cluster.js';
import {
  ANALYSIS,
  LONG_ANALYSIS,
  MANY,
  METRICS_FLAG,
  QUICK_FAILURE,
  skipReason,
  TTL_FLAG,
  useScaleOut,
} from '../support/scale-out.js';

describe.skipIf(skipReason !== undefined)('scale-out: 3 fronts and 2 workers on Redis behind HAProxy', () => {
  // This file's own cluster (own key prefix): started in beforeAll, stopped in afterAll.
  const { c, rpc, lbRpc, allRpc, jobState } = useScaleOut();

  it('runs each front and worker as its own process, live and ready', async () => {
    expect(c.isolated, 'serve and worker share --redis-prefix or --queue (a run of its own)').toBe(true);
    const pids = new Set([...c.fronts, ...c.workers].map((r) => r.pid));
    expect(pids.size).toBe(5);
    for (const f of c.fronts) {
      const health = await getJson(`${f.url}/healthz`);
      expect(health.status).toBe(200);
      expect(health.body).toMatchObject({ status: 'ok', pid: f.pid });
      expect((await getJson(`${f.url}/readyz`)).status).toBe(200);
    }
  }, 120_000);

  it('redeems a promise made on one front on each of the others', async () => {
    const token = tokenOf(await callTool(rpc(0), 'analyze_dataset', ANALYSIS));
    // Known everywhere at once, while still running.
    for (const i of [1, 2]) expect(kindOf(await redeem(rpc(i), token))).toMatch(/^(promise|answer)$/);
    const settled = await redeemSettled([rpc(1)], token, 20_000, 5000);
    expect(kindOf(settled)).toBe('answer');
    expect(settled.body.result!.content).toMatchObject({ dataset_id: 'all', analysis_type: 'summary' });
    for (const i of [0, 2]) {
      const again = await redeem(rpc(i), token);
      expect(again.body.result!.content).toEqual(settled.body.result!.content);
    }
  }, 120_000);

  /** Each front's count of finished echo calls, from its /metrics (undefined without --metrics). */
  async function echoCounts(): Promise<number[] | undefined> {
    if (!METRICS_FLAG) return undefined;
    return Promise.all(
      c.fronts.map(async (f) => {
        const text = String((await getJson(`${f.url}/metrics`)).body);
        return text
          .split('\n')
          .filter((l) => l.startsWith('mcplite_tool_calls_total{') && l.includes('tool="echo"'))
          .reduce((n, l) => n + Number(l.split(' ').at(-1)), 0);
      }),
    );
  }

  it('spreads 300 calls round-robin over the three fronts with no error', async () => {
    const countsBefore = await echoCounts();
    const replies = await mapLimit(
      Array.from({ length: 300 }, (_, i) => i),
      10,
      (i) => callTool(lbRpc(), 'echo', { message: `m${i}` }),
    );
    const bad = replies.filter((r, i) => r.status !== 200 || r.body.result?.content?.message !== `m${i}`);
    expect(bad.map((r) => JSON.stringify(r.body)).slice(0, 3)).toEqual([]);
    // Who served them: each front counts its own calls (round-robin: about 100 each).
    const countsAfter = await echoCounts();
    if (countsBefore && countsAfter) {
      const served = countsAfter.map((n, i) => n - countsBefore[i]!);
      expect(
        served.reduce((a, b) => a + b, 0),
        `per front: ${served}`,
      ).toBe(300);
      for (const n of served) expect(n, `per front: ${served}`).toBeGreaterThanOrEqual(50);
    }
    // Who answered: /healthz names the process, and round-robin reaches each front.
    const seen = new Set<number>();
    for (let i = 0; i < 12; i++) seen.add((await getJson(`${c.lb!.url}/healthz`)).body.pid);
    expect([...seen].sort()).toEqual(c.fronts.map((f) => f.pid).sort());
  }, 60_000);

  it('cancels on one front a promise made on another: the handler stops, every front says cancelled', async () => {
    const stoppedEarly = () =>
      c.workers.reduce((n, w) => n + w.stderr().split('analysis stopped early').length - 1, 0);
    const before = stoppedEarly();
    const token = tokenOf(await callTool(rpc(0), 'analyze_dataset', LONG_ANALYSIS));
    await waitFor(async () => (await jobState(token)) === 'active', 15_000, 'a worker to take the job');
    const cancelled = await cancel(rpc(1), token);
    expect(cancelled.body.result?.content, JSON.stringify(cancelled.body)).toMatchObject({
      promise: token,
      cancelled: true,
    });
    // The handler was aborted where it ran (a worker process), not merely marked cancelled.
    await waitFor(() => stoppedEarly() > before, 5000, 'a worker to log "analysis stopped early"');
    // The job has left the worker (ended by the abort), so nothing can settle it as an answer any more.
    await waitFor(async () => (await jobState(token)) !== 'active', 15_000, 'the job to leave the worker');
    for (const url of allRpc()) {
      const r = await redeem(url, token);
      const failure = r.body.result?.failure;
      const said = failure?.code ?? r.body.error?.code;
      expect(said === 'cancelled' || said === -32800, JSON.stringify(r.body)).toBe(true);
    }
  }, 120_000);

  it.skipIf(!TTL_FLAG)(
    'expires a promise made on one front on all of them',
    async () => {
      // A fourth front on the same Redis (same prefix and secret) whose promises live 1.5 s.
      const base = c.fronts[0]!.args;
      const port = await freePort();
      const grpcPort = await freePort();
      const args = base.map((a, i) =>
        base[i - 1] === '--port' ? String(port) : base[i - 1] === '--grpc-port' ? String(grpcPort) : a,
      );
      const short = new Front('front-ttl', port, grpcPort, [...args, TTL_FLAG!, '1500'], {
        MCPLITE_SECRET: c.secret,
        MCPLITE_TOKENS: '',
      });
      await short.start();
      try {
        const token = tokenOf(await callTool(short.rpcUrl, 'analyze_dataset', QUICK_FAILURE));
        expect(kindOf(await redeemSettled([rpc(0)], token, 10_000, 1000))).toBe('failure');
        // Past its 1.5 s life on the front that made it, then on every front.
        await waitFor(
          async () => (await redeem(rpc(0), token)).body.error?.code === -32602,
          15_000,
          'the promise to expire',
        );
        for (const url of allRpc()) {
          const r = await redeem(url, token);
          expect(r.body.error?.code, JSON.stringify(r.body)).toBe(-32602);
          expect(r.body.error?.data?.reason).toMatch(/expired|unknown/);
        }
      } finally {
        await short.kill('SIGKILL');
      }
    },
    30_000,
  );

  it(`holds ${MANY.toLocaleString('en')} concurrent promises made through the balancer, all redeemable`, async () => {
    const tokens = await mapLimit(
      Array.from({ length: MANY }, (_, i) => i),
      200,
      async () => tokenOf(await callTool(lbRpc(), 'analyze_dataset', QUICK_FAILURE, {}, 30_000)),
    );
    expect(new Set(tokens).size).toBe(MANY);
    const kinds = await mapLimit(tokens, 200, async (token) => {
      const r = await redeem(lbRpc(), token, 20_000);
      return r.body.result?.failure?.code ?? kindOf(r);
    });
    const tally: Record<string, number> = {};
    for (const k of kinds) tally[k] = (tally[k] ?? 0) + 1;
    expect(tally).toEqual({ unknown_dataset: MANY });
  }, 120_000);
});
