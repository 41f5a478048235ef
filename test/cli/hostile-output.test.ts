/**
 * Issue 22, item 14: what a server sends is shown, never obeyed. A real stdio MCP server
 * (`support/unruly-stdio-server.mjs`) puts ESC/BEL sequences (clear screen, OSC 0 retitle, OSC 52 clipboard, a
 * carriage return forging a line, C1 CSI) in its tool names, descriptions, schema, results, failures and errors;
 * the CLI prints them escaped for a person (through a pipe and on a terminal under tmux), and raw with `--json`.
 */
import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { MAIN, ROOT } from '../support/cli-process.js';

const run = promisify(execFile);
const UNRULY = `${process.execPath} ${join(ROOT, 'test/support/unruly-stdio-server.mjs')}`;
const ESC = '\u001b';
const BEL = '\u0007';
const CLIPBOARD = `${ESC}]52;c;cHduZWQ=${BEL}`;
const TITLE = `${ESC}]0;pwned-title${BEL}`;
const CLEAR = `${ESC}[2J${ESC}[H`;
// biome-ignore lint/suspicious/noControlCharactersInRegex: raw control characters are what must not appear.
const RAW = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

async function cli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, ['--import', 'tsx', MAIN, ...args], {
      cwd: ROOT,
      env: { ...process.env, NO_COLOR: '' },
    });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

describe('a server that sends terminal escapes, through a pipe', { timeout: 90_000 }, () => {
  it('tools: names, descriptions and parameters escaped; --json keeps them raw', async () => {
    const table = await cli('tools', UNRULY);
    expect(table.code).toBe(0);
    expect(table.stdout).not.toMatch(RAW);
    expect(table.stdout).toContain('paint\\x1b[2J\\x1b[H');
    expect(table.stdout).toContain(
      '\\x1b]52;c;cHduZWQ=\\x07\\x1b]0;pwned-title\\x07harmless\\x9b2J\\x0droot# forged line',
    );
    expect(table.stdout).toContain('p\\x1b[31m?: string\\x07');
    const json = await cli('tools', UNRULY, '--json');
    const tools = JSON.parse(json.stdout).tools as Array<{ name: string; description: string }>;
    expect(tools.find((t) => t.name.startsWith('paint'))).toMatchObject({
      name: `paint${CLEAR}`,
      description: `${CLIPBOARD}${TITLE}harmless\u009b2J\rroot# forged line`,
    });
  });

  it('call: a result, a failure and an error escaped; --json keeps the result raw', async () => {
    const answer = await cli('call', UNRULY, 'hostile');
    expect(answer.code).toBe(0);
    expect(answer.stdout).not.toMatch(RAW);
    expect(answer.stdout).toBe(
      '\\x1b]52;c;cHduZWQ=\\x07\\x1b[2J\\x1b[H\\x1b]0;pwned-title\\x07owned\\x07\\x9b31m\n',
    );
    const failure = await cli('call', UNRULY, 'fail');
    expect(failure.code).toBe(1);
    expect(failure.stderr).not.toMatch(RAW);
    expect(failure.stderr).toBe('failure: \\x1b]0;pwned-title\\x07it failed\\x1b]52;c;cHduZWQ=\\x07\n');
    const error = await cli('call', UNRULY, 'boom');
    expect(error.code).toBe(1);
    expect(error.stderr).not.toMatch(RAW);
    expect(error.stderr).toContain('\\x1b[2J\\x1b[Hboom\\x07\\x1b]0;pwned-title\\x07');
    const json = await cli('call', UNRULY, 'hostile', '--json');
    expect(JSON.parse(json.stdout)).toMatchObject({
      outcome: 'answer',
      value: `${CLIPBOARD}${CLEAR}${TITLE}owned${BEL}\u009b31m`,
    });
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

describe.skipIf(!hasTmux)('a server that sends terminal escapes, on a terminal (tmux)', () => {
  const session = `mcplite-escapes-${process.pid}`;
  const dir = mkdtempSync(join(tmpdir(), 'mcplite-escapes-'));
  const tmux = (...args: string[]) => execFileSync('tmux', args, { encoding: 'utf8' });
  afterAll(() => {
    try {
      tmux('kill-session', '-t', session);
    } catch {
      // Already gone.
    }
  });

  it('neither retitles the terminal, nor writes the clipboard, nor clears the screen', async () => {
    const script = join(dir, 'term.sh');
    const raw = join(dir, 'pane.raw');
    const done = join(dir, 'done');
    const go = join(dir, 'go');
    const cmd = `${process.execPath} --import tsx ${MAIN}`;
    writeFileSync(
      script,
      [
        // Starts once the pane's output is being recorded.
        `while [ ! -f ${go} ]; do sleep 0.1; done`,
        `cd ${ROOT}`,
        'echo marker-before',
        `${cmd} tools "${UNRULY}"`,
        `${cmd} call "${UNRULY}" hostile`,
        `${cmd} call "${UNRULY}" fail`,
        `${cmd} call "${UNRULY}" boom`,
        `echo finished > ${done}`,
        'sleep 60',
      ].join('\n'),
    );
    tmux('new-session', '-d', '-s', session, '-x', '200', '-y', '50', `bash ${script}`);
    // Every byte the programs write to the terminal, escape sequences included.
    tmux('pipe-pane', '-t', session, '-o', `cat >> ${raw}`);
    writeFileSync(go, '');
    await expect.poll(() => readSafe(done), { timeout: 60_000, interval: 200 }).toBe('finished\n');
    const bytes = readSafe(raw);
    expect(bytes).toContain('owned');
    // Nothing of the server's reached the terminal raw: no BEL, no OSC, no clear screen, no C1.
    expect(bytes).not.toContain(BEL);
    expect(bytes).not.toContain(`${ESC}]`);
    expect(bytes).not.toContain(`${ESC}[2J`);
    expect(bytes).not.toContain('\u009b');
    expect(tmux('display-message', '-p', '-t', session, '#{pane_title}')).not.toContain('pwned');
    const screen = tmux('capture-pane', '-p', '-t', session, '-S', '-100');
    expect(screen).toContain('marker-before');
    expect(screen).toContain('\\x1b]52;c;cHduZWQ=\\x07');
  }, 90_000);
});

function readSafe(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}
