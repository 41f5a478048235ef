/**
 * Prometheus metrics (issue 10, operations): a real server whose `onCallEnd` is the metrics observer, calls over
 * MCP-lite HTTP, gRPC, MCP-lite WebSocket and Webtools, then `GET /metrics` parsed as the Prometheus text format: the call counters by
 * tool, binding and outcome, the latency histogram, the stats gauges read at scrape time, the store counters, and
 * prom-client's process metrics. Off by default.
 */
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { echo } from '../../examples/demo/echo.js';
import { serveMcpLiteStdio } from '../../src/bindings/mcp-lite/stdio/index.js';
import { McpLiteError } from '../../src/core/errors.js';
import type { PromiseRecord, Settlement } from '../../src/core/promises/store.js';
import { createServer, MemoryPromiseStore } from '../../src/index.js';
import { createMetrics, type Metrics } from '../../src/metrics.js';
import { type RunningServer, serve, serveMcpStdio } from '../../src/node.js';
import { start } from '../support/cli-process.js';
import { makeClient, toolRequest, unary } from '../support/grpc-client.js';
import { postJson } from '../support/http-harness.js';
import { connectWs } from '../support/ws-client.js';

/** One sample of the exposition: its name, labels and value. */
interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** Parses the Prometheus text format (the subset prom-client writes: no timestamps, escaped label values). */
function parse(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m) throw new Error(`not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) {
      labels[l[1]!] = l[2]!.replace(/\\n/g, '\n').replace(/\\(.)/g, '$1');
    }
    samples.push({ name: m[1]!, labels, value: Number(m[3]) });
  }
  return samples;
}

/** The value of the one sample of `name` whose labels include `labels` (undefined when none). */
function value(samples: Sample[], name: string, labels: Record<string, string> = {}): number | undefined {
  const found = samples.filter(
    (s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v),
  );
  if (found.length > 1) throw new Error(`${name} ${JSON.stringify(labels)} matches ${found.length} samples`);
  return found[0]?.value;
}

async function scrape(url: string): Promise<Sample[]> {
  const res = await fetch(`${url}/metrics`);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  return parse(await res.text());
}

let running: RunningServer;
let metrics: Metrics;
let waiting = 3;

beforeAll(async () => {
  metrics = createMetrics({
    queueStats: () => ({ waiting, running: 1 }),
    promiseStats: async () => ({ pending: 7 }),
  });
  const server = createServer({ tools: [echo], onCallEnd: metrics.observer, secret: 'x'.repeat(32) });
  running = await serve(server, { port: 0, grpcPort: 0, metrics: { metrics } });
});
afterAll(() => running.close(1000));

describe('GET /metrics', () => {
  it('counts calls by tool, binding and outcome across MCP-lite HTTP, gRPC, MCP-lite WebSocket and Webtools', async () => {
    const rpc = `${running.url}/mcp-lite/v1/rpc`;
    const call = (id: number, name: string, args: unknown) =>
      postJson(rpc, { jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } });
    for (let i = 0; i < 3; i++) expect((await call(i, 'echo', { message: 'hi' })).status).toBe(200);
    await call(10, 'echo', { nope: true }); // invalid_params
    await call(11, 'no_such_tool', {}); // tool_not_found
    await call(12, 'another_unknown_tool', {});
    const client = makeClient(running.grpc!.address, 'full');
    try {
      for (let i = 0; i < 2; i++) {
        expect(
          (await unary(client, 'CallTool', toolRequest('echo', { message: 'hi' }))).error,
        ).toBeUndefined();
      }
    } finally {
      client.close();
    }
    const ws = await connectWs(`${running.url.replace(/^http/, 'ws')}/mcp-lite/v1/ws`);
    try {
      const reply = await ws.request('tools/call', { name: 'echo', arguments: { message: 'ws' } });
      expect(reply.result._meta.response_type).toBe('answer');
    } finally {
      ws.ws.close();
    }
    const web = await postJson(`${running.url}/webtools/mcplite/`, {
      action: 'echo',
      request: { message: 'w' },
    });
    expect(web.status).toBe(200);

    const s = await scrape(running.url);
    const calls = 'mcplite_tool_calls_total';
    expect(value(s, calls, { tool: 'echo', binding: 'http', outcome: 'answer' })).toBe(3);
    expect(value(s, calls, { tool: 'echo', binding: 'http', outcome: 'error:invalid_params' })).toBe(1);
    // Unknown names share one label value: a caller cannot grow the series.
    expect(value(s, calls, { tool: '_unknown', binding: 'http', outcome: 'error:tool_not_found' })).toBe(2);
    expect(s.some((x) => x.labels.tool === 'no_such_tool')).toBe(false);
    expect(value(s, calls, { tool: 'echo', binding: 'grpc', outcome: 'answer' })).toBe(2);
    expect(value(s, calls, { tool: 'echo', binding: 'webtools', outcome: 'answer' })).toBe(1);
    expect(value(s, calls, { tool: 'echo', binding: 'ws', outcome: 'answer' })).toBe(1);
    expect(s.filter((x) => x.name === calls && x.labels.binding === 'unknown')).toEqual([]);

    const hist = 'mcplite_tool_call_duration_seconds';
    expect(value(s, `${hist}_count`, { tool: 'echo', binding: 'http' })).toBe(4);
    expect(value(s, `${hist}_count`, { tool: 'echo', binding: 'grpc' })).toBe(2);
    expect(value(s, `${hist}_bucket`, { tool: 'echo', binding: 'grpc', le: '+Inf' })).toBe(2);
    expect(value(s, `${hist}_sum`, { tool: 'echo', binding: 'grpc' })).toBeGreaterThan(0);
  });

  it('reads the promise and queue gauges at scrape time, and exports the process metrics', async () => {
    waiting = 3;
    const s = await scrape(running.url);
    expect(value(s, 'mcplite_promises_pending')).toBe(7);
    expect(value(s, 'mcplite_queue_waiting')).toBe(3);
    expect(value(s, 'mcplite_queue_running')).toBe(1);
    expect(value(s, 'process_cpu_user_seconds_total')).toBeGreaterThan(0);
    expect(value(s, 'nodejs_heap_size_used_bytes')).toBeGreaterThan(0);
    waiting = 9;
    // Scraped until the queue stats one scrape shares with the next have been read again.
    await expect
      .poll(async () => value(await scrape(running.url), 'mcplite_queue_waiting'), {
        timeout: 10_000,
        interval: 200,
      })
      .toBe(9);
  });

  it('needs no bearer token and is off by default', async () => {
    const plain = await serve(createServer({ tools: [echo] }), { port: 0 });
    try {
      expect((await fetch(`${plain.url}/metrics`)).status).toBe(404);
    } finally {
      await plain.close(500);
    }
    const on = await serve(createServer({ tools: [echo] }), { port: 0, metrics: { path: '/ops/metrics' } });
    try {
      const res = await fetch(`${on.url}/ops/metrics`);
      expect(res.status).toBe(200);
      expect(await res.text()).toContain('mcplite_queue_waiting 0');
      expect((await fetch(`${on.url}/ops/metrics`, { method: 'POST' })).status).toBe(405);
    } finally {
      await on.close(500);
    }
  });
});

describe('mcplite serve --metrics', () => {
  it('serves /metrics with the calls made over the CLI server; off without the flag', async () => {
    const cli = await start(['--demo', '--metrics', '--grpc-port', 'off', '--log-level', 'warn']);
    try {
      const origin = new URL(cli.base).origin;
      const res = await postJson(`${cli.base}rpc`, {
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'echo', arguments: { message: 'cli' } },
      });
      expect(res.status).toBe(200);
      const s = await scrape(origin);
      expect(value(s, 'mcplite_tool_calls_total', { tool: 'echo', binding: 'http', outcome: 'answer' })).toBe(
        1,
      );
      expect(value(s, 'mcplite_queue_waiting')).toBe(0);
      expect(value(s, 'mcplite_promises_pending')).toBe(0);
      // A long-running call: one promise pending until its work is done.
      const promised = await postJson(`${cli.base}rpc`, {
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: { name: 'analyze_dataset', arguments: { dataset_id: 'all', analysis_type: 'summary' } },
      });
      expect(((await promised.json()) as any).result._meta.response_type).toBe('promise');
      expect(value(await scrape(origin), 'mcplite_promises_pending')).toBe(1);
    } finally {
      cli.child.kill('SIGTERM');
      await cli.exited;
    }
    const plain = await start(['--demo', '--grpc-port', 'off', '--log-level', 'warn']);
    try {
      expect((await fetch(`${new URL(plain.base).origin}/metrics`)).status).toBe(404);
    } finally {
      plain.child.kill('SIGTERM');
      await plain.exited;
    }
  });
});

describe('binding labels of the stdio framings', () => {
  it('MCP over stdio counts as mcp, MCP-lite over stdio as stdio', async () => {
    const m = createMetrics({ defaultMetrics: false });
    const server = createServer({ tools: [echo], onCallEnd: m.observer });
    /** Sends lines to a stdio framing and resolves with the reply lines once `expected` have come. */
    const exchange = async (
      serveOn: (input: PassThrough, output: PassThrough) => unknown,
      lines: unknown[],
      expected: number,
    ) => {
      const input = new PassThrough();
      const output = new PassThrough();
      let text = '';
      output.setEncoding('utf8').on('data', (c: string) => {
        text += c;
      });
      serveOn(input, output);
      for (const line of lines) input.write(`${JSON.stringify(line)}\n`);
      const deadline = Date.now() + 5000;
      while (text.split('\n').filter(Boolean).length < expected && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 10));
      }
      input.end();
      return text;
    };
    const call = {
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { name: 'echo', arguments: { message: 'x' } },
    };
    await exchange((input, output) => serveMcpLiteStdio(server, { input, output }), [call], 1);
    const mcp = await exchange(
      (input, output) => serveMcpStdio(server, { input, output }),
      [
        {
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: {
            protocolVersion: '2025-06-18',
            capabilities: {},
            clientInfo: { name: 't', version: '1' },
          },
        },
        { jsonrpc: '2.0', method: 'notifications/initialized' },
        call,
      ],
      2,
    );
    expect(mcp).toContain('"id":2');
    const s = parse(await m.text());
    expect(value(s, 'mcplite_tool_calls_total', { binding: 'stdio', outcome: 'answer' })).toBe(1);
    expect(value(s, 'mcplite_tool_calls_total', { binding: 'mcp', outcome: 'answer' })).toBe(1);
  });
});

describe('store instrumentation', () => {
  it('counts settles, cancels and failed operations, not a full store', async () => {
    const m = createMetrics({ defaultMetrics: false });
    const store = m.instrumentStore(new MemoryPromiseStore());
    const record = (token: string): PromiseRecord => ({
      token,
      tool: 'echo',
      status: 'pending',
      owner: 'a',
      createdAt: Date.now(),
      expiresAt: Date.now() + 60_000,
      estimatedCompletion: Date.now() + 1000,
    });
    const done: Settlement = { outcome: { type: 'answer', result: 1 } as never, processingTimeMs: 1 };
    const quota = { maxPerOwner: 10 };
    expect(await store.create(record('t1'), quota)).toBe(true);
    expect(await store.create(record('t2'), quota)).toBe(true);
    expect(await store.settle('t1', done)).toBe(true);
    expect(await store.settle('t1', done)).toBe(false);
    expect(await store.cancel('t2')).toBe(true);
    expect(store.size).toBe(2); // other members pass through

    class DownStore extends MemoryPromiseStore {
      override get(_token: string): Promise<PromiseRecord | undefined> {
        return Promise.reject(new McpLiteError('unavailable', 'The state store is unavailable'));
      }
      override create(_record: PromiseRecord, _quota: { maxPerOwner: number }): Promise<boolean> {
        return Promise.reject(new McpLiteError('resource_exhausted', 'full'));
      }
    }
    const failing = m.instrumentStore(new DownStore());
    await expect(failing.get('x')).rejects.toThrow(/unavailable/);
    await expect(failing.create(record('t3'), quota)).rejects.toThrow(/full/);
    m.recordStoreError('ping');

    const s = parse(await m.text());
    expect(value(s, 'mcplite_promises_settled_total', { status: 'settled' })).toBe(1);
    expect(value(s, 'mcplite_promises_settled_total', { status: 'cancelled' })).toBe(1);
    expect(value(s, 'mcplite_store_errors_total', { operation: 'get' })).toBe(1);
    expect(value(s, 'mcplite_store_errors_total', { operation: 'ping' })).toBe(1);
    expect(value(s, 'mcplite_store_errors_total', { operation: 'create' })).toBeUndefined();
    // Absent stats callbacks: no gauges rather than made-up zeros.
    expect(value(s, 'mcplite_promises_pending')).toBeUndefined();
  });

  it('a failing stats callback reads NaN and counts a store error, the scrape still answers', async () => {
    const m = createMetrics({
      defaultMetrics: false,
      promiseStats: () => Promise.reject(new Error('redis down')),
    });
    expect(value(parse(await m.text()), 'mcplite_promises_pending')).toBeNaN();
    // The failure is counted while the scrape is being written: the next scrape shows it.
    const s = parse(await m.text());
    expect(value(s, 'mcplite_promises_pending')).toBeNaN();
    expect(value(s, 'mcplite_store_errors_total', { operation: 'promise_stats' })).toBeGreaterThanOrEqual(1);
  });
});
