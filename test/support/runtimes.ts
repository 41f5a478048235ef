import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { fileURLToPath, pathToFileURL } from 'node:url';

/**
 * Starts the runtime app (`test/runtimes/app.ts`) under each JavaScript runtime, from the runtimes' npm packages
 * (`bun`, `deno`, `miniflare` with `workerd`), on a loopback port. Those packages are test/runtimes' own (its
 * package.json and lockfile, installed by `npm run runtimes:install`), not the root's devDependencies: they weigh
 * some 350 MB, which no contributor and no install from git should have to download. A runtime whose binary is
 * missing is reported with the reason and the command that installs it, so that its tests skip visibly rather
 * than pass.
 */

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** Where `npm run runtimes:install` puts the runtimes. */
const RUNTIMES = `${ROOT}test/runtimes/node_modules/`;
const BIN = `${RUNTIMES}.bin/`;
const APP = `${ROOT}test/runtimes/app.ts`;
/** What a missing runtime's reason says to do. */
const INSTALL = 'npm run runtimes:install';

/** What the tests use of Miniflare (its types live with the package, outside the root's node_modules). */
interface MiniflareInstance {
  ready: Promise<URL>;
  dispose(): Promise<void>;
}
type MiniflareModule = { Miniflare: new (options: Record<string, unknown>) => MiniflareInstance };

/** How long a runtime may take to start and say its port (Deno compiles the sources on a cold start). */
const START_TIMEOUT_MS = 60_000;

/** A runtime serving the app: its base URL, and how to stop it. */
export interface RunningRuntime {
  url: string;
  stop(): Promise<void>;
}

/** A runtime the tests can start, or why they cannot. */
export type RuntimeLauncher =
  | { name: string; available: true; start(): Promise<RunningRuntime> }
  | { name: string; available: false; reason: string };

/** Why `bin` cannot run here (missing, or its `--version` fails), or undefined when it can. */
function missing(bin: string): string | undefined {
  if (!existsSync(`${BIN}${bin}`))
    return `test/runtimes/node_modules/.bin/${bin} is not installed (${INSTALL})`;
  const probe = spawnSync(`${BIN}${bin}`, ['--version'], { timeout: 20_000, encoding: 'utf8' });
  if (probe.status !== 0) return `${bin} --version failed: ${(probe.stderr || String(probe.error)).trim()}`;
  return undefined;
}

/** Runs `command` and waits for its `listening <port>` line. */
function startChild(name: string, command: string, args: string[]): Promise<RunningRuntime> {
  const child = spawn(command, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  return new Promise<RunningRuntime>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${name} did not start within ${START_TIMEOUT_MS} ms:\n${output}`));
    }, START_TIMEOUT_MS);
    const onData = (chunk: Buffer) => {
      output += chunk.toString('utf8');
      const port = /listening (\d+)/.exec(output)?.[1];
      if (port) {
        clearTimeout(timer);
        resolve({ url: `http://127.0.0.1:${port}`, stop: () => stopChild(child) });
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${name} exited (${code}) before listening:\n${output}`));
    });
  });
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const hard = setTimeout(() => child.kill('SIGKILL'), 5000);
    child.once('exit', () => {
      clearTimeout(hard);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

/** The app bundled into one ES module, as a Worker is deployed (wrangler bundles with esbuild too). */
async function bundleForWorkers(): Promise<string> {
  const { build } = await import('esbuild');
  const result = await build({
    entryPoints: [APP],
    bundle: true,
    format: 'esm',
    platform: 'neutral',
    conditions: ['workerd', 'worker', 'browser'],
    mainFields: ['module', 'main'],
    // Anything of Node's that is still reachable must fail the build here, not hide behind nodejs_compat.
    write: false,
    logLevel: 'silent',
  });
  return result.outputFiles[0]!.text;
}

let bundled: Promise<string> | undefined;

/** workerd through Miniflare, with or without `nodejs_compat`, on a loopback port. */
async function startWorkerd(flags: string[]): Promise<RunningRuntime> {
  bundled ??= bundleForWorkers();
  const script = await bundled;
  const entry = pathToFileURL(createRequire(`${ROOT}test/runtimes/package.json`).resolve('miniflare')).href;
  const { Miniflare } = (await import(entry)) as MiniflareModule;
  const mf = new Miniflare({
    modules: true,
    script,
    compatibilityDate: '2025-09-01',
    compatibilityFlags: flags,
    host: '127.0.0.1',
    port: 0,
  });
  const url = await mf.ready;
  return { url: url.origin, stop: () => mf.dispose() };
}

/** Node: the same app through the fetch handler, behind @hono/node-server, in this process. */
async function startNode(): Promise<RunningRuntime> {
  const { serve } = await import('@hono/node-server');
  const { fetchHandler } = await import('../runtimes/app.js');
  const server = serve({ fetch: (request) => fetchHandler(request), hostname: '127.0.0.1', port: 0 });
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Every runtime the fetch handler is claimed to run on (docs/runtimes.md). */
export function runtimeLaunchers(): RuntimeLauncher[] {
  const launchers: RuntimeLauncher[] = [
    { name: `node ${process.version}`, available: true, start: startNode },
  ];
  const bun = missing('bun');
  launchers.push(
    bun
      ? { name: 'bun', available: false, reason: bun }
      : {
          name: 'bun',
          available: true,
          start: () => startChild('bun', `${BIN}bun`, ['test/runtimes/bun-main.ts']),
        },
  );
  const deno = missing('deno');
  launchers.push(
    deno
      ? { name: 'deno', available: false, reason: deno }
      : {
          name: 'deno',
          available: true,
          start: () =>
            startChild('deno', `${BIN}deno`, [
              'run',
              '--quiet',
              '--no-prompt',
              // The sources import each other as `.js`, as TypeScript's NodeNext wants; Deno maps them to `.ts`.
              '--sloppy-imports',
              '--node-modules-dir=manual',
              '--allow-net=127.0.0.1',
              '--allow-read',
              '--allow-env',
              'test/runtimes/deno-main.ts',
            ]),
        },
  );
  const workerd = workerdMissing();
  for (const [name, flags] of [
    ['workerd', []],
    ['workerd nodejs_compat', ['nodejs_compat']],
  ] as const) {
    launchers.push(
      workerd
        ? { name, available: false, reason: workerd }
        : { name, available: true, start: () => startWorkerd([...flags]) },
    );
  }
  return launchers;
}

function workerdMissing(): string | undefined {
  if (!existsSync(`${RUNTIMES}miniflare/package.json`)) return `miniflare is not installed (${INSTALL})`;
  const pkg = JSON.parse(readFileSync(`${RUNTIMES}miniflare/package.json`, 'utf8')) as {
    version: string;
  };
  const bin = missing('workerd');
  return bin ? `${bin} (miniflare ${pkg.version})` : undefined;
}
