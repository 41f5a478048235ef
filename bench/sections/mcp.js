// MCP throughput: a stateless tools/call (2026-07-28: `_meta` with version and capabilities, Mcp-Method/Mcp-Name
// headers, no session) against mcplite's /mcp, the bare node:http JSON-RPC baseline and the official SDK's
// stateless Streamable HTTP server, all in the same run with the same autocannon settings. The results are
// ratios, so they do not depend on how fast this machine is.
import { join } from 'node:path';
import autocannon from 'autocannon';
import {
  fmt,
  ROOT,
  startChild,
  startHttpBaseline,
  startSdkServer,
  stopChild,
  validateContender,
} from '../support.js';

const LOAD = {
  connections: Number(process.env.BENCH_CONNECTIONS ?? 50),
  duration: Number(process.env.BENCH_DURATION ?? 10),
  warmup: Number(process.env.BENCH_WARMUP ?? 2),
  rounds: Number(process.env.BENCH_ROUNDS ?? 2),
};

/** The targets: at least this fraction of the baseline, at least this multiple of the official SDK. */
const TARGET_BASELINE = 0.7;
const TARGET_SDK = 10;

const ARGUMENTS = { message: 'hello', repeat: 2 };
const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
};
const STATELESS_CALL = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'tools/call',
  params: { name: 'echo', arguments: ARGUMENTS, _meta: META },
});
const SDK_CALL = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'tools/call',
  params: { name: 'echo', arguments: ARGUMENTS },
});

export default async function run() {
  console.log('\n## MCP: stateless tools/call of echo over Streamable HTTP');
  console.log(
    `autocannon: ${LOAD.connections} connections, ${LOAD.warmup} s warm-up, ${LOAD.rounds} x ${LOAD.duration} s each`,
  );
  const contenders = [];
  try {
    contenders.push(
      await startMcplite(),
      await startHttpBaseline(STATELESS_CALL),
      await startSdkServer('official SDK stateless', SDK_CALL),
    );
    for (const c of contenders) await validateContender(c);
    for (const c of contenders) await load(c, LOAD.warmup);
    for (let round = 0; round < LOAD.rounds; round++)
      for (const c of contenders) c.runs.push(await load(c, LOAD.duration));
  } finally {
    await Promise.all(contenders.map((c) => stopChild(c.child)));
  }
  const rps = (c) => c.runs.reduce((s, r) => s + r.requests.average, 0) / c.runs.length;
  const [mcplite, baseline, sdk] = contenders;
  const clean = contenders.every((c) => c.runs.every((r) => r.errors === 0 && r.non2xx === 0));
  const vsBaseline = rps(mcplite) / rps(baseline);
  const vsSdk = rps(mcplite) / rps(sdk);
  for (const c of contenders) {
    const p99 = c.runs.reduce((s, r) => s + r.latency.p99, 0) / c.runs.length;
    console.log(`${c.name.padEnd(22)} ${fmt(rps(c)).padStart(9)} req/s  p99 ${p99.toFixed(1)} ms`);
  }
  const met = clean && vsBaseline >= TARGET_BASELINE && vsSdk >= TARGET_SDK;
  console.log(
    `mcplite/baseline ${vsBaseline.toFixed(2)}x (target ${TARGET_BASELINE}x), mcplite/sdk ${vsSdk.toFixed(1)}x ` +
      `(target ${TARGET_SDK}x): ${met ? 'meets' : 'MISSES'} the targets${clean ? '' : ' (errors during load)'}`,
  );
  return {
    ok: met,
    summary: [
      `mcp mcplite: ${fmt(rps(mcplite))} req/s, ${vsBaseline.toFixed(2)}x baseline, ${vsSdk.toFixed(1)}x official SDK`,
      `mcp official SDK (stateless): ${fmt(rps(sdk))} req/s`,
    ],
  };
}

async function startMcplite() {
  const cli = join(ROOT, 'dist/src/cli/main.js');
  const { child, match } = await startChild(
    [cli, 'serve', '--demo', '--port', '0', '--grpc-port', 'off', '--log-level', 'warn'],
    /mcplite listening on (http:\/\/[^/\s]+)/,
  );
  return {
    name: 'mcplite /mcp',
    child,
    url: `${match}/mcp`,
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'tools/call',
      'mcp-name': 'echo',
    },
    body: STATELESS_CALL,
    check: (reply) =>
      reply.result?.resultType === 'complete' && reply.result.structuredContent?.message === 'hello',
    runs: [],
  };
}

function load(c, duration) {
  return autocannon({
    url: c.url,
    method: 'POST',
    headers: c.headers,
    body: c.body,
    connections: LOAD.connections,
    duration,
  });
}
