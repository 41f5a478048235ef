/**
 * `mcplite serve --cluster <n>` (issue 10, operations): workers sharing the HTTP and gRPC ports through
 * node:cluster, told apart by the pid in `/healthz`; a worker killed with -9 is replaced; SIGTERM to the primary
 * stops every worker and exits 0; `--cluster` without `--redis` is refused. The supervision is tested through a
 * small fixture (test/support/cluster-fixture.ts) that needs no Redis; the CLI end to end needs REDIS_URL.
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { type AddressInfo, createServer } from 'node:net';
import { afterEach, describe, expect, it, onTestFinished } from 'vitest';
import { type Cli, children, ROOT, run, runCommand } from '../support/cli-process.js';
import { makeClient, unary } from '../support/grpc-client.js';
import { deletePrefix } from '../support/scale-cluster.js';

afterEach(() => {
  for (const child of children) child.kill('SIGKILL');
  children.clear();
});

const WORKER = /^worker (\d+) listening on (http:\/\/[^ ]+) grpc (\S+)$/gm;

/** Resolves once `count` worker lines have been printed: their pids, the HTTP URL and the gRPC address. */
async function workers(cli: Cli, count: number): Promise<{ pids: number[]; url: string; grpc: string }> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const lines = [...cli.stdout().matchAll(WORKER)];
    if (lines.length >= count) {
      return { pids: lines.map((m) => Number(m[1])), url: lines[0]![2]!, grpc: lines[0]![3]! };
    }
    if (Date.now() > deadline) throw new Error(`no ${count} workers:\n${cli.stdout()}\n${cli.stderr()}`);
    if (cli.child.exitCode !== null) throw new Error(`exited:\n${cli.stdout()}\n${cli.stderr()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The pids answering `/healthz` over `tries` fresh connections (the primary deals them round-robin). */
async function healthPids(url: string, tries = 8): Promise<Set<number>> {
  const pids = new Set<number>();
  for (let i = 0; i < tries; i++) {
    const res = await fetch(`${url}/healthz`, { headers: { connection: 'close' } });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { status: string; pid: number };
    expect(body.status).toBe('ok');
    pids.add(body.pid);
  }
  return pids;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function gone(pids: number[], withinMs = 5000): Promise<boolean> {
  const deadline = Date.now() + withinMs;
  while (pids.some(alive) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  return !pids.some(alive);
}

describe('cluster supervision (fixture, no Redis)', () => {
  it('two workers share the HTTP and gRPC ports; a killed worker is replaced; SIGTERM stops all, exit 0', async () => {
    const cli = runCommand(process.execPath, [
      '--import',
      'tsx',
      'test/support/cluster-fixture.ts',
      '0',
      '0',
      '2',
    ]);
    const started = await workers(cli, 2);
    expect(new Set(started.pids).size).toBe(2);
    // Every worker listened on the same ports.
    const lines = [...cli.stdout().matchAll(WORKER)];
    expect(new Set(lines.map((m) => `${m[2]} ${m[3]}`)).size).toBe(1);
    expect(await healthPids(started.url)).toEqual(new Set(started.pids));

    // gRPC through the shared port, from fresh connections (each lands on a worker).
    for (let i = 0; i < 4; i++) {
      const client = makeClient(started.grpc, 'full');
      try {
        const { response, error } = await unary(client, 'GetTools', {});
        expect(error).toBeUndefined();
        expect(response.tools.map((t: { name: string }) => t.name)).toContain('echo');
      } finally {
        client.close();
      }
    }

    // A worker killed with -9 is replaced by a new one on the same port.
    process.kill(started.pids[0]!, 'SIGKILL');
    const after = await workers(cli, 3);
    const replacement = after.pids[2]!;
    expect(started.pids).not.toContain(replacement);
    const deadline = Date.now() + 5000;
    let seen = new Set<number>();
    while (Date.now() < deadline) {
      seen = await healthPids(started.url, 4);
      if (seen.has(replacement) && seen.has(started.pids[1]!)) break;
    }
    expect(seen).toEqual(new Set([replacement, started.pids[1]!]));

    cli.child.kill('SIGTERM');
    expect(await cli.exited).toBe(0);
    expect(await gone([replacement, started.pids[1]!])).toBe(true);
  });

  it('--metrics: a scrape of any worker shows the whole cluster (summed by the primary)', async () => {
    const cli = runCommand(process.execPath, [
      '--import',
      'tsx',
      'test/support/cluster-fixture.ts',
      '0',
      'off',
      '2',
      'metrics',
    ]);
    const { url } = await workers(cli, 2);
    const calls = 6;
    for (let i = 0; i < calls; i++) {
      const res = await fetch(`${url}/mcp-lite/v1/rpc`, {
        method: 'POST',
        headers: { connection: 'close', 'content-type': 'application/json' },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: i,
          method: 'tools/call',
          params: { name: 'echo', arguments: { message: 'c' } },
        }),
      });
      expect(res.status).toBe(200);
    }
    expect((await healthPids(url, 4)).size).toBe(2);
    const line = /^mcplite_tool_calls_total\{tool="echo",binding="http",outcome="answer"\} (\d+)$/m;
    // Whichever worker takes the scrape, the count is the cluster's.
    for (let i = 0; i < 3; i++) {
      const res = await fetch(`${url}/metrics`, { headers: { connection: 'close' } });
      expect(res.status).toBe(200);
      const text = await res.text();
      expect(line.exec(text)?.[1], text).toBe(String(calls));
      // Read from the shared queue by every worker: the maximum, not the sum.
      expect(text).toMatch(/^mcplite_queue_waiting 0$/m);
    }
    cli.child.kill('SIGTERM');
    expect(await cli.exited).toBe(0);
  });

  it('Ctrl-C (SIGINT to the whole process group) stops each worker once, gracefully: exit 0', async () => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', 'test/support/cluster-fixture.ts', '0', '0', '2'],
      {
        cwd: ROOT,
        detached: true, // its own process group, as a terminal's foreground job
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    children.add(child);
    let out = '';
    let err = '';
    child.stdout!.setEncoding('utf8').on('data', (c: string) => {
      out += c;
    });
    child.stderr!.setEncoding('utf8').on('data', (c: string) => {
      err += c;
    });
    const exited = new Promise<number | string>((resolve) =>
      child.on('exit', (code, signal) => resolve(code ?? signal ?? 'unknown')),
    );
    const cli = { child, stdout: () => out, stderr: () => err, exited } as unknown as Cli;
    const { pids } = await workers(cli, 2);
    process.kill(-child.pid!, 'SIGINT');
    expect(await exited, err).toBe(0);
    expect(await gone(pids)).toBe(true);
    expect(err).not.toMatch(/second signal/);
  });

  it('workers that keep dying: restarted with a backoff, then the primary gives up (exit 1)', async () => {
    const cli = runCommand(process.execPath, [
      '--import',
      'tsx',
      'test/support/cluster-fixture.ts',
      '0',
      'off',
      '1',
      'crash',
    ]);
    expect(await cli.exited).toBe(1);
    // The fixture allows 3 restarts within its window: 4 workers in all.
    expect([...cli.stdout().matchAll(WORKER)]).toHaveLength(4);
    expect(cli.stderr()).toMatch(/cluster workers died 4 times within 600000 ms; stopping/);
  });

  it('a worker that cannot start stops the cluster with a clear message and a failure code', async () => {
    // A port taken by someone else: every worker would fail the same way, so none is restarted.
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = taken.address() as AddressInfo;
      const cli = runCommand(process.execPath, [
        '--import',
        'tsx',
        'test/support/cluster-fixture.ts',
        String(port),
        'off',
        '2',
      ]);
      expect(await cli.exited).toBe(1);
      expect(cli.stderr()).toMatch(/cluster worker exited \(code 1\) before serving; stopping/);
    } finally {
      taken.close();
    }
  });
});

describe('mcplite serve --cluster', () => {
  it('refuses without --redis (state would not be shared)', async () => {
    const cli = run(['serve', '--demo', '--cluster', '2', '--port', '0', '--grpc-port', 'off']);
    expect(await cli.exited).toBe(2);
    expect(cli.stderr()).toMatch(/--cluster needs --redis <url>/);
  });

  const redis = process.env.REDIS_URL;
  it.skipIf(!redis)(
    `serves listtools from 2 workers on one port and exits 0 on SIGTERM${redis ? '' : ' (skipped: REDIS_URL is not set)'}`,
    async () => {
      // A prefix of this run, its keys deleted at the end: the shared Redis keeps nothing of the test.
      const prefix = `mcplite-cluster-test-${randomUUID()}:`;
      onTestFinished(() => deletePrefix(redis!, prefix));
      const cli = run(
        [
          'serve',
          '--demo',
          '--cluster',
          '2',
          '--redis',
          redis!,
          '--redis-prefix',
          prefix,
          '--port',
          '0',
          '--grpc-port',
          '0',
          '--log-level',
          'warn',
        ],
        { MCPLITE_SECRET: 's'.repeat(48) },
      );
      const deadline = Date.now() + 20_000;
      let lines: RegExpMatchArray[] = [];
      while (Date.now() < deadline) {
        lines = [
          ...cli.stdout().matchAll(/^mcplite listening on (http:\/\/127\.0\.0\.1:\d+)\/mcp-lite\/v1\/$/gm),
        ];
        if (lines.length >= 2 || cli.child.exitCode !== null) break;
        await new Promise((r) => setTimeout(r, 50));
      }
      expect(lines.length, `${cli.stdout()}\n${cli.stderr()}`).toBe(2);
      const url = lines[0]![1]!;
      expect(lines[1]![1]).toBe(url);
      for (let i = 0; i < 4; i++) {
        const res = await fetch(`${url}/mcp-lite/v1/listtools`, {
          method: 'POST',
          headers: { connection: 'close', 'content-type': 'application/json' },
          body: '{}',
        });
        expect(res.status).toBe(200);
        const body = (await res.json()) as { tools: Array<{ name: string }> };
        expect(body.tools.map((t) => t.name)).toContain('echo');
      }
      const pids = await healthPids(url);
      expect(pids.size).toBe(2);
      cli.child.kill('SIGTERM');
      expect(await cli.exited).toBe(0);
      expect(await gone([...pids])).toBe(true);
    },
  );
});
