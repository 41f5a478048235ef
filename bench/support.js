// Helpers shared by the benchmark sections and their servers: child processes that announce a URL, keep-alive
// JSON-RPC calls, number formatting and the pieces several servers share.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root (bench/..), so that sections work from any working directory. */
export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/**
 * Spawns `node args…` and waits until a stdout line matches `pattern` (its first group is returned as `match`).
 * stderr is passed through so that crashes are visible. `ipc: true` opens a message channel (child.send).
 * `wrapper` runs node under another program (`['valgrind', '-q', …]`): the child is that program.
 */
export async function startChild(
  args,
  pattern,
  { timeoutMs = 20_000, env, nodeOptions = [], ipc = false, wrapper = [] } = {},
) {
  const node = [process.execPath, ...nodeOptions, ...args];
  const [program, ...programArgs] = [...wrapper, ...node];
  const child = spawn(program, programArgs, {
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

/** A number from the environment variable `name`, or `fallback` when it is not set. */
export function envNumber(name, fallback) {
  return Number(process.env[name] ?? fallback);
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

/** The `q` quantile (0..1) of ascending `sorted` latencies; undefined when there are none. */
export function percentile(sorted, q) {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

/** Microseconds per item of a CPU time (ms) read before and after `n` items; undefined when either is unknown. */
export function perMicros(beforeMs, afterMs, n) {
  return beforeMs !== undefined && afterMs !== undefined && n > 0
    ? ((afterMs - beforeMs) * 1000) / n
    : undefined;
}

/** Runs `task(i)` for i in 0..n-1 with at most `concurrency` at once; resolves with the results in order. */
export async function pool(n, task, concurrency) {
  const results = new Array(n);
  let next = 0;
  const worker = async () => {
    while (next < n) {
      const i = next++;
      results[i] = await task(i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, n) }, worker));
  return results;
}

export const JSON_HEADERS = { 'content-type': 'application/json' };

/**
 * POSTs a body with node:http (with a keep-alive `agent`: several times quicker per call than fetch, so that
 * sections that make many calls stay short); resolves with the status, the headers and the body text.
 */
export function post(url, body, { agent, headers = JSON_HEADERS } = {}) {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', agent, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => {
        text += chunk;
      });
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, text }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** The JSON-RPC body of a tools/call. */
export function toolCallBody(name, args) {
  return JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } });
}

/** A tools/call over MCP-lite HTTP JSON-RPC at `rpcUrl`; resolves with the result, rejects on any error. */
export async function callTool(rpcUrl, agent, name, args) {
  const { status, text } = await post(rpcUrl, toolCallBody(name, args), { agent });
  const reply = JSON.parse(text);
  if (status !== 200 || reply.error)
    throw new Error(`${name} failed (HTTP ${status}): ${text.slice(0, 300)}`);
  return reply.result;
}

/** The promise token of a tools/call result that must be a promise; throws on anything else. */
export function promiseToken(result) {
  const token = result._meta?.promise_token;
  if (result._meta?.response_type !== 'promise' || typeof token !== 'string') {
    throw new Error(`expected a promise, got ${JSON.stringify(result)}`);
  }
  return token;
}

/**
 * Whether the sections that count or load the other MCP servers (tmcp, the official SDK v1 and v2) include them;
 * `BENCH_PEERS=0` leaves them out.
 */
export const WITH_PEERS = process.env.BENCH_PEERS !== '0';

/**
 * Starts a peer MCP server (`script`, from the repository's root) that prints `pattern` with its URL once it
 * listens, as a throughput contender given `request` (its headers and body) and checked for echo's answer.
 */
export async function startPeer(name, script, pattern, request) {
  const { child, match } = await startChild([join(ROOT, script)], pattern);
  return {
    name,
    child,
    url: match,
    ...request,
    check: (reply) => reply.result?.structuredContent?.message === 'hello',
    runs: [],
  };
}

/** The arguments every throughput section sends the demo's echo tool. */
export const ECHO_ARGUMENTS = { message: 'hello', repeat: 2 };

/** The benchmark call of the demo server's echo tool, and the contender that loads `url` (MCP-lite rpc) with it. */
export const ECHO_CALL = toolCallBody('echo', ECHO_ARGUMENTS);

