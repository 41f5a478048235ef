/**
 * The `mcplite` CLI as a child process for the tests: run from source through tsx, with its output collected
 * and the listening line awaited.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** The repository's root. */
export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** The CLI's entry, from source. */
export const MAIN = join(ROOT, 'src/cli/main.ts');
/** The one stdout line a listening `mcplite serve` prints. */
export const LISTENING = /^mcplite listening on (http:\/\/127\.0\.0\.1:(\d+)\/mcp-lite\/v1\/)$/m;

/** A running (or finished) CLI process. */
export interface Cli {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  /** Resolves with the exit code (or the signal that killed it). */
  exited: Promise<number | NodeJS.Signals>;
}

/** A CLI that printed its listening line. */
export interface ListeningCli extends Cli {
  /** The base URL from the listening line, e.g. http://127.0.0.1:41234/mcp-lite/v1/ */
  base: string;
}

/** Every CLI process still running, for the tests to kill after each test. */
export const children = new Set<ChildProcess>();

/** tsx's loader, named so that a CLI run from another directory finds it. */
const TSX = pathToFileURL(join(ROOT, 'node_modules/tsx/dist/loader.mjs')).href;

/** Runs `mcplite <args>` from source, from the repository's root or from `cwd`. */
export function run(args: string[], env: Record<string, string> = {}, cwd?: string): Cli {
  return runCommand(process.execPath, ['--import', cwd ? TSX : 'tsx', MAIN, ...args], env, cwd);
}

/** Runs any command from the repository's root (or `cwd`), its output collected like the CLI's (e.g. a copied `sh -c` line). */
export function runCommand(
  command: string,
  argv: string[],
  env: Record<string, string> = {},
  cwd: string = ROOT,
): Cli {
  const child = spawn(command, argv, {
    cwd,
    env: { ...process.env, MCPLITE_TOKENS: '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  let out = '';
  let err = '';
  child.stdout!.setEncoding('utf8').on('data', (c: string) => {
    out += c;
  });
  child.stderr!.setEncoding('utf8').on('data', (c: string) => {
    err += c;
  });
  const exited = new Promise<number | NodeJS.Signals>((resolve) => {
    child.on('exit', (code, signal) => {
      children.delete(child);
      resolve(code ?? signal!);
    });
  });
  return { child, stdout: () => out, stderr: () => err, exited };
}

/** Runs `mcplite serve ...` and waits for the listening line. */
export async function start(args: string[], env: Record<string, string> = {}): Promise<ListeningCli> {
  const cli = run(['serve', '--port', '0', '--grpc-port', '0', ...args], env);
  const base = await new Promise<string>((resolve, reject) => {
    const check = () => {
      const m = LISTENING.exec(cli.stdout());
      if (m) resolve(m[1]!);
    };
    cli.child.stdout!.on('data', check);
    cli.exited.then((code) => reject(new Error(`exited with ${code} before listening:\n${cli.stderr()}`)));
  });
  return { ...cli, base };
}

/** Resolves once a stderr log line satisfies `match` (the CLI logs JSON lines there). */
export function logLine(
  cli: Cli,
  match: (entry: Record<string, unknown>) => boolean,
): Promise<Record<string, unknown>> {
  return new Promise((resolve) => {
    const check = () => {
      for (const line of cli.stderr().split('\n')) {
        if (!line.startsWith('{')) continue;
        const entry = JSON.parse(line) as Record<string, unknown>;
        if (match(entry)) return resolve(entry);
      }
    };
    check();
    cli.child.stderr!.on('data', check);
  });
}

/** Resolves with the first match of `pattern` in what `read()` returns (a CLI's output so far), or fails after `ms`. */
export async function outputMatch(
  read: () => string,
  pattern: RegExp,
  ms = 30_000,
): Promise<RegExpExecArray> {
  const until = Date.now() + ms;
  for (;;) {
    const m = pattern.exec(read());
    if (m) return m;
    if (Date.now() > until) throw new Error(`not seen: ${pattern} in ${read()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
