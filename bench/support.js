// Helpers shared by the benchmark sections: child processes that announce a URL, and number formatting.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root (bench/..), so that sections work from any working directory. */
export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/**
 * Spawns `node args…` and waits until a stdout line matches `pattern` (its first group is returned as `match`).
 * stderr is passed through so that crashes are visible. `ipc: true` opens a message channel (child.send).
 */
export async function startChild(
  args,
  pattern,
  { timeoutMs = 20_000, env, nodeOptions = [], ipc = false } = {},
) {
  const child = spawn(process.execPath, [...nodeOptions, ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit', ...(ipc ? ['ipc'] : [])],
  });
  let output = '';
  const match = await new Promise((resolveMatch, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(
        new Error(
          `node ${args.join(' ')} did not print ${pattern} within ${timeoutMs} ms; output:\n${output}`,
        ),
      );
    }, timeoutMs);
    child.stdout.setEncoding('utf8');
    let found = false;
    child.stdout.on('data', (chunk) => {
      if (found) return;
      output += chunk;
      const m = pattern.exec(output);
      if (m) {
        found = true;
        clearTimeout(timer);
        resolveMatch(m[1] ?? m[0]);
      }
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(
        new Error(
          `node ${args.join(' ')} exited (${code ?? signal}) before printing ${pattern}; output:\n${output}`,
        ),
      );
    });
  });
  // Keep draining stdout so the child never blocks on a full pipe.
  child.stdout.resume();
  return { child, match };
}

/** Stops a child started by startChild: SIGTERM, then SIGKILL if it is still there after `graceMs`. */
export async function stopChild(child, graceMs = 3000) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await exited;
  clearTimeout(timer);
}

/** Formats a number with thousands separators and `digits` decimals. */
export function fmt(n, digits = 0) {
  return n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

/** Formats a byte count as MiB with one decimal. */
export function mib(bytes) {
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

/**
 * CPU time (user + system, ms) a process has used so far, from /proc (Linux); undefined elsewhere. The clock tick
 * is taken as 10 ms (USER_HZ is 100 on every common Linux), so measure over seconds, not milliseconds.
 */
export function cpuTimeMs(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name, which is in parentheses and may contain spaces: utime is the 12th, stime 13th.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return undefined;
  }
}

/**
 * The bare node:http JSON-RPC echo (bench/baseline-http.js), as a load contender: it answers `body`'s arguments
 * as `content`, with no validation, routing or metadata.
 */
export async function startHttpBaseline(body) {
  const { child, match } = await startChild(
    [join(ROOT, 'bench/baseline-http.js')],
    /baseline listening on (\S+)/,
  );
  return {
    name: 'node:http baseline',
    child,
    url: match,
    headers: { 'content-type': 'application/json' },
    body,
    check: (reply) => reply.result?.content?.message === 'hello',
    runs: [],
  };
}

/**
 * The official MCP TypeScript SDK's stateless Streamable HTTP server (bench/sdk-mcp-server.js: a new McpServer
 * and transport per request, as the SDK's stateless example does) with the same echo tool, as a load contender.
 */
export async function startSdkServer(name, body) {
  const { child, match } = await startChild(
    [join(ROOT, 'bench/sdk-mcp-server.js')],
    /sdk listening on (\S+)/,
  );
  return {
    name,
    child,
    url: match,
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-06-18',
    },
    body,
    check: (reply) => reply.result?.structuredContent?.message === 'hello',
    runs: [],
  };
}

/**
 * Sends a contender the benchmark call a few times and checks each reply in full, so that no contender can win by
 * answering errors. The SDK answers with one SSE event; its data line is the JSON-RPC response.
 */
export async function validateContender(c, times = 5) {
  for (let i = 0; i < times; i++) {
    const res = await fetch(c.url, { method: 'POST', headers: c.headers, body: c.body });
    const text = await res.text();
    let reply;
    try {
      const data = /^data: (.*)$/m.exec(text);
      reply = JSON.parse(data ? data[1] : text);
    } catch {
      reply = undefined;
    }
    // A contender with `jsonRpc: false` (Webtools) is held to its `check` alone.
    const ok =
      res.status === 200 &&
      (c.jsonRpc === false || (reply?.jsonrpc === '2.0' && reply.id === 1 && reply.error === undefined)) &&
      c.check(reply);
    if (!ok) throw new Error(`${c.name} answered the benchmark call wrongly (HTTP ${res.status}): ${text}`);
  }
}
