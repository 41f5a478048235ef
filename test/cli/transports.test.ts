/**
 * The transports beyond HTTP as a user starts them from the CLI (a child process, from source through tsx):
 * `mcplite serve --demo --ws` announcing and serving MCP-lite over WebSocket, and `mcplite serve --demo --stdio
 * --mcp-lite` speaking line-delimited MCP-lite JSON-RPC on its stdin/stdout.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { connectWs } from '../support/ws-client.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const MAIN = join(ROOT, 'src/cli/main.ts');
const children = new Set<ChildProcess>();

afterEach(() => {
  for (const child of children) child.kill('SIGKILL');
  children.clear();
});

function run(args: string[], stdin: 'pipe' | 'ignore' = 'ignore') {
  const child = spawn(process.execPath, ['--import', 'tsx', MAIN, ...args], {
    cwd: ROOT,
    env: { ...process.env, MCPLITE_TOKENS: '' },
    stdio: [stdin, 'pipe', 'pipe'],
  });
  children.add(child);
  let out = '';
  child.stdout!.setEncoding('utf8').on('data', (c: string) => {
    out += c;
  });
  const exited = new Promise<number | string>((resolve) =>
    child.on('exit', (code, signal) => resolve(code ?? signal ?? 'unknown')),
  );
  const line = (pattern: RegExp) =>
    new Promise<RegExpExecArray>((resolve, reject) => {
      const check = () => {
        const m = pattern.exec(out);
        if (m) resolve(m);
      };
      check();
      child.stdout!.on('data', check);
      void exited.then((code) => reject(new Error(`exited (${code}) before printing ${pattern}: ${out}`)));
    });
  return { child, exited, line, stdout: () => out };
}

describe('mcplite serve --demo: MCP-lite over WebSocket', () => {
  it('announces the WebSocket endpoint and serves the demo tools on it', async () => {
    const cli = run(['serve', '--demo', '--ws', '--port', '0', '--log-level', 'warn']);
    const [, url] = await cli.line(
      /^mcplite MCP-lite WebSocket on (ws:\/\/127\.0\.0\.1:\d+\/mcp-lite\/v1\/ws)$/m,
    );
    const c = await connectWs(url!);
    const reply = await c.request('tools/call', { name: 'search_documents', arguments: { query: 'MCP' } });
    expect(reply.result._meta.response_type).toBe('answer');
    c.ws.close();
    cli.child.kill('SIGTERM');
    expect(await cli.exited).toBe(0);
  });
});

describe('mcplite serve --demo --stdio --mcp-lite', () => {
  it('answers line-delimited MCP-lite JSON-RPC on stdout and exits when stdin closes', async () => {
    const cli = run(['serve', '--demo', '--stdio', '--mcp-lite', '--log-level', 'warn'], 'pipe');
    const send = (m: unknown) => cli.child.stdin!.write(`${JSON.stringify(m)}\n`);
    send({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
    send({
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { name: 'echo', arguments: { message: 'hi' } },
    });
    send({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'nope' } });
    cli.child.stdin!.end();
    expect(await cli.exited).toBe(0);
    const replies = cli
      .stdout()
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const byId = new Map(replies.map((r) => [r.id, r]));
    expect(byId.get(1).result.tools.map((t: { name: string }) => t.name)).toContain('echo');
    expect(byId.get(2).result.content).toEqual({ message: 'hi', repeat: 1 });
    expect(byId.get(3).error).toMatchObject({ code: -32601, data: { requested_tool: 'nope' } });
  });

  it('refuses --mcp-lite without --stdio', async () => {
    const cli = run(['serve', '--demo', '--mcp-lite']);
    expect(await cli.exited).not.toBe(0);
  });
});
