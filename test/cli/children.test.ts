/**
 * Issue 22, item 8: the CLI as a newcomer meets it, on a terminal (tmux) and through pipes. `redeem` and `cancel`
 * say `<target> <token>` as they take it; `--timeout` covers connecting; a stdio server the CLI spawned never
 * outlives it (timeout, error, Ctrl-C, SIGTERM, normal exit), checked by its pid; a tools module given as a target
 * points at `mcplite serve`. The server is `support/unruly-stdio-server.mjs --stubborn`, which ignores the end of
 * its stdin, SIGTERM, SIGHUP and SIGINT, so only SIGKILL ends it.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createServer } from '../../src/index.js';
import { type RunningServer, serve } from '../../src/node.js';
import { children, MAIN, ROOT, run } from '../support/cli-process.js';
import { clientTools } from '../support/client-fixture.js';

const SERVER = join(ROOT, 'test/support/unruly-stdio-server.mjs');
const dir = mkdtempSync(join(tmpdir(), 'mcplite-children-'));
let files = 0;

/** A fresh pid file, and the command line of a stubborn server that writes its pid there. */
function stubborn(...flags: string[]): { pidFile: string; target: string } {
  const pidFile = join(dir, `pid-${files++}`);
  return {
    pidFile,
    target: `${process.execPath} ${SERVER} --stubborn --pid-file ${pidFile} ${flags.join(' ')}`.trim(),
  };
}

