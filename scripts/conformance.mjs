#!/usr/bin/env node
/**
 * `npm run conformance`: starts the conformance fixture (examples/conformance/serve.ts) on a free loopback port
 * and runs the official suite, `@modelcontextprotocol/conformance server --suite all`, against its `/mcp` with
 * the pinned Node 22 binary of tools/node22 (the suite needs Node >= 22; see scripts/node22.mjs). Extra arguments go to the
 * suite (e.g. `-- --scenario tools-list`). Then, unless extra arguments were given, every client scenario of the
 * 2025-11-25 and 2026-07-28 requirement sets (each at its revision, one at a time), the client-credentials
 * extension scenarios, and the enterprise-managed authorization, workload identity and DPoP extension scenarios
 * (at both revisions) run against the mcplite client (examples/conformance/client.ts); `-- --client` runs only
 * those. Exits non-zero when any check fails (the suite fails a scenario on a failed check or a warning).
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

/** The requirement sets whose client scenarios all run, each scenario at its set's revision. */
const REVISIONS = ['2025-11-25', '2026-07-28'];
/** Extension scenarios run besides (unscored by the suite, failing here like any other): machine clients. */
const EXTENSIONS = ['auth/client-credentials-basic', 'auth/client-credentials-jwt'];
/**
 * Extension scenarios run at each revision of REVISIONS (the suite places extensions on no revision, so they are
 * forced): enterprise-managed authorization, workload identity and DPoP, whose flows differ by revision only in
 * the MCP requests they end with.
 */
const REVISION_EXTENSIONS = [
  'auth/enterprise-managed-authorization',
  'auth/wif-jwt-bearer',
  'auth/dpop',
  'auth/dpop-nonce',
];

const extra = process.argv.slice(2);
const clientOnly = extra.includes('--client');
let code = clientOnly ? 0 : await runServerSuite(extra);
if (clientOnly || extra.length === 0) {
  const command = `${process.execPath} ${tsx} ${join(root, 'examples/conformance/client.ts')}`;
  const runs = [];
  for (const revision of REVISIONS)
    for (const scenario of await clientScenarios(revision)) runs.push([scenario, revision]);
  for (const scenario of EXTENSIONS) runs.push([scenario, undefined]);
  for (const revision of REVISIONS)
    for (const scenario of REVISION_EXTENSIONS) runs.push([scenario, revision, true]);
  const failed = [];
  for (const [scenario, revision, forced] of runs) {
    const args = [suite, 'client', '--command', command, '--scenario', scenario];
    if (revision) args.push('--spec-version', revision);
    if (forced) args.push('--force');
    const kind = revision ? `${revision}${forced ? ', extension' : ''}` : 'extension';
    process.stdout.write(`\n== client scenario ${scenario} (${kind})\n`);
    const run = spawn(node22, args, { cwd: root, stdio: 'inherit' });
    const c = await new Promise((resolve) => run.once('exit', (x) => resolve(x ?? 1)));
    if (c !== 0) {
      code = c;
      failed.push(`${scenario}${revision ? ` (${revision})` : ''}`);
    }
  }
  process.stdout.write(
    `\n== client scenarios: ${runs.length - failed.length} of ${runs.length} passed${failed.length ? `; failed: ${failed.join(', ')}` : ''}\n`,
  );
}
process.exit(code);

/** The client scenarios a requirement set names, as the suite lists them (`list --client --requirements`). */
async function clientScenarios(revision) {
  const list = spawn(node22, [suite, 'list', '--client', '--requirements', revision], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  list.stdout.on('data', (chunk) => {
    out += chunk;
  });
  await new Promise((resolve) => list.once('exit', resolve));
  // The "Client scenarios" section only: what follows it ("Run and reported, but never scored") is not required.
  const section = out.split(/^Client scenarios.*$/m)[1]?.split(/^\S/m)[0] ?? '';
  const names = [...section.matchAll(/^\s+- (\S+)\s*$/gm)].map((m) => m[1]);
  if (names.length === 0) throw new Error(`The suite listed no client scenarios for ${revision}`);
  return names;
}

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
