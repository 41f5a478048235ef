/**
 * The gateway (`mcplite proxy`, `gatewayTools`) in front of a real third-party MCP server,
 * `@modelcontextprotocol/server-everything`, over stdio and over Streamable HTTP: its tools answered over MCP-lite
 * HTTP, gRPC, stateless MCP and Webtools; a long call turned into a promise; its elicitation passed through; and
 * the CLI command itself.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CallOutcome, type Client, connect } from '../../src/client/index.js';
import { gatewayTools } from '../../src/gateway/gateway-tools.js';
import { createServer } from '../../src/index.js';
import { type RunningServer, serve } from '../../src/node.js';
import {
  type EverythingHttp,
  startEverythingHttp,
  EVERYTHING_STDIO as UPSTREAM,
} from '../support/everything.js';

/** The Webtools execute envelope of one POST, as a plain fetch sees it. */
async function execute(url: string, body: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  return { status: res.status, body: await res.json() };
}

describe('gateway in front of server-everything (stdio)', () => {
  let upstream: Client;
  let running: RunningServer;
  const clients: Client[] = [];
  const open = async (target: string) => {
    const c = await connect(target);
    clients.push(c);
    return c;
  };

  beforeAll(async () => {
    upstream = await connect(UPSTREAM, { stderr: 'ignore' });
    // server-everything registers its elicitation tool once the client's capabilities are known.
    for (let i = 0; i < 100; i++) {
      if ((await upstream.listTools()).some((t) => t.name === 'trigger-elicitation-request')) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    const tools = await gatewayTools(upstream);
    running = await serve(createServer({ name: 'gateway', tools, answerBudgetMs: 300 }), {
      port: 0,
      grpcPort: 0,
    });
  }, 120_000);
  afterAll(async () => {
    for (const c of clients) await c.close();
    await running.close(500);
    await upstream.close();
  });

  it('lists the upstream tools beside redeem and cancel', async () => {
    const lite = await open(`${running.url}/mcp-lite/v1/`);
    const names = (await lite.listTools()).map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['echo', 'get-sum', 'redeem', 'cancel']));
  });

  it('answers over MCP-lite HTTP, gRPC and stateless MCP', async () => {
    const lite = await open(`${running.url}/mcp-lite/v1/`);
    expect(await lite.call('echo', { message: 'via lite' })).toMatchObject({
      type: 'answer',
      value: 'Echo: via lite',
    });
    const grpc = await open(`grpc://127.0.0.1:${running.grpc!.port}`);
    const sum = await grpc.call('get-sum', { a: 20, b: 22 });
    expect(sum.type).toBe('answer');
    expect(JSON.stringify(sum)).toContain('42');
    // MCP over gRPC, on the same port.
    const mcpGrpc = await open(`grpc://127.0.0.1:${running.grpc!.port}/model_context_protocol.Mcp`);
    expect(mcpGrpc.binding).toBe('mcp-grpc');
    expect(JSON.stringify(await mcpGrpc.call('get-sum', { a: 20, b: 22 }))).toContain('42');
    const mcp = await open(`${running.url}/mcp`);
    expect(mcp.binding).toBe('mcp');
    expect(await mcp.call('echo', { message: 'via mcp' })).toMatchObject({
      type: 'answer',
      value: 'Echo: via mcp',
    });
  });

  it('turns a long upstream call into a promise, redeemable over gRPC', async () => {
    const grpc = await open(`grpc://127.0.0.1:${running.grpc!.port}`);
    const promise = await grpc.call(
      'trigger-long-running-operation',
      { duration: 1, steps: 2 },
      { redeem: false },
    );
    expect(promise.type).toBe('promise');
    const done = await grpc.redeem((promise as { token: string }).token);
    expect(done.type).toBe('answer');
    expect(JSON.stringify(done)).toContain('Long running operation completed');
  });

  it('answers over Webtools: the upstream tools are the actions of the webtool "gateway"', async () => {
    const webtool = `${running.url}/webtools/gateway/`;
    const metadata = (await (await fetch(webtool)).json()) as {
      name: string;
      actions: Array<{ name: string }>;
    };
    expect(metadata.name).toBe('gateway');
    expect(metadata.actions.map((a) => a.name)).toEqual(expect.arrayContaining(['echo', 'get-sum']));
    // A plain POST gets the envelope; the client speaks the same wire.
    expect(await execute(webtool, { action: 'echo', request: { message: 'raw' } })).toEqual({
      status: 200,
      body: { status: 'ok', data: 'Echo: raw' },
    });
    const bad = await execute(webtool, { action: 'get-sum', request: { a: 'x' } });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ status: 'error', error: { code: 'SCHEMA_ERROR' } });
    const wt = await open(webtool);
    expect(wt.binding).toBe('webtools');
    expect(await wt.call('echo', { message: 'via webtools' })).toMatchObject({
      type: 'answer',
      value: 'Echo: via webtools',
    });
  });

  it('turns a long upstream call into a Webtools promise (202 pending), redeemed by the client', async () => {
    const webtool = `${running.url}/webtools/gateway/`;
    const started = await execute(webtool, {
      action: 'trigger-long-running-operation',
      request: { duration: 1, steps: 2 },
    });
    expect(started.status).toBe(202);
    expect(started.body).toMatchObject({ status: 'pending', promise: expect.any(String) });
    const wt = await open(webtool);
    const done = await wt.redeem(started.body.promise as string, { timeout: 20_000 });
    expect(done.type).toBe('answer');
    expect(JSON.stringify(done)).toContain('Long running operation completed');
  });

  it('passes an upstream elicitation through to a Webtools client and back', async () => {
    const wt = await open(`${running.url}/webtools/gateway/`);
    const first: CallOutcome = await wt.call('trigger-elicitation-request', {});
    expect(first.type).toBe('elicitation');
    if (first.type !== 'elicitation') return;
    const done = await first.answer({ name: 'Katherine Johnson' });
    expect(done.type).toBe('answer');
    expect(JSON.stringify(done)).toContain('Katherine Johnson');
  });

  it('passes an upstream elicitation through to an MCP-lite client and back', async () => {
    const lite = await open(`${running.url}/mcp-lite/v1/`);
    const first: CallOutcome = await lite.call('trigger-elicitation-request', {});
    expect(first.type).toBe('elicitation');
    if (first.type !== 'elicitation') return;
    expect(first.requestedSchema).toMatchObject({ required: ['name'] });
    const done = await first.answer({ name: 'Grace Hopper' });
    expect(done.type).toBe('answer');
    expect(JSON.stringify(done)).toContain('Grace Hopper');
  });
});