/** The request the official SDK peers accept: a stateless tools/call at the newest revision they speak, no session. */
export const SDK_PEER_REQUEST = {
  headers: {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': '2025-11-25',
  },
  body: ECHO_CALL,
};

/**
 * A stateless MCP tools/call of echo as a 2026-07-28 client sends it: `_meta` with the revision and capabilities,
 * no session.
 */
export const MCP_STATELESS_CALL = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'tools/call',
  params: {
    name: 'echo',
    arguments: ECHO_ARGUMENTS,
    _meta: {
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientCapabilities': {},
    },
  },
});

/** The headers a 2026-07-28 client sends with a stateless tools/call (SEP-2243's routing headers among them). */
export const MCP_HEADERS = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': '2026-07-28',
  'mcp-method': 'tools/call',
  'mcp-name': 'echo',
};

export function echoContender(name, child, url) {
  return {
    name,
    child,
    url,
    headers: JSON_HEADERS,
    body: ECHO_CALL,
    // A real answer with its metadata, not an error that happens to be quick.
    check: (reply) =>
      reply.result?._meta?.response_type === 'answer' && reply.result.content?.message === 'hello',
    runs: [],
  };
}

/**
 * `mcplite serve --demo` from dist, started the way a user starts it (no gRPC, warnings-only logging), with
 * `extraArgs` (e.g. --redis …) and `startChild`'s options (`env`, `wrapper`, …). Resolves with the child and the
 * base URL of the MCP-lite endpoints (…/mcp-lite/v1/).
 */
export async function startMcpliteServe(extraArgs = [], childOptions = {}) {
  const cli = join(ROOT, 'dist/src/cli/main.js');
  const args = [
    cli,
    'serve',
    '--demo',
    ...extraArgs,
    '--port',
    '0',
    '--grpc-port',
    'off',
    '--log-level',
    'warn',
  ];
  const { child, match } = await startChild(args, /mcplite listening on (http:\/\/\S+)/, childOptions);
  return { child, base: match.endsWith('/') ? match : `${match}/` };
}

// --- For the bench servers (bench/*-server.js) ---

/** A long-running tool that settles at once with a small answer: what a promise costs beyond the work itself. */
export const quickTool = {
  name: 'quick',
  description: 'Answers at once, as promised work',
  inputSchema: { type: 'object', properties: { n: { type: 'integer' } } },
  longRunning: { estimatedMs: 1 },
  handler: (args) => ({ n: args.n ?? 0 }),
};

/** On SIGTERM, closes `running` (and then whatever `then` closes) the way the CLI does, and exits 0 (1 on error). */
export function exitOnSigterm(running, then = async () => {}) {
  process.on('SIGTERM', () => {
    running
      .close(2000)
      .then(then)
      .then(
        () => process.exit(0),
        () => process.exit(1),
      );
  });
}

/**
 * The bare node:http JSON-RPC echo (bench/baseline-http.js), as a load contender: it answers `body`'s arguments
 * as `content`, with no validation, routing or metadata. `headers` are the request's: give it the headers the
 * contender it is compared with receives (MCP's routing headers, say), so that both parse the same request.
 * `childOptions` are startChild's (an `env`, `nodeOptions`); `name` labels the contender.
 */
export async function startHttpBaseline(
  body,
  headers = JSON_HEADERS,
  childOptions = {},
  name = 'node:http baseline',
) {
  const { child, match } = await startChild(
    [join(ROOT, 'bench/baseline-http.js')],
    /baseline listening on (\S+)/,
    childOptions,
  );
  return {
    name,
    child,
    url: match,
    headers,
    body,
    check: (reply) => reply.result?.content?.message === 'hello',
    runs: [],
  };
}

/**
 * The official MCP TypeScript SDK's stateless Streamable HTTP server (bench/sdk-mcp-server.js: a new McpServer
 * and transport per request, as the SDK's stateless example does) with the same echo tool, as a load contender.
 */
export function startSdkServer(name, body) {
  // The request this server was benchmarked with from the start (the section's 10x target is measured on it).
  const request = { headers: { ...SDK_PEER_REQUEST.headers, 'mcp-protocol-version': '2025-06-18' }, body };
  return startPeer(name, 'bench/sdk-mcp-server.js', /sdk listening on (\S+)/, request);
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
