/**
 * The process side of the local clusters (scripts/scale-cluster.mjs re-exports all of it): free ports, waiting for
 * a port or a line of output, spawning commands with their output kept, and stopping them, every process started
 * here killed when this process exits. Plain ESM with no build step, like scale-cluster.mjs.
 */
import { spawn } from 'node:child_process';
import { connect, createServer } from 'node:net';
import { fileURLToPath } from 'node:url';

/** The repository's root. */
export const ROOT = fileURLToPath(new URL('..', import.meta.url));
/** A TCP port free on 127.0.0.1 right now. */
export function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/** The first port from `from` on (at most `count` tried) that 127.0.0.1 can listen on now. */
export async function firstFreePort(from, count = 20) {
  for (let port = from; port < from + count; port++) {
    const free = await new Promise((resolve) => {
      const s = createServer();
      s.once('error', () => resolve(false));
      s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)));
    });
    if (free) return port;
  }
  return freePort();
}

/** True when something accepts TCP connections on 127.0.0.1:port. */
export function portAnswers(port, host = '127.0.0.1', timeoutMs = 500) {
  return new Promise((resolve) => {
    const socket = connect({ port, host });
    const done = (ok) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

/** Resolves once the port accepts connections; rejects after `timeoutMs` (or when `proc` exits first). */
export async function waitForPort(port, timeoutMs = 10_000, proc) {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (proc && proc.exitCode !== undefined)
      throw new Error(
        `${proc.name} exited (${proc.exitCode}) before port ${port} answered:\n${proc.stderr()}`,
      );
    if (await portAnswers(port)) return;
    await sleep(50);
  }
  throw new Error(`nothing answered on 127.0.0.1:${port} within ${timeoutMs} ms`);
}

/** A promise resolved after `ms`. */
export function sleep(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Every process started here and still running: `stopAll` ends them (tests call it in afterAll). */
const running = new Set();
// However this process ends, it leaves no replica, balancer or Redis of its own behind.
process.once('exit', () => {
  for (const p of running) {
    try {
      p.child.kill('SIGKILL');
    } catch {
      // already gone
    }
  }
});

/**
 * Spawns a command with its output collected. `proc.exited` resolves with the exit code or the signal;
 * `proc.exitCode` is undefined while it runs.
 */
export function spawnProcess(name, command, args, options = {}) {
  const child = spawn(command, args, {
    cwd: options.cwd ?? ROOT,
    env: { ...process.env, ...(options.env ?? {}) },
    stdio: ['ignore', 'pipe', 'pipe'],
    // Detached: a terminal's Ctrl-C reaches only the parent, which then stops its children in order.
    detached: options.detached ?? false,
  });
  let out = '';
  let err = '';
  const keep = options.keepChars ?? 200_000;
  child.stdout.setEncoding('utf8').on('data', (c) => {
    out = (out + c).slice(-keep);
    if (options.echo) process.stdout.write(prefixLines(name, c));
  });
  child.stderr.setEncoding('utf8').on('data', (c) => {
    err = (err + c).slice(-keep);
    if (options.echo) process.stderr.write(prefixLines(name, c));
  });
  const proc = {
    name,
    child,
    pid: child.pid,
    exitCode: undefined,
    stdout: () => out,
    stderr: () => err,
    exited: undefined,
  };
  running.add(proc);
  proc.exited = new Promise((resolve) => {
    child.once('error', (e) => {
      err += `\n${e.message}`;
      proc.exitCode = 'spawn-error';
      running.delete(proc);
      resolve('spawn-error');
    });
    child.once('exit', (code, signal) => {
      proc.exitCode = code ?? signal;
      running.delete(proc);
      resolve(code ?? signal);
    });
  });
  return proc;
}

function prefixLines(name, chunk) {
  return chunk
    .split('\n')
    .map((l, i, all) => (l === '' && i === all.length - 1 ? '' : `[${name}] ${l}`))
    .join('\n');
}

/** Resolves with the match once `proc`'s stdout (or stderr) matches `pattern`; rejects on exit or timeout. */
export function waitForOutput(proc, pattern, timeoutMs = 15_000, stream = 'stdout') {
  return new Promise((resolve, reject) => {
    const text = stream === 'stdout' ? proc.stdout : proc.stderr;
    const source = stream === 'stdout' ? proc.child.stdout : proc.child.stderr;
    const finish = (fn, value) => {
      clearTimeout(timer);
      source.off('data', check);
      fn(value);
    };
    const check = () => {
      const m = pattern.exec(text());
      if (m) finish(resolve, m);
    };
    const timer = setTimeout(
      () =>
        finish(
          reject,
          new Error(
            `${proc.name}: no ${pattern} within ${timeoutMs} ms\nstdout:\n${proc.stdout()}\nstderr:\n${proc.stderr().slice(-4000)}`,
          ),
        ),
      timeoutMs,
    );
    source.on('data', check);
    proc.exited.then((code) =>
      finish(
        reject,
        new Error(`${proc.name} exited (${code}) before ${pattern}:\n${proc.stderr().slice(-4000)}`),
      ),
    );
    check();
  });
}

/** Ends a process: `signal` first (default SIGTERM), SIGKILL after `graceMs`. Resolves once it has exited. */
export async function stopProcess(proc, signal = 'SIGTERM', graceMs = 3000) {
  if (!proc || proc.exitCode !== undefined) return;
  try {
    proc.child.kill(signal);
  } catch {
    // already gone
  }
  const timer = setTimeout(() => {
    try {
      proc.child.kill('SIGKILL');
    } catch {
      // already gone
    }
  }, graceMs);
  await proc.exited;
  clearTimeout(timer);
}

/** Ends every process started by this module and still running (SIGTERM, then SIGKILL). */
export async function stopAll(graceMs = 3000) {
  await Promise.all([...running].map((p) => stopProcess(p, 'SIGTERM', graceMs)));
}
