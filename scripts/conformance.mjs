#!/usr/bin/env node
/**
 * `npm run conformance`: starts the conformance fixture (examples/conformance/serve.ts) on a free loopback port
 * and runs the official suite, `@modelcontextprotocol/conformance server --suite all`, against its `/mcp` with
 * the pinned Node 22 binary of tools/node22 (the suite needs Node >= 22; see scripts/node22.mjs). Extra arguments go to the
 * suite (e.g. `-- --scenario tools-list`). Exits with the suite's status.
 */
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { node22Path } from './node22.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(join(root, 'package.json'));
const node22 = node22Path();
const suite = join(
  dirname(require.resolve('@modelcontextprotocol/conformance/package.json')),
  'dist',
  'index.js',
);
const tsx = join(dirname(require.resolve('tsx/package.json')), 'dist', 'cli.mjs');

const fixture = spawn(process.execPath, [tsx, join(root, 'examples/conformance/serve.ts'), '0'], {
  cwd: root,
  stdio: ['ignore', 'pipe', 'inherit'],
});
const url = await new Promise((resolve, reject) => {
  let buffered = '';
  fixture.stdout.on('data', (chunk) => {
    buffered += chunk;
    const m = /listening (\S+)/.exec(buffered);
    if (m) resolve(m[1]);
  });
  fixture.once('exit', (code) => reject(new Error(`the fixture exited early (${code})`)));
});
const extra = process.argv.slice(2);
const args = [
  suite,
  'server',
  '--url',
  url,
  ...(extra.some((a) => a === '--scenario' || a === '--suite' || a === '--requirements')
    ? []
    : ['--suite', 'all']),
  ...extra,
];
const run = spawn(node22, args, { cwd: root, stdio: 'inherit' });
const code = await new Promise((resolve) => run.once('exit', (c) => resolve(c ?? 1)));
fixture.kill('SIGTERM');
process.exit(code);
