/**
 * The CLI's rough edges a newcomer hit (issue 9), each tried as a user would, as a child process: a second
 * `mcplite serve` beside a running one, `--token X ./tools.mjs`, `--max-body` and gRPC replies, `serve --help`,
 * and the name and version a module's server reports.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { children, run, start } from '../support/cli-process.js';
import { makeClient, structToJson, toolRequest, unary } from '../support/grpc-client.js';
import { callMessage, post, rpc } from '../support/mcp-lite-http.js';

let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'mcplite-cli-edges-'));
});
afterEach(() => {
  for (const child of children) child.kill('SIGKILL');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const TOOL_MODULE = `export const tools = [{ name: 'ping', handler: () => 'pong' }];\n`;

function grpcAddressOf(stdout: string): string {
  return /mcplite gRPC \(mcplite\.MCPLite\) on (\S+)/.exec(stdout)![1]!;
}

describe('mcplite serve, tried as a newcomer', { timeout: 45_000 }, () => {
  it('a second serve on a taken gRPC port names that port and says how to pick another', async () => {
    const first = await start(['--demo']);
    await expect.poll(() => /mcplite gRPC/.test(first.stdout())).toBe(true);
    const grpcPort = grpcAddressOf(first.stdout()).split(':').pop()!;
    const second = run(['serve', '--demo', '--port', '0', '--grpc-port', grpcPort]);
    expect(await second.exited).toBe(1);
    const said = second.stderr();
    expect(said).toContain(`gRPC: cannot listen on 127.0.0.1:${grpcPort}: the port is in use`);
    expect(said).toContain('--grpc-port <n>');
    expect(said).toContain('--grpc-port off');
    expect(said).not.toMatch(/127\.0\.0\.1:0\b/);
  });

  it('a second serve on a taken HTTP port names it and points at --port', async () => {
    const first = await start(['--demo']);
    const port = new URL(first.base).port;
    const second = run(['serve', '--demo', '--port', port, '--grpc-port', 'off']);
    expect(await second.exited).toBe(1);
    expect(second.stderr()).toContain(`HTTP: cannot listen on 127.0.0.1:${port}: the port is in use`);
    expect(second.stderr()).toContain('--port <n>');
  });

  it('--token X ./tools.mjs serves the module (the token does not swallow it), and --token repeats', async () => {
    const path = join(dir, 'tools.mjs');
    writeFileSync(path, TOOL_MODULE);
    const cli = await start(['--token', 'tok-one', '--token', 'tok-two', path]);
    expect((await post(`${cli.base}listtools`, {})).status).toBe(401);
    for (const token of ['tok-one', 'tok-two']) {
      const body = await rpc(`${cli.base}calltools`, callMessage(1, 'ping', {}), {
        authorization: `Bearer ${token}`,
      });
      expect(body.result!.content).toBe('pong');
    }
  });

  it('--max-body bounds requests, not gRPC replies', async () => {
    const cli = await start(['--demo', '--max-body', '2000']);
    await expect.poll(() => /mcplite gRPC/.test(cli.stdout())).toBe(true);
    const client = makeClient(grpcAddressOf(cli.stdout()));
    try {
      const big = await unary(
        client,
        'CallTool',
        toolRequest('search_documents', { query: 'security', limit: 50 }),
      );
      expect(big.error).toBeUndefined();
      expect(JSON.stringify(structToJson(big.response.result)).length).toBeGreaterThan(2000);
      const tooBig = await unary(client, 'CallTool', toolRequest('echo', { message: 'x'.repeat(4000) }));
      expect(tooBig.error?.code).toBe(8); // RESOURCE_EXHAUSTED
    } finally {
      client.close();
    }
  });

  it('serve --help speaks of every binding', async () => {
    const help = run(['serve', '--help']);
    expect(await help.exited).toBe(0);
    const text = help.stdout();
    expect(text).toContain('MCP-lite HTTP');
    expect(text).toContain('gRPC');
    expect(text).toMatch(/full MCP|Streamable HTTP/);
    expect(text).toContain('stdio');
    expect(text).toContain('--token <token>');
    expect(text).not.toContain('<token...>');
  });

  it('a module reports the name and version of its nearest package.json', async () => {
    const pkg = join(dir, 'my-tools');
    mkdirSync(join(pkg, 'lib'), { recursive: true });
    writeFileSync(join(pkg, 'package.json'), JSON.stringify({ name: 'my-tools', version: '2.3.4' }));
    // A bare module-type marker nearer to the module names nothing and is passed over.
    writeFileSync(join(pkg, 'lib', 'package.json'), JSON.stringify({ type: 'module' }));
    writeFileSync(join(pkg, 'lib', 'tools.mjs'), TOOL_MODULE);
    const cli = await start([join(pkg, 'lib', 'tools.mjs')]);
    const body = await rpc(`${cli.base}calltools`, callMessage(1, 'ping', {}));
    expect(body.result!._meta.server_version).toBe('2.3.4');
    const init = await fetch(new URL('/mcp', cli.base), {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
      }),
    });
    const text = await init.text();
    expect(text).toContain('"name":"my-tools"');
    expect(text).toContain('"version":"2.3.4"');
  });
});
