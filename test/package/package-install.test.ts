/**
 * mcplite as a dependency (issue 9): `npm pack` the repository, install the tarball into a scratch project in a
 * temporary folder (its dependencies come from the registry), import every subpath export package.json
 * declares, and run the installed CLI. Also: the licence file matches package.json, installing from git has a
 * `prepare` route, and the README and docs point only at files that exist. Issue 26: the same tarball loads from
 * CommonJS (`require`, Node 20.19+ / 22.12+ via require(esm)) and type-checks in a CommonJS TypeScript project
 * (`module: nodenext`); the heavy parts (Redis, gRPC, metrics) are optional peers that a plain install leaves
 * out, and the CLI says what to install when a flag needs them.
 */
import { execFile } from 'node:child_process';
import {
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  name: string;
  version: string;
  license: string;
  exports: Record<string, unknown>;
  scripts: Record<string, string>;
  dependencies?: Record<string, string>;
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
    expect(exported['.']).toEqual(expect.arrayContaining(['createServer', 'defineTool']));
    // Serving on Node moved to mcplite/node (issue 26): one import path per symbol, and the root stays portable.
    expect(exported['.']).not.toContain('serve');
    expect(exported['./node']).toEqual(
      expect.arrayContaining(['serve', 'listenNode', 'serveMcpStdio', 'serveStdio']),
    );
    // gRPC is an optional peer that this install did not pull in: the subpath fails for want of it alone.
    expect(exported['./grpc']).toMatchObject({ code: 'ERR_MODULE_NOT_FOUND' });
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

  it('leaves the optional heavy peers out of a plain install', () => {
    const modules = join(scratch, 'app', 'node_modules');
    for (const heavy of [
      'ioredis',
      'bullmq',
      '@grpc/grpc-js',
      '@grpc/reflection',
      'prom-client',
      'protobufjs',
    ])
      expect(existsSync(join(modules, heavy)), heavy).toBe(false);
    const peers = pkg.peerDependenciesMeta ?? {};
    for (const heavy of ['ioredis', 'bullmq', '@grpc/grpc-js', 'prom-client'])
      expect(peers[heavy]?.optional, heavy).toBe(true);
  });

  it('declares every dependency as a caret range (the lockfile pins)', () => {
    const ranges = Object.entries(pkg.dependencies ?? {}).filter(([, range]) => !range.startsWith('^'));
    expect(ranges).toEqual([]);
  });

  it('CLI flags that need a missing optional peer say what to install', async () => {
    const cli = join(scratch, 'app', 'node_modules', '.bin', 'mcplite');
    const run = (args: string[]) =>
      exec(cli, args, {
        cwd: join(scratch, 'app'),
        timeout: 60_000,
        env: { ...process.env, MCPLITE_SECRET: 'x'.repeat(64) },
      }).then(
        () => ({ code: 0, stderr: '' }),
        (err: { code: number; stderr: string }) => ({ code: err.code, stderr: err.stderr }),
      );
    const redis = await run(['serve', '--demo', '--port', '0', '--redis', 'redis://127.0.0.1:1']);
    expect(redis.code).toBe(2);
    expect(redis.stderr).toContain('npm install ioredis bullmq');
    const grpc = await run(['serve', '--demo', '--port', '0', '--grpc', '0']);
    expect(grpc.code).toBe(2);
    expect(grpc.stderr).toContain('npm install @grpc/grpc-js');
  }, 120_000);

  it('runs a TypeScript tool module without a build step, or says what it needs', async () => {
    // The scratch project has no tsx: Node's own type stripping runs the module where this Node has it.
    const app = join(scratch, 'app');
    writeFileSync(
      join(app, 'typed-tools.ts'),
      "export const tools = [{ name: 'typed', description: 'd', inputSchema: { type: 'object' }, handler: (): string => 'ok' }];\n",
    );
    const cli = join(app, 'node_modules', '.bin', 'mcplite');
    // --stdio with stdin closed at once: the server loads the module, sees the end of its input and exits 0.
    const serving = exec(cli, ['serve', 'typed-tools.ts', '--stdio'], { cwd: app, timeout: 60_000 });
    serving.child.stdin?.end();
    const listed = await serving.then(
      () => ({ code: 0, stderr: '' }),
      (err: { code: number; stderr: string }) => ({ code: err.code, stderr: err.stderr }),
    );
    const typescript = (process.features as { typescript?: unknown }).typescript;
    const strips = typescript === 'strip' || typescript === 'transform';
    if (strips) expect(listed.code, listed.stderr).toBe(0);
    else {
      expect(listed.code).toBe(2);
      expect(listed.stderr).toContain('npm install --save-dev tsx');
      expect(listed.stderr).toContain('Node 22.18+');
    }
  }, 120_000);

  it('loads from CommonJS: require() of every subpath, and a CommonJS TypeScript project type-checks (server internals hidden) and runs', async () => {
    const app = join(scratch, 'app', 'cjs');
    await exec('mkdir', ['-p', join(app, 'node_modules', '@types')]);
    writeFileSync(
      join(app, 'package.json'),
      JSON.stringify({ name: 'scratch-cjs', private: true, type: 'commonjs' }),
    );
    const subpaths = Object.keys(pkg.exports).filter((sub) => !sub.endsWith('.json'));
    const script = `
      const out = {};
      for (const sub of ${JSON.stringify(subpaths)}) {
        const spec = sub === '.' ? 'mcplite' : 'mcplite' + sub.slice(1);
        try { out[sub] = Object.keys(require(spec)).length; }
        catch (err) { out[sub] = err.code + ': ' + err.message.split('\\n')[0]; }
      }
      console.log(JSON.stringify(out));
    `;
    const { stdout } = await exec(process.execPath, ['-e', script], { cwd: app });
    const required = JSON.parse(stdout) as Record<string, number | string>;
    const optional = Object.keys(pkg.peerDependenciesMeta ?? {});
    for (const sub of subpaths) {
      const got = required[sub];
      if (typeof got === 'number') expect(got, sub).toBeGreaterThan(0);
      else
        expect(
          optional.some((peer) => String(got).includes(`'${peer}'`)),
          `${sub}: ${got}`,
        ).toBe(true);
    }
    expect(typeof required['.']).toBe('number');
    expect(typeof required['./node']).toBe('number');
    expect(typeof required['./client']).toBe('number');

    // A CommonJS TypeScript consumer: tsc resolves the types through the same exports map and emits require().
    // skipLibCheck as `tsc --init` sets it: mcplite/node's declarations name gRPC and prom-client types, optional
    // peers this install left out (README, Install).
    symlinkSync(join(ROOT, 'node_modules', '@types', 'node'), join(app, 'node_modules', '@types', 'node'));
    writeFileSync(
      join(app, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          module: 'nodenext',
          target: 'es2022',
          strict: true,
          skipLibCheck: true,
          outDir: 'out',
          types: ['node'],
        },
        files: ['main.ts'],
      }),
    );
    writeFileSync(
      join(app, 'main.ts'),
      [
        "import { createServer, defineTool } from 'mcplite';",
        "import { connect } from 'mcplite/client';",
        "import { serve } from 'mcplite/node';",
        '',
        "const hello = defineTool({ name: 'hello', description: 'Greets', inputSchema: { type: 'object' }, handler: () => 'hi from cjs' });",
        // The server's internals are not on its published type: each line compiles only while they stay hidden.
        'function internalsHidden(server: ReturnType<typeof createServer>): void {',
        '  // @ts-expect-error the catalog is internal',
        '  void server.catalog;',
        '  // @ts-expect-error the middleware chain is internal',
        '  void server.pipeline;',
        '  // @ts-expect-error the promise manager is internal',
        '  void server.promises;',
        '  // @ts-expect-error the webtools are internal',
        '  void server.webtools;',
        '}',
        'void internalsHidden;',
        'async function main(): Promise<void> {',
        "  const running = await serve(createServer({ tools: [hello] }), { port: 0, host: '127.0.0.1' });",
        "  const client = await connect(running.url + '/mcp');",
        "  const result = await client.call('hello', {});",
        '  console.log(JSON.stringify(result));',
        '  await client.close();',
        '  await running.close();',
        '}',
        'void main();',
        '',
      ].join('\n'),
    );
    const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
    await exec(process.execPath, [tsc, '-p', 'tsconfig.json'], { cwd: app }).catch(
      (err: { stdout: string }) => {
        throw new Error(`tsc failed:\n${err.stdout}`);
      },
    );
    const emitted = readFileSync(join(app, 'out', 'main.js'), 'utf8');
    expect(emitted).toContain('require("mcplite")');
    const ran = await exec(process.execPath, [join(app, 'out', 'main.js')], { cwd: app, timeout: 60_000 });
    expect(ran.stdout).toContain('hi from cjs');
  }, 180_000);

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

  it("keeps the test runtimes (Bun, Deno, workerd, sharp) out of a contributor's install", () => {
    // Some 360 MB that only test/runtimes/runtimes.test.ts uses: test/runtimes has them, under a lockfile of its own.
    const heavy = ['bun', 'deno', 'miniflare', 'workerd', 'sharp'];
    const lock = (path: string) =>
      JSON.parse(readFileSync(join(ROOT, path), 'utf8')) as {
        packages: Record<string, { version?: string }>;
      };
    const root = lock('package-lock.json').packages;
    expect(heavy.filter((name) => root[`node_modules/${name}`] !== undefined)).toEqual([]);
    const runtimes = lock('test/runtimes/package-lock.json').packages;
    expect(heavy.filter((name) => runtimes[`node_modules/${name}`]?.version === undefined)).toEqual([]);
    expect(pkg.scripts['runtimes:install']).toBe('npm ci --prefix test/runtimes --no-audit --no-fund');
    expect(readFileSync(join(ROOT, '.ci/run'), 'utf8')).toContain('npm run runtimes:install');
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
