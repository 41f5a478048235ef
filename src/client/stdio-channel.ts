import type { ChildProcess } from 'node:child_process';
import spawn from 'cross-spawn';
import { readLines } from '../bindings/common/line-reader.js';
import { McpLiteError } from '../core/errors.js';
import { settlesWithin } from '../core/timers.js';
import { endWithProcess } from './child-reaper.js';
import { boundExceeded } from './limits.js';

/** The server a stdio client runs: its command line, the environment it adds, its directory and its stderr. */
export interface StdioCommand {
  command: string;
  args: string[];
  /** Added to the few variables a child inherits (`INHERITED_ENV`); nothing else of this process's leaks. */
  env?: Record<string, string>;
  cwd?: string;
  /** `inherit` (default): the child's stderr is this process's; `ignore`; `pipe`: read and dropped. */
  stderr?: 'inherit' | 'ignore' | 'pipe';
}

/** What the channel reports: each message (a parsed line) and, once, the end of the connection with why. */
export interface StdioChannelHandlers {
  message(value: unknown): void;
  closed(reason: McpLiteError): void;
}

/** A spawned server's stdin and stdout as one message channel (JSON lines each way). */
export interface StdioChannel {
  /** Queues one message; the messages of one turn are written together. Resolves once the pipe took them. */
  send(message: unknown): Promise<void>;
  /** Ends stdin and waits for the child to exit, escalating to SIGTERM, then SIGKILL, after `CLOSE_GRACE_MS` each. */
  close(): Promise<void>;
}

/**
 * The variables a child inherits without being given them, as sudo keeps them: enough to find programs and a home,
 * never a token of this process's. A value that is a shell function (`()…`) is left out.
 */
const INHERITED_ENV =
  process.platform === 'win32'
    ? [
        'APPDATA',
        'HOMEDRIVE',
        'HOMEPATH',
        'LOCALAPPDATA',
        'PATH',
        'PROCESSOR_ARCHITECTURE',
        'SYSTEMDRIVE',
        'SYSTEMROOT',
        'TEMP',
        'USERNAME',
        'USERPROFILE',
        'PROGRAMFILES',
      ]
    : ['HOME', 'LOGNAME', 'PATH', 'SHELL', 'TERM', 'USER'];

/** How long `close` waits at each step (stdin ended, then SIGTERM) before the next. */
const CLOSE_GRACE_MS = 2000;

/** The inherited part of a child's environment (`INHERITED_ENV`). */
function inheritedEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const key of INHERITED_ENV) {
    const value = process.env[key];
    if (value !== undefined && !value.startsWith('()')) env[key] = value;
  }
  return env;
}

/**
 * Spawns `server` (cross-spawn: a `.cmd` shim or a shebang runs on Windows as on POSIX) and resolves once it runs;
 * a command that cannot start rejects with the spawn error. A line past `maxLineBytes` (one message) ends the
 * connection with `maxResponseBytes` as the reason, as soon as it passes the bound; a line that is not JSON
 * (a server's stray log) is skipped.
 */
export function openStdioChannel(
  server: StdioCommand,
  maxLineBytes: number,
  handlers: StdioChannelHandlers,
): Promise<StdioChannel> {
  const child: ChildProcess = spawn(server.command, server.args, {
    env: { ...inheritedEnv(), ...server.env },
    stdio: ['pipe', 'pipe', server.stderr ?? 'inherit'],
    shell: false,
    windowsHide: true,
    ...(server.cwd ? { cwd: server.cwd } : {}),
  });
  const { stdin, stdout } = child;
  let ended: McpLiteError | undefined;
  const end = (reason: McpLiteError) => {
    if (ended) return;
    ended = reason;
    stopReading?.();
    handlers.closed(reason);
  };
  let stopReading: (() => void) | undefined;
  /** Lines queued in this turn (`send`), written as one. */
  let outbox: string[] = [];
  let flushed: Promise<void> | undefined;

  return new Promise((resolve, reject) => {
    child.once('error', (err) => {
      if (!ended) reject(err);
      end(new McpLiteError('unavailable', `The server process failed: ${err.message}`));
    });
    child.once('spawn', () => {
      // The child must not outlive this process, whichever way it ends (see child-reaper.ts).
      endWithProcess(child);
      child.stderr?.resume();
      stopReading = readLines(stdout as NonNullable<typeof stdout>, maxLineBytes, {
        line(bytes) {
          let message: unknown;
          try {
            message = JSON.parse(bytes.toString('utf8'));
          } catch {
            return;
          }
          handlers.message(message);
        },
        oversized(limit) {
          end(boundExceeded('maxResponseBytes', limit));
          void close();
        },
        // The end of the connection is the child's 'close' (below), once its last lines were read.
        end: () => {},
      });
      resolve({ send, close });
    });
    // Short, as it is quoted inside state lines with the command after it (the gateway's readiness reason).
    child.once('close', (code, signal) =>
      end(
        new McpLiteError(
          'unavailable',
          `Exited (${signal ?? `code ${code}`})`,
          signal ? { signal } : { exit_code: code },
        ),
      ),
    );
    // A pipe that breaks as the child dies: its 'exit' says why.
    stdin?.on('error', () => {});
  });

  /**
   * Queues one message: the calls in flight are answered together and send their next requests together, and one
   * write each (a system call, and the child woken each time) would cost more than the rest of a call.
   */
  function send(message: unknown): Promise<void> {
    if (ended || !stdin || stdin.destroyed)
      return Promise.reject(ended ?? new McpLiteError('unavailable', 'The server process is gone'));
    outbox.push(`${JSON.stringify(message)}\n`);
    flushed ??= new Promise<void>((resolve) => {
      setImmediate(() => {
        const text = outbox.join('');
        outbox = [];
        flushed = undefined;
        if (stdin.destroyed || stdin.write(text)) resolve();
        else stdin.once('drain', resolve);
      });
    });
    return flushed;
  }

  async function close(): Promise<void> {
    const exited = new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) resolve();
      else child.once('exit', () => resolve());
    });
    try {
      stdin?.end();
    } catch {
      // Gone already.
    }
    for (const signal of ['SIGTERM', 'SIGKILL'] as const) {
      if (await settlesWithin(exited, CLOSE_GRACE_MS, { unref: true })) break;
      child.kill(signal);
    }
    end(new McpLiteError('unavailable', 'The connection was closed'));
  }
}
