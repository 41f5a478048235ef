// MCP throughput: a stateless tools/call (2026-07-28: `_meta` with version and capabilities, Mcp-Method/Mcp-Name
// headers, no session) against mcplite's /mcp, the bare node:http JSON-RPC baseline, the official SDK's
// stateless Streamable HTTP server, and the peers (`BENCH_PEERS=0` leaves them out): tmcp on srvx and the official
// SDK v2, all in the same run with the same autocannon settings. The results are
// ratios, so they do not depend on how fast this machine is.

import {
  allClean,
  describeLoad,
  loadSettings,
  meanRps,
  measureContenders,
  pairedRatio,
  printRatio,
  printTable,
} from '../load.js';
import {
  ECHO_ARGUMENTS,
  fmt,
  MCP_HEADERS,
  MCP_STATELESS_CALL,
  SDK_PEER_REQUEST,
  startHttpBaseline,
  startMcpliteServe,
  startPeer,
  startSdkServer,
  toolCallBody,
  WITH_PEERS,
} from '../support.js';

/** The load: the same for every contender (see bench/load.js for the settings and how rounds are paired). */
const LOAD = loadSettings();

/**
 * The issue's targets: at least this fraction of the baseline, at least this multiple of the official SDK and of
 * tmcp (the fastest Node MCP server in published benchmarks).
 */
const TARGET_BASELINE = 0.8;
const TARGET_SDK = 10;
const TARGET_TMCP = 5;

const SDK_CALL = toolCallBody('echo', ECHO_ARGUMENTS);

export default async function run() {
  console.log('\n## MCP: stateless tools/call of echo over Streamable HTTP');
  console.log(describeLoad(LOAD));
  const contenders = await measureContenders(
    [
      startMcplite,
      // The same request, routing headers included: node:http reads every header line of it either way (into
      // rawHeaders; the baseline never asks for the headers object, which node builds on first use).
      () => startHttpBaseline(MCP_STATELESS_CALL, MCP_HEADERS),
      () => startSdkServer('official SDK stateless', SDK_CALL),
      ...(WITH_PEERS
        ? [
            // Each given the request it accepts, as the instruction section gives it.
            () =>
              startPeer('tmcp 1.x (srvx)', 'bench/peers/tmcp-server.js', /tmcp listening on (\S+)/, {
                headers: MCP_HEADERS,
                body: MCP_STATELESS_CALL,
              }),
            () =>
              startPeer(
                'official SDK v2 stateless',
                'bench/peers/sdk-v2-server.js',
                /sdk-v2 listening on (\S+)/,
                SDK_PEER_REQUEST,
              ),
          ]
        : []),
    ],
    LOAD,
  );
  const [mcplite, baseline, sdk, tmcp, sdkV2] = contenders;
  printTable(contenders, baseline);
  const vsBaseline = pairedRatio(mcplite, baseline);
  const vsSdk = pairedRatio(mcplite, sdk);
  const vsTmcp = tmcp && pairedRatio(mcplite, tmcp);
  printRatio('mcplite/baseline', vsBaseline);
  printRatio('mcplite/sdk', vsSdk);
  if (vsTmcp) printRatio('mcplite/tmcp', vsTmcp);
  const clean = allClean(contenders);
  const met =
    clean &&
    vsBaseline.median >= TARGET_BASELINE &&
    vsSdk.median >= TARGET_SDK &&
    (!vsTmcp || vsTmcp.median >= TARGET_TMCP);
  const tmcpPart = vsTmcp ? `, mcplite/tmcp ${vsTmcp.median.toFixed(1)}x (target ${TARGET_TMCP}x)` : '';
  console.log(
    `mcplite/baseline ${vsBaseline.median.toFixed(2)}x (target ${TARGET_BASELINE}x), mcplite/sdk ` +
      `${vsSdk.median.toFixed(1)}x (target ${TARGET_SDK}x)${tmcpPart}: ${met ? 'meets' : 'MISSES'} the targets` +
      `${clean ? '' : ' (errors during load)'}`,
  );
  return {
    ok: met,
    summary: [
      `mcp mcplite: ${fmt(meanRps(mcplite))} req/s, ${vsBaseline.median.toFixed(2)}x baseline, ` +
        `${vsSdk.median.toFixed(1)}x official SDK${vsTmcp ? `, ${vsTmcp.median.toFixed(1)}x tmcp` : ''} ` +
        '(medians of paired rounds)',
      `mcp official SDK (stateless): ${fmt(meanRps(sdk))} req/s`,
      ...(tmcp ? [`mcp tmcp 1.x (srvx): ${fmt(meanRps(tmcp))} req/s`] : []),
      ...(sdkV2 ? [`mcp official SDK v2 (stateless): ${fmt(meanRps(sdkV2))} req/s`] : []),
    ],
  };
}

async function startMcplite() {
  const { child, base } = await startMcpliteServe();
  return {
    name: 'mcplite /mcp',
    child,
    url: new URL('/mcp', base).href,
    headers: MCP_HEADERS,
    body: MCP_STATELESS_CALL,
    check: (reply) =>
      reply.result?.resultType === 'complete' && reply.result.structuredContent?.message === 'hello',
    runs: [],
  };
}
