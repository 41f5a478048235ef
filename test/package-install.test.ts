/**
 * mcplite as a dependency (issue 9): `npm pack` the repository, install the tarball into a scratch project in a
 * temporary folder (its dependencies come from the registry), import every subpath export package.json
 * declares, and run the installed CLI. Also: the licence file matches package.json, installing from git has a
 * `prepare` route, and the README and docs point only at files that exist.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  name: string;
  version: string;
  license: string;
  exports: Record<string, unknown>;
  scripts: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
};
const exec = promisify(execFile);
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

let scratch: string;
let packed: string[];

beforeAll(async () => {
  scratch = mkdtempSync(join(tmpdir(), 'mcplite-install-'));
  // `prepare` builds dist/ first when it is missing, as it does for an install from git.
  const { stdout } = await exec(npm, ['pack', '--json', '--pack-destination', scratch], {
    cwd: ROOT,
    maxBuffer: 16 << 20,
  });
  const report = JSON.parse(stdout.slice(stdout.indexOf('['))) as Array<{
    filename: string;
    files: Array<{ path: string }>;
  }>;
  packed = report[0]!.files.map((f) => f.path);
  const app = join(scratch, 'app');
  await exec('mkdir', ['-p', app]);
  writeFileSync(
    join(app, 'package.json'),
    JSON.stringify({ name: 'scratch-app', private: true, type: 'module' }),
  );
  await exec(
    npm,
    ['install', '--no-audit', '--no-fund', '--prefer-offline', join(scratch, report[0]!.filename)],
    { cwd: app, maxBuffer: 16 << 20 },
  );
}, 300_000);

afterAll(() => {
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

describe('the packed package', () => {
  it('holds the licence, the proto and every export target, and no sources or tests', () => {
    expect(packed).toEqual(
      expect.arrayContaining(['LICENSE', 'package.json', 'README.md', 'proto/mcplite.proto']),
    );
    for (const target of Object.values(pkg.exports)) {
      const files = typeof target === 'string' ? [target] : Object.values(target as Record<string, string>);
      for (const file of files) expect(packed).toContain(normalize(file));
    }
    // The inspector's page is plain JS, HTML and CSS that tsc does not copy: it ships as written, and nothing else
    // from src/ does (its type-checking config neither).
    const page = (p: string) => p.startsWith('src/inspector/static/') && !p.endsWith('.json');
    expect(packed).toContain('src/inspector/static/index.html');
    expect(
      packed.filter(
        (p) => (p.startsWith('src/') && !page(p)) || p.startsWith('test/') || p.endsWith('.test.js'),
      ),
    ).toEqual([]);
  });

  it('installs into a scratch project, where every subpath export imports', async () => {
    const subpaths = Object.keys(pkg.exports);
    const script = `
      const out = {};
      for (const sub of ${JSON.stringify(subpaths)}) {
        const spec = sub === '.' ? 'mcplite' : 'mcplite' + sub.slice(1);
        try {
          const mod = sub.endsWith('.json')
            ? await import(spec, { with: { type: 'json' } })
            : await import(spec);
          out[sub] = Object.keys(mod).sort();
        } catch (err) {
          out[sub] = { code: err.code, message: String(err.message) };
        }
      }
      console.log(JSON.stringify(out));
    `;
    const { stdout } = await exec(process.execPath, ['--input-type=module', '-e', script], {
      cwd: join(scratch, 'app'),
    });
    const exported = JSON.parse(stdout) as Record<string, string[] | { code: string; message: string }>;
    expect(Object.keys(exported).sort()).toEqual(subpaths.sort());
    expect(exported['.']).toEqual(expect.arrayContaining(['createServer', 'defineTool', 'serve']));
    expect(exported['./node']).toContain('listenNode');
    expect(exported['./grpc']).toContain('listenGrpc');
    // A subpath built on an optional peer (not installed here) may only fail for want of that peer.
    const optional = Object.keys(pkg.peerDependenciesMeta ?? {});
    for (const sub of subpaths) {
      const got = exported[sub]!;
      if (Array.isArray(got)) expect(got.length, sub).toBeGreaterThan(0);
      else {
        expect(got.code, sub).toBe('ERR_MODULE_NOT_FOUND');
        expect(
          optional.some((peer) => got.message.includes(`'${peer}'`)),
          got.message,
        ).toBe(true);
      }
    }
  });

  it('the installed CLI runs and reports the package version', async () => {
    const { stdout } = await exec(join(scratch, 'app', 'node_modules', '.bin', 'mcplite'), ['--version'], {
      cwd: join(scratch, 'app'),
    });
    expect(stdout.trim()).toBe(pkg.version);
  });
});

describe('the repository', () => {
  it('has a LICENSE matching package.json', () => {
    expect(pkg.license).toBe('MIT');
    expect(readFileSync(join(ROOT, 'LICENSE'), 'utf8')).toMatch(/^MIT License\n/);
  });

  it('has a prepare script, so that installing from git builds dist/', () => {
    expect(pkg.scripts.prepare).toBe('node scripts/prepare.mjs');
    expect(existsSync(join(ROOT, 'scripts/prepare.mjs'))).toBe(true);
  });

  it('README and docs point only at files that exist', () => {
    const pages = ['README.md', ...readdirSync(join(ROOT, 'docs')).map((f) => `docs/${f}`)];
    const missing: string[] = [];
    for (const page of pages.filter((p) => p.endsWith('.md'))) {
      const text = readFileSync(join(ROOT, page), 'utf8');
      for (const [, target] of text.matchAll(/\]\(([^)#\s]+)(?:#[^)]*)?\)/g)) {
        if (/^[a-z]+:/.test(target!)) continue;
        if (!existsSync(join(ROOT, dirname(page), target!))) missing.push(`${page}: ${target}`);
      }
      // Paths in code spans: anything under a folder of the repository (tools/... are method names).
      for (const [, path] of text.matchAll(/`((?:src|test|examples|docs|proto|bench|scripts)\/[\w./-]+)`/g)) {
        if (!existsSync(join(ROOT, path!))) missing.push(`${page}: ${path}`);
      }
    }
    expect(missing).toEqual([]);
  });
});
