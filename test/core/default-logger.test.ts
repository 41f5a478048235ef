/**
 * A handler that throws is visible to its developer (issue 22, item 5): `createServer`'s default logger writes one
 * JSON line to the real stderr of a real server process, naming the tool (once) with the stack and never the
 * arguments; `logger: console` is adapted; `logArguments` is the one way to get the arguments logged.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterEach, describe, expect, it } from 'vitest';
import { type Cli, children, runCommand } from '../support/cli-process.js';
import { waitFor } from '../support/http-harness.js';

const SECRET_ARGUMENT = 'patient-record-4711';
/** What the throwing server's `mark` tool writes to its stderr. */
const MARK_LINE = '--mark--';

afterEach(() => {
  for (const child of children) child.kill('SIGKILL');
});

async function startServer(mode: 'default' | 'console' | 'arguments'): Promise<Cli & { url: string }> {
  const cli = runCommand(process.execPath, ['--import', 'tsx', 'test/support/throwing-server.ts', mode]);
  const url = await new Promise<string>((resolve, reject) => {
    const check = () => {
      const m = /^listening (\S+)$/m.exec(cli.stdout());
      if (m) resolve(m[1]!);
    };
    cli.child.stdout!.on('data', check);
    cli.exited.then((code) => reject(new Error(`exited with ${code}:\n${cli.stderr()}`)));
  });
  return { ...cli, url };
}

/** Calls a tool of the throwing server over MCP-lite HTTP (JSON-RPC on a real socket); its JSON-RPC reply. */
async function callOverHttp(url: string, name: string): Promise<Record<string, any>> {
  const res = await fetch(`${url}/mcp-lite/v1/rpc`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name, arguments: name === 'explode' ? { note: SECRET_ARGUMENT } : {} },
    }),
  });
  return (await res.json()) as Record<string, any>;
}

/** Calls `explode` over MCP-lite HTTP: its JSON-RPC error. */
async function explodeOverHttp(url: string): Promise<{ code: number; message: string }> {
  return (await callOverHttp(url, 'explode')).error;
}

/**
 * The stderr lines the calls made so far wrote: the server's `mark` tool writes a mark to the same stderr after
 * them, so once the mark is read every earlier line is too (and none is still to come from those calls).
 */
async function stderrLines(cli: Cli & { url: string }): Promise<string[]> {
  expect((await callOverHttp(cli.url, 'mark')).result).toBeDefined();
  const lines = () =>
    cli
      .stderr()
      .split('\n')
      .filter((l) => l.trim() !== '');
  await waitFor(() => lines().includes(MARK_LINE), 10_000, 'the mark on stderr');
  const all = lines();
  return all.slice(0, all.indexOf(MARK_LINE));
}

describe('the default logger of createServer', () => {
  it('logs a throwing handler once on stderr, with the tool and the stack, never the arguments', async () => {
    const server = await startServer('default');
    const error = await explodeOverHttp(server.url);
    expect(error).toMatchObject({ code: -32603, message: 'Internal error' });
    expect(JSON.stringify(error)).not.toContain('disk is full');

    const lines = await stderrLines(server);
    expect(lines).toHaveLength(1);
    const line = lines[0]!;
    const entry = JSON.parse(line) as { level: string; msg: string; tool: string; err: { stack: string } };
    expect(entry).toMatchObject({ level: 'error', msg: 'tool handler failed', tool: 'explode' });
    expect(entry.err.stack).toContain('the disk is full');
    expect(entry.err.stack).toContain('failInsideHandler');
    expect(line.match(/"tool":/g)).toHaveLength(1);
    expect(line).not.toContain(SECRET_ARGUMENT);
  });

  it('logs once per failing call over full MCP too (official SDK client), never the arguments', async () => {
    const server = await startServer('default');
    const sdk = new Client({ name: 'logger-test', version: '1.0.0' });
    await sdk.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`)));
    try {
      for (let i = 0; i < 2; i++) {
        const result = await sdk
          .callTool({ name: 'explode', arguments: { note: SECRET_ARGUMENT } })
          .catch((e: Error) => ({ thrown: e.message }));
        expect(JSON.stringify(result)).not.toContain('disk is full');
      }
    } finally {
      await sdk.close();
    }
    const lines = await stderrLines(server);
    expect(lines).toHaveLength(2);
    for (const line of lines) {
      expect(JSON.parse(line)).toMatchObject({ msg: 'tool handler failed', tool: 'explode' });
      expect(line).not.toContain(SECRET_ARGUMENT);
    }
  });

  it('accepts console as the logger: one record with the tool and the stack', async () => {
    const server = await startServer('console');
    expect(await explodeOverHttp(server.url)).toMatchObject({ code: -32603 });
    const said = (await stderrLines(server)).join('\n');
    expect(said.match(/mcplite: tool handler failed/g)).toHaveLength(1);
    expect(said).toContain("tool: 'explode'");
    expect(said).toContain('failInsideHandler');
    expect(said).not.toContain(SECRET_ARGUMENT);
  });

  it('logs the arguments only when logArguments asks', async () => {
    const server = await startServer('arguments');
    await explodeOverHttp(server.url);
    const lines = await stderrLines(server);
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({
      msg: 'tool handler failed',
      tool: 'explode',
      arguments: { note: SECRET_ARGUMENT },
    });
  });
});
