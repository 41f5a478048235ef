/**
 * Scale-out on Redis, end to end: three fronts (`mcplite serve --demo --redis … --no-worker`) and two workers
 * (`mcplite worker --demo --redis …`) as real processes of the built CLI, behind a real round-robin HAProxy and
 * also addressed directly; then one front on a private redis-server that is killed and restarted mid-run.
 *
 * Needs a real Redis at REDIS_URL (CI sets it; the tests skip, saying so, without it), `npm run build` (the
 * replicas run dist/src/cli/main.js), /usr/sbin/haproxy and redis-server. Each run has its own key prefix and
 * deletes only its own keys. Every request has a timeout and every test a time limit, so a feature that is missing
 * fails its test instead of hanging the file.
 */
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CLI,
  type Cluster,
  callTool,
  cancel,
  cliOptions,
  EventStream,
  Front,
  freePort,
  getJson,
  HAPROXY,
  kindOf,
  mapLimit,
  mcpHeaders,
  postJson,
  RedisServer,
  readEvents,
  redeem,
  redeemSettled,
  sleep,
  startCluster,
  stopAll,
  tokenOf,
  waitFor,
} from './support/scale-cluster.js';

const REDIS_URL = process.env.REDIS_URL;
const BUILT = existsSync(CLI);
const HAVE_HAPROXY = existsSync(HAPROXY);
const skipReason = !REDIS_URL
  ? 'REDIS_URL is not set (CI sets it; locally: REDIS_URL=redis://127.0.0.1:6379 npx vitest run test/scale-out.test.ts)'
  : !BUILT
    ? `${CLI} is missing: run \`npm run build\` first`
    : !HAVE_HAPROXY
      ? `${HAPROXY} is missing: apt-get install haproxy`
      : undefined;
if (skipReason) console.warn(`scale-out tests skipped: ${skipReason}`);

// What the CLI offers decides a few arguments; a flag that does not exist yet is left out and said so.
const serveFlags = skipReason ? new Set<string>() : cliOptions('serve');
const workerFlags = skipReason ? new Set<string>() : cliOptions('worker');
const QUOTA_FLAG = serveFlags.has('--max-promises-per-caller');
/** How many promises the 10,000-promise test makes: every call comes from 127.0.0.1, one caller. */
const MANY = QUOTA_FLAG ? 10_000 : 900;
const TTL_FLAG = ['--promise-ttl', '--promise-ttl-ms'].find((f) => serveFlags.has(f));
const METRICS_FLAG = serveFlags.has('--metrics');
const FAST_STALL = workerFlags.has('--stalled-interval') && workerFlags.has('--lock-duration');
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
const ANALYSIS = { dataset_id: 'all', analysis_type: 'summary' } as const;
const LONG_ANALYSIS = { dataset_id: 'all', analysis_type: 'comprehensive' } as const;
/** A promise that settles as soon as a worker takes it: a business failure (unknown dataset). */
const QUICK_FAILURE = { dataset_id: 'no_such_dataset', analysis_type: 'summary' } as const;