describe('gateway in front of server-everything (Streamable HTTP)', () => {
  let everything: EverythingHttp;
  let upstream: Client;
  let running: RunningServer;
  const clients: Client[] = [];
  const open = async (target: string) => {
    const c = await connect(target);
    clients.push(c);
    return c;
  };

  beforeAll(async () => {
    everything = await startEverythingHttp();
    upstream = await connect(everything.url);
    expect(upstream.binding).toBe('mcp');
    const tools = await gatewayTools(upstream);
    running = await serve(createServer({ name: 'gateway-http', tools, answerBudgetMs: 300 }), {
      port: 0,
      grpcPort: 0,
    });
  }, 120_000);
  afterAll(async () => {
    for (const c of clients) await c.close();
    await running?.close(500);
    await upstream?.close();
    await everything?.stop();
  });

  it('answers over MCP-lite HTTP, gRPC, stateless MCP and Webtools', async () => {
    const lite = await open(`${running.url}/mcp-lite/v1/`);
    expect((await lite.listTools()).map((t) => t.name)).toEqual(
      expect.arrayContaining(['echo', 'get-sum', 'redeem', 'cancel']),
    );
    expect(await lite.call('echo', { message: 'lite' })).toMatchObject({
      type: 'answer',
      value: 'Echo: lite',
    });
    const grpc = await open(`grpc://127.0.0.1:${running.grpc!.port}`);
    const sum = await grpc.call('get-sum', { a: 40, b: 2 });
    expect(sum.type).toBe('answer');
    expect(JSON.stringify(sum)).toContain('42');
    const mcp = await open(`${running.url}/mcp`);
    expect(await mcp.call('echo', { message: 'mcp' })).toMatchObject({ type: 'answer', value: 'Echo: mcp' });
    expect(
      await execute(`${running.url}/webtools/gateway-http/`, { action: 'echo', request: { message: 'wt' } }),
    ).toEqual({ status: 200, body: { status: 'ok', data: 'Echo: wt' } });
  });

  it('streams the upstream progress as partials, and turns a long call into a promise', async () => {
    const lite = await open(`${running.url}/mcp-lite/v1/`);
    const events: Array<{ type: string }> = [];
    for await (const ev of lite.stream('trigger-long-running-operation', { duration: 0.3, steps: 3 }))
      events.push(ev);
    expect(events.filter((e) => e.type === 'partial').length).toBeGreaterThanOrEqual(1);
    expect(events.at(-1)).toMatchObject({ type: 'answer' });
    const grpc = await open(`grpc://127.0.0.1:${running.grpc!.port}`);
    const promise = await grpc.call(
      'trigger-long-running-operation',
      { duration: 1, steps: 2 },
      { redeem: false },
    );
    expect(promise.type).toBe('promise');
    const done = await grpc.redeem((promise as { token: string }).token);
    expect(JSON.stringify(done)).toContain('Long running operation completed');
  });
});

