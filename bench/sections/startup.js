// Cold start: the time from spawning a server process to the first answered tools/call, the way every stdio
// client starts its server and a serverless platform starts a cold instance. mcplite's `serve` of a plain .js
// module over HTTP and over stdio, against the least a node process can do for the same call (bench/baseline-http.js
// and bench/startup/baseline-stdio.js), started alternately in the same run so that load moves them alike. Also
// reported: `serve` of the same module written in TypeScript (tsx's loader), and each process's RSS at its first
// answer (idle: nothing else has run).
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { envNumber, fmt, post, ROOT, toolCallBody } from '../support.js';

/** Alternating rounds per contender; the median is reported. */
const ROUNDS = envNumber('BENCH_STARTUP_ROUNDS', 9);
/** The targets: spawn to first answer at most this multiple of the baseline's; idle RSS at most +15 MB. */
const TARGET_RATIO = 1.5;
const TARGET_RSS_EXTRA_MB = 15;

const CLI = join(ROOT, 'dist/src/cli/main.js');
const ECHO_JS = join(ROOT, 'bench/startup/echo-tools.js');
const ECHO_TS = join(ROOT, 'bench/startup/echo-tools.ts');
const ARGS = { message: 'hello', repeat: 2 };
const CALL = toolCallBody('echo', ARGS);
const STDIO_OPENING = [
  {
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '1' } },
  },
  { jsonrpc: '2.0', method: 'notifications/initialized' },
  { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'echo', arguments: ARGS } },
];

function rssMb(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
}

function stop(child) {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });
}

/** Spawns an HTTP server, waits for its `listening` line (`pattern` captures the URL), POSTs the call. */
async function httpStart(args, pattern, rpcPath) {
  const started = performance.now();
  const child = spawn(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise((resolve, reject) => {
    let out = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk) => {
      out += chunk;
      const m = pattern.exec(out);
      if (m) resolve(m[1]);
    });
    child.once('exit', (code) => reject(new Error(`${args.join(' ')} exited (${code}): ${out}`)));
  });
  const { text } = await post(rpcPath(url), CALL);
  const ms = performance.now() - started;
  if (!text.includes('hello')) throw new Error(`unexpected answer: ${text.slice(0, 200)}`);
  const rss = rssMb(child.pid);
  await stop(child);
  return { ms, rss };
}

/** Spawns a stdio server, writes the opening lines at once, waits for the answer to the tools/call (id 2). */
async function stdioStart(args, opening) {
  const started = performance.now();
  const child = spawn(process.execPath, args, { cwd: ROOT, stdio: ['pipe', 'pipe', 'ignore'] });
  for (const msg of opening) child.stdin.write(`${JSON.stringify(msg)}\n`);
  const answer = await new Promise((resolve, reject) => {
    const lines = createInterface({ input: child.stdout });
    lines.on('line', (line) => {
      if (line.includes('"id":2') || (opening.length === 1 && line.includes('"id":1'))) resolve(line);
    });
    child.once('exit', (code) => reject(new Error(`${args.join(' ')} exited (${code})`)));
  });
  const ms = performance.now() - started;
  if (!answer.includes('hello')) throw new Error(`unexpected answer: ${answer.slice(0, 200)}`);
  const rss = rssMb(child.pid);
  await stop(child);
  return { ms, rss };
}

const serveArgs = (module) => [
  CLI,
  'serve',
  module,
  '--port',
  '0',
  '--grpc-port',
  'off',
  '--log-level',
  'warn',
];
const MCPLITE_URL = /mcplite listening on (http:\/\/\S+)/;

const CONTENDERS = [
  {
    name: 'node:http baseline',
    run: () => httpStart([join(ROOT, 'bench/baseline-http.js')], /baseline listening on (\S+)/, (u) => u),
  },
  {
    name: 'mcplite serve (HTTP, .js)',
    run: () =>
      httpStart(serveArgs(ECHO_JS), MCPLITE_URL, (u) => new URL('rpc', u.endsWith('/') ? u : `${u}/`).href),
  },
  {
    name: 'stdio baseline',
    run: () => stdioStart([join(ROOT, 'bench/startup/baseline-stdio.js')], [STDIO_OPENING[2]]),
  },
  {
    name: 'mcplite serve --stdio (.js)',
    run: () => stdioStart([CLI, 'serve', '--stdio', ECHO_JS, '--log-level', 'warn'], STDIO_OPENING),
  },
  {
    name: 'mcplite serve (HTTP, .ts)',
    run: () =>
      httpStart(serveArgs(ECHO_TS), MCPLITE_URL, (u) => new URL('rpc', u.endsWith('/') ? u : `${u}/`).href),
  },
];

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

export default async function run() {
  console.log(
    `\n## Cold start: spawn to the first answered tools/call (${ROUNDS} alternating rounds, median)`,
  );
  const samples = CONTENDERS.map(() => ({ ms: [], rss: [] }));
  for (let round = 0; round < ROUNDS; round++) {
    for (const [i, c] of CONTENDERS.entries()) {
      const r = await c.run();
      samples[i].ms.push(r.ms);
      samples[i].rss.push(r.rss);
    }
  }
  const rows = CONTENDERS.map((c, i) => ({
    name: c.name,
    ms: median(samples[i].ms),
    rss: median(samples[i].rss),
  }));
  const [httpBase, httpServe, stdioBase, stdioServe, tsServe] = rows;
  console.log('| server | ms to first answer | x baseline | RSS at first answer (MB) |');
  console.log('|---|---|---|---|');
  const base = (row) => (row.name.includes('stdio') ? stdioBase : httpBase);
  for (const row of rows) {
    console.log(`| ${row.name} | ${fmt(row.ms)} | ${fmt(row.ms / base(row).ms, 2)} | ${fmt(row.rss, 1)} |`);
  }
  const httpRatio = httpServe.ms / httpBase.ms;
  const stdioRatio = stdioServe.ms / stdioBase.ms;
  const rssExtra = httpServe.rss - httpBase.rss;
  const ok = httpRatio <= TARGET_RATIO && stdioRatio <= TARGET_RATIO && rssExtra <= TARGET_RSS_EXTRA_MB;
  return {
    ok,
    summary: [
      `serve over HTTP ${fmt(httpRatio, 2)}x and over stdio ${fmt(stdioRatio, 2)}x the bare baseline's start (target <= ${TARGET_RATIO}x); .ts module ${fmt(tsServe.ms / httpBase.ms, 2)}x`,
      `RSS at first answer: baseline + ${fmt(rssExtra, 1)} MB (target <= ${TARGET_RSS_EXTRA_MB} MB)`,
    ],
  };
}
