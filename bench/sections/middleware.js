// Middleware cost: the same mcplite server (the demo's tools over MCP-lite HTTP, bench/middleware-server.js) with
// one no-op user middleware (`(op, next) => next()`) against none, loaded alike in the same run. The chain should
// cost a call next to nothing: the ratio must stay within 5% of 1.
import { join } from 'node:path';
import {
  allClean,
  describeLoad,
  loadSettings,
  meanOfDefined,
  meanRps,
  measureContenders,
  pairedRatio,
  printRatio,
  printTable,
} from '../load.js';
import { echoContender, fmt, ROOT, startChild } from '../support.js';

/** The load: the same for both servers (see bench/load.js for the settings and how rounds are paired). */
const LOAD = loadSettings();

/** The target: one no-op middleware keeps at least this fraction of the throughput without any. */
const TARGET_RATIO = 0.95;

export default async function run() {
  console.log('\n## Middleware: tools/call of echo over MCP-lite HTTP, one no-op middleware against none');
  console.log(describeLoad(LOAD));
  const contenders = await measureContenders(
    [() => startServer('one no-op middleware', true), () => startServer('no middleware', false)],
    LOAD,
  );
  const [withMiddleware, without] = contenders;
  printTable(contenders, without);
  const ratio = pairedRatio(withMiddleware, without);
  printRatio('middleware/none', ratio);
  // The server's own CPU per answered request drifts less with the machine's load than throughput does: printed
  // beside the verdict, which stays on the throughput ratio as in the other sections.
  const cpuWith = meanOfDefined(withMiddleware.runs, 'cpuMicrosPerRequest');
  const cpuWithout = meanOfDefined(without.runs, 'cpuMicrosPerRequest');
  const cpuNote =
    cpuWith !== undefined && cpuWithout !== undefined
      ? `; server CPU ${cpuWith.toFixed(1)} vs ${cpuWithout.toFixed(1)} µs/req (${(cpuWith / cpuWithout).toFixed(2)}x)`
      : '';
  const clean = allClean(contenders);
  const met = clean && ratio.median >= TARGET_RATIO;
  console.log(
    `middleware/none ${ratio.median.toFixed(2)}x: ${met ? 'meets' : 'MISSES'} the ${TARGET_RATIO}x target` +
      `${clean ? '' : ' (errors during load)'}${cpuNote}`,
  );
  return {
    ok: met,
    summary: [
      `middleware: ${fmt(meanRps(withMiddleware))} req/s with one no-op middleware, ` +
        `${fmt(meanRps(without))} req/s without, ${ratio.median.toFixed(2)}x (median of ` +
        `${ratio.perRound.length} paired rounds)${cpuNote}`,
    ],
  };
}

/** The bench server in its own process, with or without the no-op middleware. */
async function startServer(name, withMiddleware) {
  const script = join(ROOT, 'bench/middleware-server.js');
  const { child, match } = await startChild(
    [script, ...(withMiddleware ? ['--middleware'] : [])],
    /middleware bench listening (http:\/\/\S+)/,
  );
  return echoContender(name, child, `${match}/mcp-lite/v1/rpc`);
}
