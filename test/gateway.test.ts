/**
 * The gateway (`mcplite proxy`, `gatewayTools`) in front of a real third-party MCP server,
 * `@modelcontextprotocol/server-everything` over stdio: its tools answered over MCP-lite HTTP, gRPC and stateless
 * MCP; a long call turned into a promise; its elicitation passed through; and the CLI command itself.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gatewayTools } from '../src/client/gateway.js';
import { type Client, connect, type Outcome } from '../src/client/index.js';
import { createServer, type RunningServer, serve } from '../src/index.js';

const require = createRequire(import.meta.url);
const EVERYTHING = require.resolve('@modelcontextprotocol/server-everything/dist/index.js');
const UPSTREAM = `${process.execPath} ${EVERYTHING} stdio`;

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
  }, 30_000);
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

  it('passes an upstream elicitation through to an MCP-lite client and back', async () => {
    const lite = await open(`${running.url}/mcp-lite/v1/`);
    const first: Outcome = await lite.call('trigger-elicitation-request', {});
    expect(first.type).toBe('elicitation');
    if (first.type !== 'elicitation') return;
    expect(first.requestedSchema).toMatchObject({ required: ['name'] });
    const done = await first.answer({ name: 'Grace Hopper' });
    expect(done.type).toBe('answer');
    expect(JSON.stringify(done)).toContain('Grace Hopper');
  });
});

describe('mcplite proxy (the CLI)', () => {
  it('serves a stdio MCP server over MCP-lite HTTP and gRPC', async () => {
    const root = resolve(import.meta.dirname, '..');
    const child = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        join(root, 'src/cli/main.ts'),
        'proxy',
        UPSTREAM,
        '--port',
        '0',
        '--grpc-port',
        '0',
      ],
      { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    try {
      let out = '';
      const line = await new Promise<Record<string, string>>((resolveLine, reject) => {
        child.stderr!.on('data', (chunk: Buffer) => {
          out += chunk.toString();
          const found = out.split('\n').find((l) => l.includes('proxy listening'));
          if (found) resolveLine(JSON.parse(found));
        });
        child.once('exit', (code) => reject(new Error(`proxy exited ${code}: ${out}`)));
      });
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
      child.kill('SIGTERM');
      await once(child, 'exit');
    }
  }, 60_000);
});
