#!/usr/bin/env node
/**
 * `npm run conformance`: starts the conformance fixture (examples/conformance/serve.ts) on a free loopback port
 * and runs the official suite, `@modelcontextprotocol/conformance server --suite all`, against its `/mcp` with
 * the pinned Node 22 binary of tools/node22 (the suite needs Node >= 22; see scripts/node22.mjs). Extra arguments go to the
 * suite (e.g. `-- --scenario tools-list`). Then, unless extra arguments were given, the suite's client scenarios
 * run against the mcplite client (examples/conformance/client.ts); `-- --client` runs only those. Exits non-zero
 * when any check fails.
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

/**
 * The client scenarios the mcplite client passes, with the revision each runs at (none: the suite's default, a
 * handshake revision). The auth/* scenarios are not here: the client has no OAuth flow. Neither are
 * http-custom-headers and json-schema-2020-12-preservation, which need a client that calls tools with values
 * the scenario supplies or echoes schemas back, which a generic client does not; nor request-metadata, whose checks
 * pass but which also wants a retry at another revision after a -32022, which the client does not do yet.
 */
const CLIENT_SCENARIOS = [
  ['initialize'],
  ['tools_call'],
  ['elicitation-sep1034-client-defaults'],
  ['sse-retry'],
  ['tools_call', '2026-07-28'],
  ['sep-2322-client-request-state', '2026-07-28'],
  ['http-standard-headers', '2026-07-28'],
  ['http-invalid-tool-headers', '2026-07-28'],
  ['json-schema-ref-no-deref', '2026-07-28'],
];

const extra = process.argv.slice(2);
const clientOnly = extra.includes('--client');
let code = clientOnly ? 0 : await runServerSuite(extra);
if (clientOnly || extra.length === 0) {
  const command = `${process.execPath} ${tsx} ${join(root, 'examples/conformance/client.ts')}`;
  for (const [scenario, version] of CLIENT_SCENARIOS) {
    const args = [suite, 'client', '--command', command, '--scenario', scenario];
    if (version) args.push('--spec-version', version);
    process.stdout.write(`\n== client scenario ${scenario}${version ? ` (${version})` : ''}\n`);
    const run = spawn(node22, args, { cwd: root, stdio: 'inherit' });
    const c = await new Promise((resolve) => run.once('exit', (x) => resolve(x ?? 1)));
    if (c !== 0) code = c;
  }
}
process.exit(code);

/** Starts the fixture and runs the server suite against it. */
async function runServerSuite(extra) {
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
  return code;
}