function pidIn(file: string): number | undefined {
  try {
    const pid = Number(readFileSync(file, 'utf8').trim().split('\n')[0]);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/** Whether a process runs (a zombie does not: it is gone, waiting to be reaped). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

afterEach(() => {
  for (const child of children) child.kill('SIGKILL');
});
// A failed test may leave a stubborn server behind (a CLI killed with SIGKILL cannot end it): end them here.
afterAll(() => {
  for (const file of readdirSync(dir).filter((f) => f.startsWith('pid-'))) {
    const pid = pidIn(join(dir, file));
    try {
      if (pid) process.kill(pid, 'SIGKILL');
    } catch {
      // Gone, as it should be.
    }
  }
});

/** Expects the server whose pid is in `file` to be gone within a few seconds of the CLI's exit. */
async function expectGone(file: string): Promise<void> {
  const pid = pidIn(file);
  expect(pid).toBeDefined();
  await expect.poll(() => alive(pid!), { timeout: 5_000, interval: 100 }).toBe(false);
}

describe('the child processes of the CLI, through pipes', { timeout: 90_000 }, () => {
  it('a server that never speaks fails after --timeout, with a clear line, and is ended', async () => {
    const { pidFile, target } = stubborn('--mute');
    const started = Date.now();
    // Long enough for the server to start (and write its pid) on a loaded machine: it must be there to be ended.
    const cli = run(['tools', target, '--timeout', '5000']);
    expect(await cli.exited).toBe(1);
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(cli.stderr()).toBe(
      `mcplite: ${target} did not answer within 5000 ms (--timeout) while connecting\n`,
    );
    await expectGone(pidFile);
  });

  it('SIGTERM while connecting ends the CLI and its server', async () => {
    const { pidFile, target } = stubborn('--mute');
    const cli = run(['tools', target]);
    await expect.poll(() => pidIn(pidFile), { timeout: 20_000, interval: 100 }).toBeDefined();
    cli.child.kill('SIGTERM');
    expect(await cli.exited).toBe(1);
    expect(cli.stderr()).toMatch(/^mcplite: Interrupted \(SIGTERM\)\n$/);
    await expectGone(pidFile);
  });

  it('a normal exit and an error exit end the server too', async () => {
    const ok = stubborn();
    const answered = run(['call', ok.target, 'echo', 'message=hi']);
    expect(await answered.exited).toBe(0);
    expect(answered.stdout()).toBe('hi\n');
    await expectGone(ok.pidFile);
    const bad = stubborn();
    const failed = run(['call', bad.target, 'boom']);
    expect(await failed.exited).toBe(1);
    await expectGone(bad.pidFile);
  });

  it('a tools module as the target points at `mcplite serve`', async () => {
    for (const module of ['./tools.js', 'tools.ts', 'examples/demo/tools.ts']) {
      const cli = run(['tools', module]);
      expect(await cli.exited).toBe(2);
      expect(cli.stderr()).toBe(
        `mcplite: ${module} is a tools module, not a server: serve it with "mcplite serve ${module}" and give its URL (http://127.0.0.1:3000/mcp-lite/v1/), or run it over stdio with "mcplite serve --stdio ${module}" as the command line\n`,
      );
    }
  });
});

const hasTmux = (() => {
  try {
    execFileSync('tmux', ['-V']);
    return true;
  } catch {
    return false;
  }
})();

describe.skipIf(!hasTmux)('the CLI on a terminal (tmux)', () => {
  const session = `mcplite-children-${process.pid}`;
  const tmux = (...args: string[]) => execFileSync('tmux', args, { encoding: 'utf8' });
  const screen = () => tmux('capture-pane', '-p', '-J', '-t', session, '-S', '-200');
  let running: RunningServer;
  beforeAll(async () => {
    running = await serve(createServer({ name: 'children', version: '1.0.0', tools: clientTools }), {
      port: 0,
    });
  });
  afterAll(async () => {
    try {
      tmux('kill-session', '-t', session);
    } catch {
      // Already gone.
    }
    await running?.close(200);
  });

  it('help shows <target> <token> as redeem and cancel take them; following it works; Ctrl-C ends the server; --timeout covers connecting', async () => {
    const lite = `${running.url}/mcp-lite/v1/`;
    const cmd = `${process.execPath} --import tsx ${MAIN}`;
    const mute = stubborn('--mute');
    const slow = stubborn('--mute');
    const script = join(dir, 'term.sh');
    const step = join(dir, 'step');
    writeFileSync(
      script,
      [
        `cd ${ROOT}`,
        `${cmd} redeem --help | head -1`,
        `${cmd} cancel --help | head -1`,
        `TOKEN=$(${cmd} call ${lite} slow_job ms=60000 --no-redeem)`,
        // As the help says: the target, then the token.
        `${cmd} cancel ${lite} "$TOKEN"; echo "cancel-exit=$?"`,
        `${cmd} tools "${mute.target}"; echo "sigint-exit=$?"`,
        `${cmd} tools "${slow.target}" --timeout 5000; echo "timeout-exit=$?" > ${step}`,
        'sleep 60',
      ].join('\n'),
    );
    tmux('new-session', '-d', '-s', session, '-x', '250', '-y', '50', `bash ${script}`);
    await expect
      .poll(screen, { timeout: 30_000, interval: 200 })
      .toMatch(
        /Usage: mcplite redeem \[options\] <target> <token>\nUsage: mcplite cancel \[options\] <target> <token>/,
      );
    await expect
      .poll(screen, { timeout: 60_000, interval: 200 })
      .toMatch(/cancelled \(status: cancelled\)\ncancel-exit=0/);
    // The stubborn server has started and never answers: Ctrl-C ends the command and the server.
    await expect.poll(() => pidIn(mute.pidFile), { timeout: 30_000, interval: 100 }).toBeDefined();
    tmux('send-keys', '-t', session, 'C-c');
    await expect
      .poll(screen, { timeout: 20_000, interval: 200 })
      .toMatch(/mcplite: Interrupted \(SIGINT\)\nsigint-exit=1/);
    await expectGone(mute.pidFile);
    // --timeout covers connecting: one clear line, and the server is ended.
    await expect.poll(() => readSafe(step), { timeout: 30_000, interval: 200 }).toBe('timeout-exit=1\n');
    expect(screen()).toContain('did not answer within 5000 ms (--timeout) while connecting');
    await expectGone(slow.pidFile);
  }, 120_000);
});

function readSafe(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}