/** Runs `mcplite proxy <upstream>` from source; resolves with its "proxy listening" log line and the child. */
async function startProxy(upstream: string) {
  const root = resolve(import.meta.dirname, '../..');
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', join(root, 'src/cli/main.ts'), 'proxy', upstream, '--port', '0', '--grpc-port', '0'],
    { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let out = '';
  const line = await new Promise<{ url: string; grpc: string; webtools: string[] }>((resolveLine, reject) => {
    child.stderr!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const found = out.split('\n').find((l) => l.includes('proxy listening'));
      if (found) resolveLine(JSON.parse(found));
    });
    child.once('exit', (code) => reject(new Error(`proxy exited ${code}: ${out}`)));
  });
  return {
    line,
    stop: async () => {
      child.kill('SIGTERM');
      await once(child, 'exit');
    },
  };
}

describe('mcplite proxy (the CLI)', () => {
  it('serves a stdio MCP server over MCP-lite HTTP and gRPC', async () => {
    const { line, stop } = await startProxy(UPSTREAM);
    try {
      const lite = await connect(line.url!);
      expect(await lite.call('echo', { message: 'cli' })).toMatchObject({
        type: 'answer',
        value: 'Echo: cli',
      });
      const grpc = await connect(`grpc://${line.grpc}`);
      expect(await grpc.call('echo', { message: 'grpc' })).toMatchObject({
        type: 'answer',
        value: 'Echo: grpc',
      });
      await lite.close();
      await grpc.close();
    } finally {
      await stop();
    }
  }, 60_000);

  it('serves a Streamable HTTP MCP server, its Webtools face announced', async () => {
    const everything = await startEverythingHttp();
    try {
      const { line, stop } = await startProxy(everything.url);
      try {
        expect(line.webtools).toEqual([expect.stringMatching(/\/webtools\/mcplite-proxy\/$/)]);
        expect(await execute(line.webtools[0]!, { action: 'echo', request: { message: 'cli' } })).toEqual({
          status: 200,
          body: { status: 'ok', data: 'Echo: cli' },
        });
        const lite = await connect(line.url);
        expect(await lite.call('echo', { message: 'lite' })).toMatchObject({
          type: 'answer',
          value: 'Echo: lite',
        });
        await lite.close();
      } finally {
        await stop();
      }
    } finally {
      await everything.stop();
    }
  }, 60_000);
});
