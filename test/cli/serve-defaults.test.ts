/**
 * What `mcplite serve <module>` opens by default, and when it lists `redeem` and `cancel` (issue 22, item 10): one
 * HTTP port with MCP (Streamable HTTP) and MCP-lite HTTP, every other binding one flag away; the system tools only
 * on a server with a tool that can return a promise. Real CLI processes, real clients (the official MCP SDK, the
 * mcplite client, grpc-js, fetch, WebSocket).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { connect } from '../../src/client/index.js';
import { type Cli, children, LISTENING, logLine, run } from '../support/cli-process.js';
import { makeClient, unary } from '../support/grpc-client.js';
import { post } from '../support/mcp-lite-http.js';
import { refusal } from '../support/ws-client.js';

let dir: string;
let quickModule: string;
let slowModule: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'mcplite-serve-defaults-'));
  quickModule = join(dir, 'quick.mjs');
  writeFileSync(
    quickModule,
    `export const serverOptions = { name: 'quick' };
     export const tools = [
       { name: 'add', inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } } },
         handler: async ({ a, b }) => ({ sum: a + b }) },
       { name: 'explode', handler: () => { throw new Error('kaput'); } },
     ];`,
  );
  slowModule = join(dir, 'slow.mjs');
  writeFileSync(
    slowModule,
    `export const serverOptions = { name: 'slow' };
     export const tools = [
       { name: 'add', handler: ({ a, b }) => ({ sum: a + b }) },
       { name: 'report', longRunning: { estimatedMs: 50 }, handler: async () => 'done' },
     ];`,
  );
});

afterEach(() => {
  for (const child of children) child.kill('SIGKILL');
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

interface Served extends Cli {
  /** http://127.0.0.1:<port> */
  origin: string;
  base: string;
}

/** `mcplite serve <args>` on a free port, once it has printed every line and logged "listening". */
async function serveCli(args: string[]): Promise<Served> {
  const cli = run(['serve', '--port', '0', ...args]);
  const listening = logLine(cli, (e) => e.msg === 'listening');
  await Promise.race([
    listening,
    cli.exited.then((code) => {
      throw new Error(`exited with ${code}:\n${cli.stderr()}`);
    }),
  ]);
  const base = LISTENING.exec(cli.stdout())![1]!;
  return { ...cli, base, origin: new URL(base).origin };
}

async function mcpToolNames(origin: string): Promise<string[]> {
  const sdk = new Client({ name: 'serve-defaults', version: '1.0.0' });
  await sdk.connect(new StreamableHTTPClientTransport(new URL(`${origin}/mcp`)));
  try {
    return (await sdk.listTools()).tools.map((t) => t.name);
  } finally {
    await sdk.close();
  }
}

async function liteToolNames(base: string): Promise<string[]> {
  const listed = (await (await post(`${base}listtools`, {})).json()) as { tools: Array<{ name: string }> };
  return listed.tools.map((t) => t.name);
}

async function grpcToolNames(stdout: string): Promise<string[]> {
  const address = /^mcplite gRPC \(mcplite\.MCPLite\) on (\S+)$/m.exec(stdout)![1]!;
  const client = makeClient(address);
  try {
    const listed = await unary(client, 'GetTools', {});
    return listed.response.tools.map((t: { name: string }) => t.name);
  } finally {
    client.close();
  }
}

