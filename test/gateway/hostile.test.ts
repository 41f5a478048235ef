/**
 * Issue 28: a hostile upstream leaves the gateway bounded and serving. `mcplite proxy --config`, a real process,
 * fronts a hand-written stdio server (`support/hostile-stdio-server.mjs`) that lists thousands of tools, answers
 * one giant message, writes lines that are not JSON, and floods notifications without end, beside a well-behaved
 * mcplite server over MCP-lite HTTP. The gateway takes at most `maxTools` of the hostile tools, cuts the giant
 * answer at `maxResponseBytes`, ends the flooding call at its timeout, keeps its memory bounded, and answers the
 * other server's calls throughout.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Client, connect } from '../../src/client/index.js';
import { createServer } from '../../src/create-server.js';
import { type RunningServer, serve } from '../../src/serve.js';
import { type Cli, logLine, ROOT, run } from '../support/cli-process.js';

/** The resident memory of a process, in MiB. */
function rssMiB(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith('VmRSS:'))!;
  return Number(/(\d+)/.exec(line)![1]) / 1024;
}

async function errorOf(client: Client, tool: string): Promise<{ code: string } | undefined> {
  try {
    const outcome = await client.call(tool, {});
    return outcome.type === 'answer' ? undefined : { code: outcome.type };
  } catch (err) {
    return err as { code: string };
  }
}

describe('a hostile upstream behind the gateway', { timeout: 120_000 }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'mcplite-gateway-hostile-'));
  let good: RunningServer;
  let proxy: Cli;
  let client: Client;

  beforeAll(async () => {
    good = await serve(
      createServer({
        name: 'good',
        tools: [{ name: 'ping', description: 'Answers pong', handler: () => 'pong' }],
      }),
      { port: 0, grpcPort: false },
    );
    const config = {
      mcpServers: {
        hostile: {
          command: process.execPath,
          args: [join(ROOT, 'test/support/hostile-stdio-server.mjs'), '--tools', '5000'],
          maxTools: 100,
          maxResponseBytes: 1024 * 1024,
          timeout: 3000,
        },
        good: { target: `${good.url}/mcp-lite/v1/` },
      },
    };
    writeFileSync(join(dir, 'gateway.json'), JSON.stringify(config));
    proxy = run([
      'proxy',
      '--config',
      join(dir, 'gateway.json'),
      '--port',
      '0',
      '--grpc-port',
      'off',
      '--answer-budget',
      '10000',
    ]);
    const line = await logLine(proxy, (e) => e.msg === 'proxy listening');
    client = await connect(String(line.url));
  }, 60_000);

  afterAll(async () => {
    await client?.close();
    if (proxy && proxy.child.exitCode === null) {
      proxy.child.kill('SIGKILL');
      await proxy.exited;
    }
    await good?.close(200);
    rmSync(dir, { recursive: true, force: true });
  });

  const pong = async () => {
    const started = Date.now();
    expect(await client.call('good_ping')).toMatchObject({ type: 'answer', value: 'pong' });
    return Date.now() - started;
  };

  it('takes at most maxTools of thousands, and says so in the log', async () => {
    const names = (await client.listTools()).map((t) => t.name);
    expect(names.filter((n) => n.startsWith('hostile_'))).toHaveLength(100);
    expect(names).toEqual(expect.arrayContaining(['hostile_ok', 'hostile_giant', 'good_ping']));
    const truncated = await logLine(proxy, (e) => e.msg === 'upstream tools truncated');
    expect(truncated).toMatchObject({ server: 'hostile', listed: 5006, kept: 100 });
  });

  it('cuts a giant answer at maxResponseBytes; the upstream comes back and the others never stop', async () => {
    const error = await errorOf(client, 'hostile_giant');
    expect(['payload_too_large', 'unavailable']).toContain(error?.code);
    await pong();
    await expect
      .poll(async () => (await errorOf(client, 'hostile_ok'))?.code ?? 'answered', {
        timeout: 30_000,
        interval: 200,
      })
      .toBe('answered');
  });

  it('survives lines that are not JSON', async () => {
    await errorOf(client, 'hostile_garbage');
    await pong();
    await expect
      .poll(async () => (await errorOf(client, 'hostile_ok'))?.code ?? 'answered', {
        timeout: 30_000,
        interval: 200,
      })
      .toBe('answered');
  });

  it('a storm of list_changed: the gateway lists again a few times, not per notification, and answers throughout', async () => {
    const count = async () => {
      const outcome = await client.call('hostile_listings');
      return Number((outcome as { value: unknown }).value);
    };
    const before = await count();
    expect(await client.call('hostile_storm')).toMatchObject({ type: 'answer', value: 'stormed' });
    for (let i = 0; i < 5; i++) await pong();
    const listings = (await count()) - before;
    expect(listings).toBeGreaterThanOrEqual(1);
    // Some 400 notifications over 2 s: at most 2 listings per second are counted (test/gateway/fairness.test.ts
    // holds the exact bound), far fewer than one per notification however slow the machine.
    expect(listings).toBeLessThan(40);
  });

  it('an endless flood of notifications: the call ends at its timeout, memory stays bounded, others answer', async () => {
    const before = rssMiB(proxy.child.pid!);
    const flooding = errorOf(client, 'hostile_flood');
    const latencies: number[] = [];
    for (let i = 0; i < 10; i++) {
      latencies.push(await pong());
      await new Promise((r) => setTimeout(r, 200));
    }
    const error = await flooding;
    expect(error?.code).toBe('deadline_exceeded');
    // The flood goes on (the upstream never stops): the gateway still answers, in bounded memory.
    for (let i = 0; i < 5; i++) latencies.push(await pong());
    expect(Math.max(...latencies)).toBeLessThan(5_000);
    expect(rssMiB(proxy.child.pid!)).toBeLessThan(before + 200);
    expect(proxy.child.exitCode).toBeNull();
  });
});
