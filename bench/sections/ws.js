// WebSocket: tools/call of echo over MCP over WebSocket (`/mcp`) and over MCP-lite WebSocket (mcplite's demo
// server, started through the CLI as a user starts it) against a bare `ws` JSON-RPC echo server, in the same run: a few connections with many calls in flight
// on each, from a load generator in its own process (bench/ws-load.js). Short rounds, alternating order, median of
// the paired ratios (as bench/load.js explains).
import { join } from 'node:path';
import { pairedRatio, printRatio, printTable } from '../load.js';
import { cpuTimeMs, fmt, ROOT, startChild, stopChild } from '../support.js';

const LOAD = {
  connections: Number(process.env.BENCH_WS_CONNECTIONS ?? 4),
  inFlight: Number(process.env.BENCH_WS_IN_FLIGHT ?? 64),
  duration: Number(process.env.BENCH_DURATION ?? 3),
  warmup: Number(process.env.BENCH_WARMUP ?? 2),
  rounds: Number(process.env.BENCH_ROUNDS ?? 6),
};

/** The target: at least this fraction of the baseline's throughput (median of the paired rounds). */
const TARGET_RATIO = 0.8;

export default async function run() {
  console.log(
    '\n## WebSocket: tools/call of echo {"message":"hello","repeat":2} (MCP and MCP-lite over WebSocket)',
  );
  console.log(
    `ws load generator (own process): ${LOAD.connections} connections x ${LOAD.inFlight} calls in flight, ` +
      `${LOAD.warmup} s warm-up, ${LOAD.rounds} rounds of ${LOAD.duration} s per contender, alternating order`,
  );
  const contenders = [];
  try {
    const mcplite = await startMcplite();
    contenders.push(
      { ...mcplite, name: 'mcplite MCP', url: mcplite.mcpUrl, protocol: 'mcp', runs: [] },
      mcplite,
      await startBaseline(),
    );
    for (let round = 0; round < LOAD.rounds; round++) {
      const order = round % 2 === 0 ? contenders : [...contenders].reverse();
      for (const c of order) c.runs.push(await loadOnce(c, round === 0 ? LOAD.warmup : 0.5));
    }
  } finally {
    // The two mcplite contenders are one process.
    await Promise.all([...new Set(contenders.map((c) => c.child))].map((child) => stopChild(child)));
  }
  const [mcp, lite, baseline] = contenders;
  printTable(contenders, baseline);
  const mcpRatio = pairedRatio(mcp, baseline);
  const liteRatio = pairedRatio(lite, baseline);
  printRatio('mcplite MCP/baseline', mcpRatio);
  printRatio('mcplite MCP-lite/baseline', liteRatio);
  const met = mcpRatio.median >= TARGET_RATIO;
  console.log(
    `mcplite MCP/baseline ${mcpRatio.median.toFixed(2)}x: ${met ? 'meets' : 'MISSES'} the ${TARGET_RATIO}x target ` +
      `(MCP-lite ${liteRatio.median.toFixed(2)}x)`,
  );
  const rps = (c) => c.runs.reduce((s, r) => s + r.requests.average, 0) / c.runs.length;
  return {
    ok: met,
    summary: [
      `ws mcplite MCP: ${fmt(rps(mcp))} calls/s, ${mcpRatio.median.toFixed(2)}x the bare ws baseline ` +
        `(${fmt(rps(baseline))} calls/s; median of ${mcpRatio.perRound.length} paired rounds)`,
      `ws mcplite MCP-lite: ${fmt(rps(lite))} calls/s, ${liteRatio.median.toFixed(2)}x the baseline`,
    ],
  };
}

/** The demo server through the CLI; its MCP-lite WebSocket URL from the line it prints. */
async function startMcplite() {
  const cli = join(ROOT, 'dist/src/cli/main.js');
  const args = [cli, 'serve', '--demo', '--ws', '--port', '0', '--grpc-port', 'off', '--log-level', 'warn'];
  const { child, match } = await startChild(args, /mcplite MCP-lite WebSocket on (ws:\/\/\S+)/);
  // The MCP endpoint is on the same port (its line is printed right after; the URL follows from this one).
  const mcpUrl = new URL('/mcp', match).href.replace(/^http/, 'ws');
  return { name: 'mcplite MCP-lite', child, url: match, mcpUrl, protocol: 'mcp-lite', runs: [] };
}

async function startBaseline() {
  const { child, match } = await startChild(
    [join(ROOT, 'bench/baseline-ws.js')],
    /baseline ws listening on (\S+)/,
  );
  return { name: 'ws baseline', child, url: match, protocol: '-', runs: [] };
}

/** One round of load on one contender, shaped like an autocannon result so that load.js can print and pair it. */
async function loadOnce(c, warmup) {
  const cpuBefore = cpuTimeMs(c.child.pid);
  const { child, match } = await startChild(
    [
      join(ROOT, 'bench/ws-load.js'),
      c.url,
      c.protocol,
      String(warmup),
      String(LOAD.duration),
      String(LOAD.connections),
      String(LOAD.inFlight),
    ],
    /RESULT (.+)/,
    { timeoutMs: 120_000 },
  );
  await stopChild(child);
  const r = JSON.parse(match);
  const cpuAfter = cpuTimeMs(c.child.pid);
  return {
    requests: { average: r.rps, total: r.requests },
    latency: { p50: r.p50, p99: r.p99 },
    errors: 0,
    non2xx: 0,
    // Includes the warm-up's calls in the CPU time but not in the count: a slight overestimate, alike for both.
    ...(cpuBefore !== undefined && cpuAfter !== undefined
      ? { cpuMicrosPerRequest: ((cpuAfter - cpuBefore) * 1000) / r.requests }
      : {}),
  };
}