// A cold start through tsx takes seconds on a busy machine: these tests start real processes.
describe('mcplite serve <module>: the default bindings', { timeout: 60_000 }, () => {
  it('opens one HTTP port with MCP and MCP-lite HTTP only, so a second server starts beside the first', async () => {
    const first = await serveCli([quickModule]);
    const second = await serveCli([quickModule]);
    for (const served of [first, second]) {
      expect(served.stdout().trim().split('\n')).toEqual([
        `mcplite listening on ${served.base}`,
        `mcplite MCP (Streamable HTTP) on ${served.origin}/mcp`,
      ]);
      // No gRPC port taken, and no stray line (grpc-js's) beside the JSON log records.
      expect(served.stderr()).not.toContain('50051');
      for (const line of served
        .stderr()
        .split('\n')
        .filter((l) => l !== ''))
        expect(line).toMatch(/^\{/);
    }
    // Both answer on their protocols.
    expect(await mcpToolNames(first.origin)).toEqual(['add', 'explode']);
    expect(await liteToolNames(second.base)).toEqual(['add', 'explode']);
    // And nothing else is there.
    expect((await fetch(`${first.origin}/webtools/quick/`)).status).toBe(404);
    expect((await fetch(`${first.origin}/sse`)).status).toBe(404);
    await refusal(`${first.origin.replace(/^http/, 'ws')}/mcp-lite/v1/ws`);
    // The listening record says what is one flag away.
    const record = await logLine(first, (e) => e.msg === 'listening');
    expect(record.off).toEqual(['--ws', '--legacy-sse', '--webtools', '--grpc']);
  });

  it('serves gRPC only when asked, with --grpc', async () => {
    const served = await serveCli([quickModule, '--grpc', '0']);
    expect(served.stdout()).toMatch(/^mcplite gRPC \(mcplite\.MCPLite\) on 127\.0\.0\.1:\d+$/m);
    expect(await grpcToolNames(served.stdout())).toEqual(['add', 'explode']);
    expect(served.stdout()).not.toMatch(/WebSocket|Webtools|HTTP\+SSE/);
  });

  it('says only its own line when the gRPC port asked for is taken (no grpc-js line)', async () => {
    const first = await serveCli([quickModule, '--grpc', '0']);
    const port = /^mcplite gRPC \(mcplite\.MCPLite\) on 127\.0\.0\.1:(\d+)$/m.exec(first.stdout())![1]!;
    const second = run(['serve', quickModule, '--port', '0', '--grpc', port]);
    expect(await second.exited).toBe(1);
    expect(second.stderr().trim().split('\n')).toEqual([
      `mcplite: gRPC: cannot listen on 127.0.0.1:${port}: the port is in use (another server, or another mcplite serve, has it): pick another gRPC port with --grpc <n> (0 picks a free one), or serve without --grpc`,
    ]);
  });

  it('serves every binding with --all', async () => {
    const served = await serveCli([quickModule, '--all', '--grpc', '0']);
    const out = served.stdout();
    const ws = served.origin.replace(/^http/, 'ws');
    for (const line of [
      `mcplite MCP-lite WebSocket on ${ws}/mcp-lite/v1/ws`,
      `mcplite MCP (WebSocket) on ${ws}/mcp`,
      `mcplite MCP (HTTP+SSE, 2024-11-05) on ${served.origin}/sse`,
      `mcplite Webtools quick on ${served.origin}/webtools/quick/`,
    ]) {
      expect(out).toContain(line);
    }
    expect(out).toMatch(/^mcplite gRPC \(mcplite\.MCPLite\) on 127\.0\.0\.1:\d+$/m);
    expect((await fetch(`${served.origin}/webtools/quick/`)).status).toBe(200);
  });

  it('says how to write --grpc when a module follows it', async () => {
    const cli = run(['serve', '--port', '0', '--grpc', quickModule]);
    expect(await cli.exited).not.toBe(0);
    expect(cli.stderr()).toContain('a module goes before --grpc');
  });

  it('logs a throwing handler once with its tool named once (the CLI logger)', async () => {
    const served = await serveCli([quickModule]);
    const client = await connect(served.base);
    await expect(client.call('explode', { secret_argument: 'do-not-log-me' })).rejects.toMatchObject({
      code: 'internal',
    });
    await client.close();
    const entry = await logLine(served, (e) => e.msg === 'tool handler failed');
    const line = served
      .stderr()
      .split('\n')
      .find((l) => l.includes('tool handler failed'))!;
    expect(entry).toMatchObject({ tool: 'explode', err: { message: 'kaput' } });
    expect((entry.err as { stack: string }).stack).toContain('kaput');
    expect(line.match(/"tool":/g)).toHaveLength(1);
    expect(served.stderr()).not.toContain('do-not-log-me');
  });
});

describe('mcplite serve <module>: the system tools', { timeout: 60_000 }, () => {
  it('lists no redeem or cancel when no tool can return a promise, on any binding', async () => {
    const served = await serveCli([quickModule, '--all', '--grpc', '0']);
    expect(await mcpToolNames(served.origin)).toEqual(['add', 'explode']);
    expect(await liteToolNames(served.base)).toEqual(['add', 'explode']);
    expect(await grpcToolNames(served.stdout())).toEqual(['add', 'explode']);
    const webtool = (await (await fetch(`${served.origin}/webtools/quick/`)).json()) as {
      actions: Array<{ name: string }>;
    };
    expect(webtool.actions.map((a) => a.name)).toEqual(['add', 'explode']);

    // Calling one anyway: tool_not_found, saying why.
    const client = await connect(served.base);
    try {
      const err = await client.redeem(`prom_${'A'.repeat(32)}`).catch((e: unknown) => e);
      expect(err).toMatchObject({ code: 'tool_not_found' });
      expect(JSON.stringify((err as { data?: unknown }).data)).toContain('never returns promises');
    } finally {
      await client.close();
    }
    const sdk = new Client({ name: 'serve-defaults', version: '1.0.0' });
    await sdk.connect(new StreamableHTTPClientTransport(new URL(`${served.origin}/mcp`)));
    try {
      const answer = await sdk
        .callTool({ name: 'redeem', arguments: { promise: `prom_${'A'.repeat(32)}` } })
        .then(
          (r) => JSON.stringify(r),
          (e: Error) => e.message,
        );
      expect(answer).toMatch(/not found/i);
    } finally {
      await sdk.close();
    }
  });

  it('lists them on every binding when a tool is long-running, and they work', async () => {
    const served = await serveCli([slowModule, '--all', '--grpc', '0']);
    const expected = expect.arrayContaining(['add', 'report', 'redeem', 'cancel']);
    expect(await mcpToolNames(served.origin)).toEqual(expected);
    expect(await liteToolNames(served.base)).toEqual(expected);
    expect(await grpcToolNames(served.stdout())).toEqual(expected);
    const webtool = (await (await fetch(`${served.origin}/webtools/slow/`)).json()) as {
      actions: Array<{ name: string }>;
    };
    expect(webtool.actions.map((a) => a.name)).toEqual(expected);
    const client = await connect(served.base);
    try {
      // The client redeems the promise through `redeem` until it settles.
      expect(await client.call('report')).toMatchObject({ type: 'answer', value: 'done' });
    } finally {
      await client.close();
    }
  });

  it('lists them when an answer budget is set (calls past it become promises)', async () => {
    const served = await serveCli([quickModule, '--answer-budget', '5000']);
    expect(await mcpToolNames(served.origin)).toEqual(expect.arrayContaining(['redeem', 'cancel']));
  });
});
