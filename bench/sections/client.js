// The universal client (mcplite/client): calls per second through `client.call` against a raw call loop on the
// same wire in the same run (fetch with hand-written JSON-RPC for MCP-lite HTTP and stateless MCP, fetch with the
// Webtools execute body, a grpc-js stub for gRPC, line-delimited JSON-RPC on a spawned process's stdin/stdout for
// MCP over stdio), same concurrency, against mcplite servers in their own processes (one serving every HTTP
// binding and gRPC; for stdio, one process for the raw loop and one the client spawns). The ratio is the client's
// overhead.

import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { credentials, loadPackageDefinition } from '@grpc/grpc-js';
import { loadSync } from '@grpc/proto-loader';
import { connect } from '../../dist/src/client/index.js';
import { fmt, ROOT, startChild, stopChild } from '../support.js';

const SECONDS = Number(process.env.BENCH_CLIENT_SECONDS ?? 3);
const CONCURRENCY = Number(process.env.BENCH_CLIENT_CONCURRENCY ?? 16);
const ARGS = { message: 'hello' };
/** The stdio server as a command line (the client's target); quoted, since ROOT may hold spaces. */
const STDIO_ARGS = [join(ROOT, 'bench/client-server.js'), '--stdio'];
const STDIO_COMMAND = [process.execPath, ...STDIO_ARGS].map((a) => JSON.stringify(a)).join(' ');

export default async function run() {
  console.log(
    `\n## Client: calls/s of echo through mcplite/client vs a raw loop (${CONCURRENCY} in flight, ${SECONDS} s each)`,
  );
  const { child, match } = await startChild(
    [join(ROOT, 'bench/client-server.js')],
    /client bench listening (\S+ \d+)/,
  );
  const [url, grpcPort] = match.split(' ');
  const rows = [];
  try {
    const lite = `${url}/mcp-lite/v1/`;
    rows.push(await pair('MCP-lite HTTP', rawHttp(`${lite}calltools`), lite));
    rows.push(await pair('MCP stateless', rawMcp(`${url}/mcp`), `${url}/mcp`));
    rows.push(await pair('gRPC', rawGrpc(`127.0.0.1:${grpcPort}`), `grpc://127.0.0.1:${grpcPort}`));
    const webtool = `${url}/webtools/client-bench/`;
    rows.push(await pair('Webtools', rawWebtools(webtool), webtool));
  } finally {
    await stopChild(child);
  }
  const raw = await rawStdio();
  try {
    rows.push(await pair('MCP stdio', raw.call, STDIO_COMMAND, { binding: 'stdio', stderr: 'inherit' }));
  } finally {
    await raw.close();
  }
  console.log(
    `${'binding'.padEnd(14)}  ${'raw calls/s'.padStart(12)}  ${'client calls/s'.padStart(14)}  ratio`,
  );
  for (const r of rows)
    console.log(
      `${r.name.padEnd(14)}  ${fmt(r.raw).padStart(12)}  ${fmt(r.client).padStart(14)}  ${(r.client / r.raw).toFixed(2)}x`,
    );
  return {
    ok: rows.every((r) => r.client > 0 && r.raw > 0),
    summary: rows.map(
      (r) =>
        `client ${r.name}: ${fmt(r.client)} calls/s, raw ${fmt(r.raw)} (${(r.client / r.raw).toFixed(2)}x)`,
    ),
  };
}

async function pair(name, raw, target, options) {
  const client = await connect(target, options);
  try {
    await measure(raw, 0.5);
    await measure(() => client.call('echo', ARGS), 0.5);
    const rawRate = await measure(raw, SECONDS);
    const clientRate = await measure(async () => {
      const o = await client.call('echo', ARGS);
      if (o.type !== 'answer') throw new Error(`unexpected ${o.type}`);
    }, SECONDS);
    return { name, raw: rawRate, client: clientRate };
  } finally {
    await client.close();
  }
}

/** Runs `call` with CONCURRENCY loops for `seconds`; calls per second. */
async function measure(call, seconds) {
  const until = performance.now() + seconds * 1000;
  let count = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (performance.now() < until) {
        await call();
        count++;
      }
    }),
  );
  return count / ((performance.now() - started) / 1000);
}

function rawHttp(endpoint) {
  let id = 0;
  return async () => {
    const res = await fetch(endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: ++id,
        method: 'tools/call',
        params: { name: 'echo', arguments: ARGS },
      }),
    });
    const body = await res.json();
    if (!body.result) throw new Error('no result');
  };
}

function rawMcp(endpoint) {
  let id = 0;
  return async () => {
    const res = await fetch(endpoint, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'tools/call',
        'mcp-name': 'echo',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: ++id,
        method: 'tools/call',
        params: {
          name: 'echo',
          arguments: ARGS,
          _meta: {
            'io.modelcontextprotocol/protocolVersion': '2026-07-28',
            'io.modelcontextprotocol/clientCapabilities': {},
          },
        },
      }),
    });
    const body = await res.json();
    if (!body.result) throw new Error(`no result: ${JSON.stringify(body)}`);
  };
}

function rawWebtools(endpoint) {
  const body = JSON.stringify({ action: 'echo', request: ARGS });
  return async () => {
    const res = await fetch(endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    });
    const reply = await res.json();
    if (reply.status !== 'ok') throw new Error(`not ok: ${JSON.stringify(reply)}`);
  };
}

/**
 * MCP over stdio by hand: spawns the stdio server, initializes, then each call writes one `tools/call` line and
 * waits for the line with its id (calls in flight are matched by id, as the client's SDK does).
 */
async function rawStdio() {
  const child = spawn(process.execPath, STDIO_ARGS, { cwd: ROOT, stdio: ['pipe', 'pipe', 'inherit'] });
  const pending = new Map();
  createInterface({ input: child.stdout }).on('line', (line) => {
    const message = JSON.parse(line);
    const waiter = message.id !== undefined ? pending.get(message.id) : undefined;
    if (!waiter) return;
    pending.delete(message.id);
    if (message.error) waiter.reject(new Error(JSON.stringify(message.error)));
    else waiter.resolve(message.result);
  });
  let id = 0;
  const request = (method, params) =>
    new Promise((resolve, reject) => {
      const n = ++id;
      pending.set(n, { resolve, reject });
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: n, method, params })}\n`);
    });
  await request('initialize', {
    protocolVersion: '2025-06-18',
    capabilities: {},
    clientInfo: { name: 'raw-stdio-bench', version: '0' },
  });
  child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
  return {
    call: async () => {
      const result = await request('tools/call', { name: 'echo', arguments: ARGS });
      if (result.isError) throw new Error(`tool error: ${JSON.stringify(result)}`);
    },
    close: async () => {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.stdin.end();
      const timer = setTimeout(() => child.kill('SIGKILL'), 3000);
      await exited;
      clearTimeout(timer);
    },
  };
}

function rawGrpc(address) {
  const def = loadSync(join(ROOT, 'proto/mcplite.proto'), {
    keepCase: true,
    longs: Number,
    enums: String,
    defaults: false,
    oneofs: true,
  });
  const Service = loadPackageDefinition(def).mcplite.MCPLite;
  const stub = new Service(address, credentials.createInsecure());
  const request = { name: 'echo', arguments: { fields: { message: { stringValue: 'hello' } } } };
  return () =>
    new Promise((resolve, reject) =>
      stub.CallTool(request, (err, res) => (err ? reject(err) : resolve(res))),
    );
}
