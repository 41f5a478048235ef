/**
 * Issue 22, item 13: the gateway (`mcplite proxy`, run as a real process) heals. Its upstream is a real stdio
 * MCP server (`support/unruly-stdio-server.mjs`) that is killed mid-run, or sends one message past the client's
 * bound: the proxy restarts it with backoff; while it is down, calls fail at once with `unavailable` naming it and
 * `/readyz` is 503 with its state; once it is back, calls are answered again. An upstream tool name the gateway
 * cannot serve is one log line, not a stack trace; stopping the proxy ends the upstream's process.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Client, connect, McpLiteError } from '../../src/client/index.js';
import { upstreamLabel } from '../../src/gateway/upstream.js';
import { type Cli, logLine, ROOT, run } from '../support/cli-process.js';

const SERVER = join(ROOT, 'test/support/unruly-stdio-server.mjs');
const dir = mkdtempSync(join(tmpdir(), 'mcplite-heal-'));
const pidFile = join(dir, 'pids');
const downFile = join(dir, 'down');
const UPSTREAM = `${process.execPath} ${SERVER} --pid-file ${pidFile} --down-file ${downFile}`;

/** Whether a process runs (a zombie does not). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

function upstreamPids(): number[] {
  return existsSync(pidFile)
    ? readFileSync(pidFile, 'utf8').trim().split('\n').filter(Boolean).map(Number)
    : [];
}

async function readyz(base: string): Promise<{ status: number; body: { status: string; reason?: string } }> {
  const res = await fetch(new URL('/readyz', base));
  return { status: res.status, body: (await res.json()) as { status: string; reason?: string } };
}

async function pidOf(client: Client): Promise<number> {
  const outcome = await client.call('pid');
  if (outcome.type !== 'answer') throw new Error(`pid: ${JSON.stringify(outcome)}`);
  return Number(outcome.value);
}

/** The error a call ends in (or undefined when it is answered), and how long it took. */
async function failureOf(client: Client, tool: string): Promise<{ error?: McpLiteError; ms: number }> {
  const started = Date.now();
  try {
    await client.call(tool, { message: 'x' });
    return { ms: Date.now() - started };
  } catch (err) {
    return { error: err as McpLiteError, ms: Date.now() - started };
  }
}

describe('mcplite proxy heals its upstream', { timeout: 120_000 }, () => {
  let proxy: Cli;
  let base: string;
  let client: Client;

  beforeAll(async () => {
    proxy = run(['proxy', UPSTREAM, '--port', '0', '--grpc-port', 'off', '--answer-budget', '5000']);
    const line = await logLine(proxy, (e) => e.msg === 'proxy listening');
    base = String(line.url);
    client = await connect(base);
  }, 60_000);

  afterAll(async () => {
    await client?.close();
    if (proxy && proxy.child.exitCode === null) {
      proxy.child.kill('SIGKILL');
      await proxy.exited;
    }
    for (const pid of upstreamPids()) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // Gone.
      }
    }
  });

  it('serves the tools it can, and says in one line each why it refused the others', async () => {
    const names = (await client.listTools()).map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['pid', 'echo', 'hostile', 'huge']));
    expect(names).not.toContain('bad name');
    const refusals = proxy
      .stderr()
      .split('\n')
      .filter((l) => l.includes('upstream tool refused'));
    expect(refusals).toHaveLength(2);
    expect(refusals.map((l) => JSON.parse(l).tool)).toEqual(['paint\u001b[2J\u001b[H', 'bad name']);
    expect(JSON.parse(refusals[1]!).reason).toMatch(/^Invalid tool name "bad name"/);
    // JSON log lines: the escape in the refused name is written escaped, and there is no stack anywhere.
    expect(proxy.stderr()).not.toContain('\u001b');
    expect(proxy.stderr()).not.toMatch(/\n\s+at /);
  });

  it('a killed upstream: /readyz 503 with its state, calls fail fast naming it, then it is restarted', async () => {
    const first = await pidOf(client);
    expect((await readyz(base)).status).toBe(200);
    // It will not come back until the file is gone.
    writeFileSync(downFile, '');
    process.kill(first, 'SIGKILL');
    await expect.poll(async () => (await readyz(base)).status, { timeout: 10_000, interval: 100 }).toBe(503);
    const down = await readyz(base);
    expect(down.body.status).toBe('unavailable');
    expect(down.body.reason).toMatch(/^upstream reconnecting \(.*\): \S*node \S*unruly-stdio-server\.mjs/);
    const refused = await failureOf(client, 'echo');
    expect(refused.error).toBeInstanceOf(McpLiteError);
    expect(refused.error!.code).toBe('unavailable');
    expect(refused.error!.message).toMatch(
      /^Upstream \S*node \S*unruly-stdio-server\.mjs .* is unavailable: reconnecting/,
    );
    expect(refused.ms).toBeLessThan(2_000);
    // The proxy kept trying (with backoff): the attempts show on /readyz.
    await expect
      .poll(async () => (await readyz(base)).body.reason ?? '', { timeout: 10_000, interval: 200 })
      .toMatch(/after \d+ failed attempts?/);
    rmSync(downFile);
    await expect.poll(async () => (await readyz(base)).status, { timeout: 40_000, interval: 200 }).toBe(200);
    const second = await pidOf(client);
    expect(second).not.toBe(first);
    expect(alive(first)).toBe(false);
    expect(await client.call('echo', { message: 'back' })).toMatchObject({ type: 'answer', value: 'back' });
    expect(proxy.stderr()).toContain('upstream down, reconnecting');
    expect(proxy.stderr()).toContain('upstream reconnected');
  });

  it('an upstream that sends one oversized message is reconnected, and calls are answered again', async () => {
    const before = await pidOf(client);
    const huge = await failureOf(client, 'huge');
    expect(huge.error).toBeInstanceOf(McpLiteError);
    await expect
      .poll(async () => (await failureOf(client, 'echo')).error?.code ?? 'answered', {
        timeout: 40_000,
        interval: 200,
      })
      .toBe('answered');
    expect(await pidOf(client)).not.toBe(before);
    expect((await readyz(base)).status).toBe(200);
  });

  it('stopping the proxy ends its upstream', async () => {
    const current = await pidOf(client);
    expect(alive(current)).toBe(true);
    proxy.child.kill('SIGTERM');
    expect(await proxy.exited).toBe(0);
    await expect.poll(() => alive(current), { timeout: 10_000, interval: 100 }).toBe(false);
  });
});

describe('the upstream as errors, /readyz and the log name it', () => {
  it('shows no credentials: no URL user, password or query, no secret-looking option values', () => {
    expect(upstreamLabel('https://user:pw@example.com:8443/mcp?api_key=1#x')).toBe(
      'https://example.com:8443/mcp',
    );
    expect(
      upstreamLabel('npx -y some-server --api-key sk-123 --port 3 GITHUB_TOKEN=ghp_1 --auth=basic'),
    ).toBe('npx -y some-server --api-key *** --port 3 GITHUB_TOKEN=*** --auth=***');
  });
});
