/**
 * Run by test/cross-binding/ipv6-caller-prefix.test.ts inside a network namespace of its own, whose loopback has
 * 2001:db8:1:2::10, 2001:db8:1:2::20 (one /64) and 2001:db8:1:3::10 (another). A connection to one of those
 * addresses comes from that same address, so each client below is a distinct IPv6 peer. It exercises the
 * per-caller bounds of several bindings from each address and prints what it saw as one JSON line; the test
 * judges it.
 */
import type { ServiceError } from '@grpc/grpc-js';
import { listenGrpc } from '../../src/bindings/grpc/index.js';
import { bearerAuth } from '../../src/core/auth.js';
import type { ToolDefinition } from '../../src/core/tool.js';
import { createServer } from '../../src/create-server.js';
import { serve } from '../../src/serve.js';
import { makeClient, toolRequest, unary } from './grpc-client.js';

const A = '2001:db8:1:2::10';
const B = '2001:db8:1:2::20';
const OTHER = '2001:db8:1:3::10';

let release!: () => void;
const released = new Promise<void>((r) => {
  release = r;
});
let started = 0;
const tools: ToolDefinition[] = [
  {
    name: 'hold',
    handler: async () => {
      started++;
      await released;
      return 'held';
    },
  },
  { name: 'echo', handler: () => 'echo' },
];

/** The gRPC status of a call that ends, or "admitted" once the handler runs (it is held until the end). */
async function gRpcAdmission(address: string, name: string): Promise<number | 'admitted'> {
  const client = makeClient(address, 'spec', { 'grpc.use_local_subchannel_pool': 1 });
  const before = started;
  const outcome = unary(client, 'CallTool', toolRequest(name));
  const settled = await Promise.race([
    outcome.then((o) => (o.error ? (o.error as ServiceError).code : 0)),
    new Promise<'admitted'>((resolve) => {
      const poll = setInterval(() => {
        if (started > before) {
          clearInterval(poll);
          resolve('admitted');
        }
      }, 5);
    }),
  ]);
  return settled;
}

/** Per-caller gRPC calls in flight (bound 1), from A, then B (A's /64), then OTHER. */
async function grpcInFlight(ipv6CallerPrefix?: number) {
  started = 0;
  const server = createServer({ tools, ...(ipv6CallerPrefix !== undefined ? { ipv6CallerPrefix } : {}) });
  const grpc = await listenGrpc(server, { host: '::', maxCallsPerCaller: 1 });
  const at = (host: string) => `[${host}]:${grpc.port}`;
  const result = {
    a: await gRpcAdmission(at(A), 'hold'),
    b: await gRpcAdmission(at(B), 'hold'),
    other: await gRpcAdmission(at(OTHER), 'hold'),
  };
  return { result, stop: () => grpc.close(100).then(() => server.close()) };
}

/** POSTs JSON to `url`, answering the status and the parsed body. */
async function postJson(url: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...headers,
    },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: await res.text() };
}

/** Over HTTP: the rate limit (MCP-lite HTTP, core) and MCP sessions per caller (Streamable HTTP), bound 1 each. */
async function overHttp() {
  const server = createServer({ tools, rateLimit: { requestsPerSecond: 0.001, burst: 1 } });
  const running = await serve(server, { host: '::', port: 0, mcp: { maxSessionsPerCaller: 1 } });
  const port = new URL(running.url).port;
  const call = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo', arguments: {} } };
  const init = {
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'probe', version: '1' } },
  };
  const rate: Record<string, number> = {};
  const sessions: Record<string, number> = {};
  for (const [who, host] of [
    ['a', A],
    ['b', B],
    ['other', OTHER],
  ] as const) {
    rate[who] = (await postJson(`http://[${host}]:${port}/mcp-lite/v1/calltools`, call)).status;
    sessions[who] = (await postJson(`http://[${host}]:${port}/mcp`, init)).status;
  }
  await running.close(100);
  return { rate, sessions };
}

/** With auth on, one principal is one caller wherever it connects from, and two principals in one /64 are two. */
async function principals() {
  started = 0;
  const server = createServer({ tools, authenticate: bearerAuth(['t0', 't1']) });
  const grpc = await listenGrpc(server, { host: '::', maxCallsPerCaller: 1 });
  const { Metadata } = await import('@grpc/grpc-js');
  const admission = async (host: string, token: string) => {
    const client = makeClient(`[${host}]:${grpc.port}`, 'spec', { 'grpc.use_local_subchannel_pool': 1 });
    const metadata = new Metadata();
    metadata.set('authorization', `Bearer ${token}`);
    const before = started;
    const call = unary(client, 'CallTool', toolRequest('hold'), { metadata });
    return Promise.race([
      call.then((o) => (o.error ? o.error.code : 0)),
      new Promise<'admitted'>((resolve) => {
        const poll = setInterval(() => {
          if (started > before) {
            clearInterval(poll);
            resolve('admitted');
          }
        }, 5);
      }),
    ]);
  };
  const result = { t0FromA: await admission(A, 't0'), t1FromB: await admission(B, 't1') };
  return { result, stop: () => grpc.close(100).then(() => server.close()) };
}

const byPrefix = await grpcInFlight();
const byAddress = await grpcInFlight(128);
const authed = await principals();
const http = await overHttp();
release();
await Promise.all([byPrefix.stop(), byAddress.stop(), authed.stop()]);
process.stdout.write(
  `${JSON.stringify({ grpc: byPrefix.result, grpcPrefix128: byAddress.result, principals: authed.result, ...http })}\n`,
);
process.exit(0);