describe.skipIf(skipReason !== undefined)('scale-out: 3 fronts and 2 workers on Redis behind HAProxy', () => {
  let c: Cluster;
  const rpc = (i: number) => c.fronts[i]!.rpcUrl;
  const lbRpc = () => `${c.lb!.url}/mcp-lite/v1/rpc`;
  const allRpc = () => c.fronts.map((f) => f.rpcUrl);

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
  }, 15_000);

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
  }, 30_000);

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

  it('answers an elicitation asked on one front on another (the signed state, MCP-lite HTTP)', async () => {
    const asked = await callTool(rpc(0), 'subscribe_digest', {});
    const elicitation = asked.body.result?.elicitation;
    expect(elicitation?.state, JSON.stringify(asked.body)).toEqual(expect.any(String));
    const category = elicitation.requested_schema.properties.category.enum[0] as string;
    const answered = await callTool(
      rpc(1),
      'subscribe_digest',
      {},
      {
        elicitation: {
          state: elicitation.state,
          answers: { email: 'a@example.com', frequency: 'weekly', category },
        },
      },
    );
    expect(kindOf(answered), JSON.stringify(answered.body)).toBe('answer');
    expect(answered.body.result!.content).toMatchObject({ subscribed: true, category, frequency: 'weekly' });
  }, 15_000);

  it('serves an MCP session made on one front on the others', async () => {
    const init = await postJson(
      c.fronts[0]!.mcpUrl,
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2025-11-25',
          capabilities: {},
          clientInfo: { name: 'scale-out-test', version: '1.0.0' },
        },
      },
      mcpHeaders(),
    );
    expect(init.status, JSON.stringify(init.body)).toBe(200);
    const session = init.headers.get('mcp-session-id');
    expect(session).toEqual(expect.any(String));
    const initialized = await postJson(
      c.fronts[1]!.mcpUrl,
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      mcpHeaders(session!),
    );
    expect(initialized.status, JSON.stringify(initialized.body)).toBe(202);
    for (const [i, f] of [c.fronts[2]!, c.fronts[1]!, c.fronts[0]!].entries()) {
      const list = await postJson(
        f.mcpUrl,
        { jsonrpc: '2.0', id: 10 + i, method: 'tools/list' },
        mcpHeaders(session!),
      );
      expect(list.status, `${f.name}: ${JSON.stringify(list.body)}`).toBe(200);
      expect(list.body.result.tools.map((t: { name: string }) => t.name)).toContain('echo');
    }
    // A session's own state (its log level) set on one front holds on another.
    const level = await postJson(
      c.fronts[2]!.mcpUrl,
      { jsonrpc: '2.0', id: 20, method: 'logging/setLevel', params: { level: 'debug' } },
      mcpHeaders(session!),
    );
    expect(level.status, JSON.stringify(level.body)).toBe(200);
    // Ended on one front, unknown on all.
    const ended = await fetch(c.fronts[1]!.mcpUrl, {
      method: 'DELETE',
      headers: mcpHeaders(session!),
      signal: AbortSignal.timeout(5000),
    });
    expect(ended.status).toBeLessThan(300);
    for (const f of c.fronts) {
      const gone = await postJson(
        f.mcpUrl,
        { jsonrpc: '2.0', id: 30, method: 'tools/list' },
        mcpHeaders(session!),
      );
      expect(gone.status, f.name).toBe(404);
    }
  }, 20_000);

  /** An MCP session opened on front 1 by a client that declares elicitation. */
  async function elicitingSession(): Promise<string> {
    const init = await postJson(
      c.fronts[0]!.mcpUrl,
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2025-11-25',
          capabilities: { elicitation: {} },
          clientInfo: { name: 'scale-out-test', version: '1.0.0' },
        },
      },
      mcpHeaders(),
    );
    const session = init.headers.get('mcp-session-id');
    expect(session, JSON.stringify(init.body)).toEqual(expect.any(String));
    await postJson(
      c.fronts[0]!.mcpUrl,
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      mcpHeaders(session!),
    );
    return session!;
  }

  /** Starts subscribe_digest on front 1 and reads its POST stream up to the `elicitation/create` request. */
  async function askOnFront1(session: string, id: string) {
    const abort = new AbortController();
    const timer = setTimeout(() => abort.abort(), 10_000);
    const res = await fetch(c.fronts[0]!.mcpUrl, {
      method: 'POST',
      headers: mcpHeaders(session),
      body: JSON.stringify({
        jsonrpc: '2.0',
        id,
        method: 'tools/call',
        params: { name: 'subscribe_digest', arguments: { frequency: 'daily' } },
      }),
      signal: abort.signal,
    });
    clearTimeout(timer);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/text\/event-stream/);
    // One reader for the whole stream: the ask now, the result later.
    const stream = new EventStream(res, abort);
    const events = await stream.until((e) => e.data.includes('"elicitation/create"'));
    const ask = events.find((e) => e.data.includes('"elicitation/create"'));
    expect(ask, `events: ${JSON.stringify(events)}`).toBeDefined();
    expect(ask!.id, 'the stream event has an id to resume from').toEqual(expect.any(String));
    const request = JSON.parse(ask!.data) as { id: string | number; params: { requestedSchema: any } };
    const category = request.params.requestedSchema.properties.category.enum[0] as string;
    return { stream, ask: ask!, request, category };
  }

  /** POSTs the client's answer to an `elicitation/create` to `front`. */
  async function answerOn(front: number, session: string, requestId: string | number, category: string) {
    const answer = await postJson(
      c.fronts[front]!.mcpUrl,
      {
        jsonrpc: '2.0',
        id: requestId,
        result: { action: 'accept', content: { email: 'b@example.com', category } },
      },
      mcpHeaders(session),
    );
    expect(answer.status, JSON.stringify(answer.body)).toBe(202);
  }

  /** Reads a GET /mcp stream with Last-Event-ID on `front` until the result of request `id`. */
  async function resumeOn(front: number, session: string, lastEventId: string, id: string) {
    const abort = new AbortController();
    const resumed = await fetch(c.fronts[front]!.mcpUrl, {
      method: 'GET',
      headers: { ...mcpHeaders(session, 'text/event-stream'), 'last-event-id': lastEventId },
      signal: abort.signal,
    });
    if (resumed.status !== 200)
      expect.fail(`resume on front ${front}: ${resumed.status} ${await resumed.text()}`);
    const replay = await readEvents(resumed, (e) => e.data.includes(`"${id}"`), 10_000, abort);
    abort.abort();
    const result = replay.find((e) => e.data.includes(`"${id}"`));
    expect(result, `replayed: ${JSON.stringify(replay)}`).toBeDefined();
    return JSON.parse(result!.data) as { result?: any; error?: any };
  }

  function expectSubscribed(message: { result?: any; error?: any }, category: string) {
    expect(message.result, JSON.stringify(message)).toBeDefined();
    expect(message.result.structuredContent ?? JSON.parse(message.result.content[0].text)).toMatchObject({
      subscribed: true,
      category,
      frequency: 'daily',
    });
  }

  it('answers an elicitation/create through another front and resumes the stream (Last-Event-ID) on a third', async () => {
    const session = await elicitingSession();
    const asked = await askOnFront1(session, 'sub-1');
    // The answer lands on front 2; the call goes on on front 1 and its result ends front 1's stream.
    await answerOn(1, session, asked.request.id, asked.category);
    const rest = await asked.stream.until((e) => e.data.includes('"id":"sub-1"'));
    asked.stream.close();
    const done = rest.find((e) => e.data.includes('"id":"sub-1"'));
    expect(done, `stream: ${JSON.stringify(rest)}`).toBeDefined();
    expectSubscribed(JSON.parse(done!.data), asked.category);
    // What followed the ask is replayed on front 3.
    expectSubscribed(await resumeOn(2, session, asked.ask.id!, 'sub-1'), asked.category);
  }, 30_000);

  // MCP Streamable HTTP: "Disconnection SHOULD NOT be interpreted as the client cancelling its request", and
  // docs/mcp.md: a dropped POST stream continues on the GET. A client whose connection to the balancer breaks
  // resumes on whichever front it reaches next.
  it('continues a call whose POST stream was dropped, answered and resumed on other fronts', async () => {
    const session = await elicitingSession();
    const asked = await askOnFront1(session, 'sub-2');
    asked.stream.close();
    await sleep(200);
    await answerOn(1, session, asked.request.id, asked.category);
    expectSubscribed(await resumeOn(2, session, asked.ask.id!, 'sub-2'), asked.category);
  }, 30_000);

  it('cancels on one front a promise made on another: the handler stops, every front says cancelled', async () => {
    const stoppedEarly = () =>
      c.workers.reduce((n, w) => n + w.stderr().split('analysis stopped early').length - 1, 0);
    const before = stoppedEarly();
    const token = tokenOf(await callTool(rpc(0), 'analyze_dataset', LONG_ANALYSIS));
    await sleep(700); // a worker has taken the job
    const cancelled = await cancel(rpc(1), token);
    expect(cancelled.body.result?.content, JSON.stringify(cancelled.body)).toMatchObject({
      promise: token,
      cancelled: true,
    });
    // The handler was aborted where it ran (a worker process), not merely marked cancelled.
    await waitFor(() => stoppedEarly() > before, 5000, 'a worker to log "analysis stopped early"');
    // Past the time the analysis would have taken: it never settled as an answer.
    await sleep(2500);
    for (const url of allRpc()) {
      const r = await redeem(url, token);
      const failure = r.body.result?.failure;
      const said = failure?.code ?? r.body.error?.code;
      expect(said === 'cancelled' || said === -32800, JSON.stringify(r.body)).toBe(true);
    }
  }, 20_000);

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
        await sleep(2500);
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

  it(
    'finishes on another worker a job whose worker is killed -9 mid-run, settled once',
    async () => {
      // Only worker 1 runs: the job is surely its.
      await c.workers[1]!.kill('SIGTERM');
      const token = tokenOf(await callTool(lbRpc(), 'analyze_dataset', LONG_ANALYSIS));
      await sleep(800);
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
  }, 45_000);

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

describe.skipIf(skipReason !== undefined)('scale-out: Redis killed and restarted mid-run', () => {
  let redis: RedisServer;
  let c: Cluster;

  beforeAll(async () => {
    // A private Redis of this test's own: never the shared one.
    redis = await new RedisServer(await freePort()).start();
    c = await startCluster({ redisUrl: redis.url, fronts: 1, workers: 0, frontsWork: true });
  }, 45_000);

  afterAll(async () => {
    await c?.stop();
    await redis?.kill();
    await stopAll();
  }, 30_000);

  it('refuses to start with --redis and no MCPLITE_SECRET (exit 2)', async () => {
    const { spawnProcess } = await import('./support/scale-cluster.js');
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
  }, 15_000);

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
