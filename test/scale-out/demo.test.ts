/**
 * `npm run scale-demo` as docs/scale-out.md tells a newcomer to use it: the script (scripts/scale-demo.mjs) starts three
 * fronts, a worker and HAProxy on the shared Redis, prints where the balancer is, serves a promise made through the
 * balancer and redeemed through it (so on another front), and on Ctrl-C (SIGINT) stops everything and deletes its
 * keys. `--help` prints the usage and starts nothing. Needs Redis at REDIS_URL, HAProxy and the built CLI
 * (dist/src/cli/main.js); skipped with a warning without Redis or HAProxy.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import {
  callTool,
  HAPROXY,
  kindOf,
  type Proc,
  ROOT,
  redeemSettled,
  spawnProcess,
  stopProcess,
  tokenOf,
  waitForOutput,
} from '../support/scale-cluster.js';

const REDIS_URL = process.env.REDIS_URL;
const missing = !REDIS_URL ? 'REDIS_URL is not set' : !existsSync(HAPROXY) ? `${HAPROXY} is missing` : '';
if (missing) console.warn(`SKIPPED test/scale-out/demo.test.ts: ${missing}`);
const DEMO = join(ROOT, 'scripts/scale-demo.mjs');

describe.skipIf(missing !== '')('npm run scale-demo', () => {
  let demo: Proc | undefined;
  // Ctrl-C as a user would: the demo stops its own replicas (they run detached from it), then SIGKILL.
  afterAll(() => stopProcess(demo, 'SIGINT', 15_000));

  it('prints its usage for --help and starts nothing', async () => {
    const help = spawnProcess('scale-demo-help', process.execPath, [DEMO, '--help']);
    expect(await help.exited).toBe(0);
    expect(help.stdout()).toContain('Usage: npm run scale-demo');
    expect(help.stdout()).not.toContain('load balancer');
  });

  it('serves a promise through its balancer across fronts, and cleans up on Ctrl-C', async () => {
    demo = spawnProcess('scale-demo', process.execPath, [DEMO], { env: { REDIS_URL: REDIS_URL! } });
    await waitForOutput(demo, /Ctrl-C stops everything\./, 60_000);
    const out = demo.stdout();
    const lb = /load balancer \(HAProxy, round-robin\)\s+(http:\/\/\S+\/mcp-lite\/v1\/)/.exec(out)?.[1];
    const prefix = /key prefix (\S+:)/.exec(out)?.[1];
    expect(lb, out).toBeDefined();
    expect(prefix, out).toMatch(/^mcplite-demo-\d+:$/);
    expect((out.match(/^ {2}front\d \(pid \d+\)/gm) ?? []).length, out).toBe(3);

    // As the printed curl lines do: a long-running call answered with a promise, redeemed through the balancer.
    const rpc = `${lb}rpc`;
    const made = await callTool(rpc, 'analyze_dataset', { dataset_id: 'all', analysis_type: 'summary' });
    const token = tokenOf(made);
    const settled = await redeemSettled([rpc], token, 30_000);
    expect(kindOf(settled), JSON.stringify(settled.body)).toBe('answer');
    const echo = await callTool(rpc, 'echo', { message: 'through the balancer' });
    expect(echo.body.result?.content, JSON.stringify(echo.body)).toEqual({
      message: 'through the balancer',
      repeat: 1,
    });

    const redis = new Redis(REDIS_URL!);
    try {
      expect((await redis.keys(`${prefix}*`)).length).toBeGreaterThan(0);
      demo.child.kill('SIGINT');
      expect(await demo.exited).toBe(0);
      expect(demo.stdout()).toContain('scale-demo: stopping');
      expect(await redis.keys(`${prefix}*`)).toEqual([]);
    } finally {
      redis.disconnect();
    }
  }, 90_000);
});
