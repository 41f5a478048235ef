/**
 * The README's first example, run as written in a fresh project: `npm init -y` (a CommonJS project), the Install
 * section's `npm install` lines against a tarball of this repository, the `tools.ts` of "Define tools", the first
 * command of "Serve them" and the first of "Call them", on this Node (20) and on Node 22 (scripts/node22.mjs).
 * Only the port is changed (0, so that parallel tests never collide) and the URL follows it.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error: a plain .mjs script without declarations
import { node22Path } from '../../scripts/node22.mjs';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const README = readFileSync(join(ROOT, 'README.md'), 'utf8');
const exec = promisify(execFile);
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

/** The fenced block of `lang` that follows `heading` in the README. */
function block(heading: string, lang: string): string {
  const after = README.slice(README.indexOf(`\n## ${heading}\n`));
  const start = after.indexOf(`\`\`\`${lang}\n`);
  expect(start, heading).toBeGreaterThan(0);
  const body = after.slice(start + lang.length + 4);
  return body.slice(0, body.indexOf('```'));
}

/** A shell line of the README as argv, without its trailing comment. */
function argv(line: string): string[] {
  return line
    .replace(/\s+#.*$/, '')
    .trim()
    .split(/\s+/);
}

const install = block('Install', 'sh')
  .split('\n')
  .filter((line) => line.startsWith('npm install'));
const toolsTs = block('Define tools', 'ts');
const serveLine = argv(block('Serve them', 'sh').split('\n')[0]!);
const callLine = argv(block('Call them', 'sh').split('\n')[0]!);

let scratch: string;
let app: string;
const servers = new Set<ChildProcess>();

beforeAll(async () => {
  scratch = mkdtempSync(join(tmpdir(), 'mcplite-readme-'));
  const { stdout } = await exec(npm, ['pack', '--json', '--pack-destination', scratch], {
    cwd: ROOT,
    maxBuffer: 16 << 20,
  });
  const tarball = (JSON.parse(stdout.slice(stdout.indexOf('['))) as Array<{ filename: string }>)[0]!.filename;
  // The README names the tarball `npm pack` writes.
  expect(install.join('\n')).toContain(`/path/to/mcplite/${tarball}`);
  app = join(scratch, 'app');
  mkdirSync(app);
  await exec(npm, ['init', '-y'], { cwd: app });
  for (const line of install) {
    const args = argv(line.replaceAll('/path/to/mcplite/', `${scratch}/`).replace(/^npm /, ''));
    await exec(npm, [...args, '--no-audit', '--no-fund', '--prefer-offline'], {
      cwd: app,
      maxBuffer: 16 << 20,
    });
  }
  writeFileSync(join(app, 'tools.ts'), toolsTs);
}, 300_000);

afterAll(() => {
  for (const server of servers) server.kill('SIGKILL');
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

/** The environment that puts `node` (and so npx's `#!/usr/bin/env node`) first on PATH. */
function withNode(node: string): NodeJS.ProcessEnv {
  return { ...process.env, MCPLITE_TOKENS: '', PATH: `${dirname(node)}${delimiter}${process.env.PATH}` };
}

/** Runs the README's serve line (on port 0) and resolves with its MCP URL once it listens. */
function serveAsWritten(env: NodeJS.ProcessEnv): Promise<string> {
  const [command, ...args] = serveLine;
  const child = spawn(command!, [...args, '--port', '0'], {
    cwd: app,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  servers.add(child);
  let output = '';
  return new Promise((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString('utf8');
      const url = /MCP \(Streamable HTTP\) on (http:\/\/\S+\/mcp)\n/.exec(output)?.[1];
      if (url) resolve(url);
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.on('exit', (code) => reject(new Error(`serve exited (${code}) before listening:\n${output}`)));
  });
}

describe("the README's first example in a fresh `npm init -y` project", () => {
  it('is a CommonJS project, with the README written as this test reads it', () => {
    const pkg = JSON.parse(readFileSync(join(app, 'package.json'), 'utf8')) as { type?: string };
    expect(pkg.type ?? 'commonjs').toBe('commonjs');
    expect(install.length).toBeGreaterThan(0);
    expect(toolsTs).toContain("from 'mcplite'");
    expect(serveLine).toEqual(['npx', 'mcplite', 'serve', './tools.ts']);
    expect(callLine.slice(0, 3)).toEqual(['npx', 'mcplite', 'call']);
  });

  for (const [label, node] of [
    ['Node 20 (this one)', () => process.execPath],
    ['Node 22', () => node22Path() as string],
  ] as const) {
    it(`serves tools.ts and answers the call, on ${label}`, async () => {
      const env = withNode(node());
      const { stdout: version } = await exec('node', ['--version'], { env });
      expect(version).toMatch(label === 'Node 22' ? /^v22\./ : process.version);
      const url = await serveAsWritten(env);
      const [command, ...args] = callLine.map((arg) => (arg === 'http://127.0.0.1:3000/mcp' ? url : arg));
      expect(args).toContain(url);
      const called = await exec(command!, args, { cwd: app, env, timeout: 60_000 });
      expect(called.stdout.trim()).toBe('5');
    }, 180_000);
  }

  it('a module Node reads as CommonJS though it uses import/export: the error says what makes it an ES module', async () => {
    writeFileSync(
      join(app, 'plain.js'),
      "import { defineTool } from 'mcplite';\nexport const tools = [defineTool({ name: 'a', description: 'd', inputSchema: { type: 'object' }, handler: () => 1 })];\n",
    );
    const failed = await exec('npx', ['mcplite', 'serve', './plain.js', '--stdio'], {
      cwd: app,
      env: withNode(process.execPath),
      timeout: 60_000,
    }).then(
      () => ({ code: 0, stderr: '' }),
      (err: { code: number; stderr: string }) => err,
    );
    expect(failed.code).toBe(2);
    expect(failed.stderr).toContain('It uses import/export in a CommonJS package');
    expect(failed.stderr).toContain('set "type": "module"');
    expect(failed.stderr).toContain('rename it to plain.mjs');
  }, 120_000);
});
