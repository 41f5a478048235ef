// The universal client (mcplite/client): calls per second through `client.call` against a raw call loop on the
// same wire in the same run (fetch with hand-written JSON-RPC for MCP-lite HTTP and stateless MCP, a grpc-js stub
// for gRPC), same concurrency, against one mcplite server in its own process. The ratio is the client's overhead.

import { join } from 'node:path';
import { credentials, loadPackageDefinition } from '@grpc/grpc-js';
import { loadSync } from '@grpc/proto-loader';
import { connect } from '../../dist/src/client/index.js';
import { fmt, ROOT, startChild, stopChild } from '../support.js';

const SECONDS = Number(process.env.BENCH_CLIENT_SECONDS ?? 3);
const CONCURRENCY = Number(process.env.BENCH_CLIENT_CONCURRENCY ?? 16);
const ARGS = { message: 'hello' };

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
  } finally {
    await stopChild(child);
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

async function pair(name, raw, target) {
  const client = await connect(target);
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
