/**
 * The attacks of issue 9 on MCP over stdio, kept as tests: a real child process (test/support/stdio-hardening-
 * server.ts) sent an endless line, many calls whose handlers read their signal, and answers larger than the pipe;
 * the stdout backpressure path in process, counting the listeners it leaves; and `serve --stdio` with a token.
 */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { serveMcpStdio } from '../../src/bindings/mcp/stdio/index.js';
import { createServer } from '../../src/create-server.js';
import { jsonLines } from '../support/json-lines.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
};
const LEAK_WARNING = /MaxListenersExceededWarning/;

interface Child {
  child: ChildProcessWithoutNullStreams;
  stderr: () => string;
  send(line: string): void;
  /** The next message that satisfies `pred` (messages are taken in order of arrival). */
  next(pred: (m: any) => boolean): Promise<any>;
  exited: Promise<number | null>;
}

const children = new Set<ChildProcessWithoutNullStreams>();
afterEach(() => {
  for (const c of children) c.kill();
  children.clear();
});

/** Starts `node --import tsx <script> <args>` and reads its stdout as JSON lines. */
function start(script: string, args: string[] = [], env: Record<string, string> = {}): Child {
  const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, script), ...args], {
    cwd: ROOT,
    env: { ...process.env, MCPLITE_TOKENS: '', ...env },
  });
  children.add(child);
  let err = '';
  child.stderr.setEncoding('utf8').on('data', (c: string) => {
    err += c;
  });
  const lines = jsonLines(child.stdout);
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return {
    child,
    stderr: () => err,
    send: (line) => child.stdin.write(`${line}\n`),
    next: lines.next,
    exited,
  };
}

function call(id: number, name: string, args: Record<string, unknown> = {}): string {
  return JSON.stringify({
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: { name, arguments: args, _meta: META },
  });
}

describe('stdio refuses an oversized line while reading it', () => {
  it('answers -32600 before the line has even ended, skips it, and goes on serving', async () => {
    const c = start('test/support/stdio-hardening-server.ts', [], { MCPLITE_MAX_LINE_BYTES: '4096' });
    // A line that never ends: the server must not wait for its end (readline would hold it all, to any size).
    const head = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"tick","pad":"`;
    c.child.stdin.write(head);
    for (let i = 0; i < 64; i++) c.child.stdin.write('x'.repeat(1024));
    const refused = await c.next((m) => m.error !== undefined);
    expect(refused.id).toBeNull();
    expect(refused.error.code).toBe(-32600);
    expect(refused.error.message).toMatch(/exceeds 4096 bytes/);
    // More of the same line is skipped up to its end; the next line is served.
    for (let i = 0; i < 64; i++) c.child.stdin.write('x'.repeat(1024));
    c.child.stdin.write('"}}\n');
    c.send(call(2, 'tick'));
    expect((await c.next((m) => m.id === 2)).result.structuredContent).toEqual({ aborted: false });
    // A line within the limit, in many small chunks, is one message.
    const line = call(3, 'tick');
    for (const ch of line) c.child.stdin.write(ch);
    c.child.stdin.write('\n');
    expect((await c.next((m) => m.id === 3)).result.structuredContent).toEqual({ aborted: false });
    expect(c.stderr()).not.toMatch(/RangeError/);
  });
});

describe('stdio leaves no listener behind per call', () => {
  it('runs many calls that read their signal and many answers larger than the pipe without piling up listeners', async () => {
    const c = start('test/support/stdio-hardening-server.ts');
    // Each call's handler reads ctx.signal: before, each left a listener on the connection-wide signal.
    for (let id = 1; id <= 40; id++) {
      c.send(call(id, 'tick'));
      await c.next((m) => m.id === id);
    }
    // Answers of 256 KiB fill the pipe while nobody reads it: each write waits for 'drain'.
    c.child.stdout.pause();
    for (let id = 100; id < 120; id++) c.send(call(id, 'big', { bytes: 256 * 1024 }));
    await new Promise((r) => setTimeout(r, 300));
    c.child.stdout.resume();
    for (let id = 100; id < 120; id++) {
      expect((await c.next((m) => m.id === id)).result.content[0].text).toHaveLength(256 * 1024);
    }
    c.child.stdin.end();
    expect(await c.exited).toBe(0);
    // Node warns on stderr once 11 listeners sit on one signal or stream: none may have.
    expect(c.stderr()).not.toMatch(LEAK_WARNING);
  });

  it('leaves no drain, close or error listener on the output after waiting for it to drain', async () => {
    const server = createServer({
      tools: [{ name: 'big', handler: () => 'x'.repeat(64 * 1024) }],
      promiseStore: false,
    });
    const input = new PassThrough();
    const output = new PassThrough({ highWaterMark: 1024 });
    const counts = () => ['drain', 'close', 'error'].map((e) => output.listenerCount(e));
    const stdio = serveMcpStdio(server, { input, output });
    const baseline = counts();
    let answered = 0;
    for (let id = 1; id <= 30; id++) input.write(`${call(id, 'big')}\n`);
    // Read slowly: every answer is larger than the output's buffer, so each write waits for 'drain'.
    for (let buffered = ''; answered < 30; ) {
      await new Promise((r) => setTimeout(r, 2));
      for (let chunk = output.read(); chunk !== null; chunk = output.read()) buffered += chunk;
      const lines = buffered.split('\n');
      buffered = lines.pop()!;
      answered += lines.length;
    }
    expect(counts()).toEqual(baseline);
    stdio.close();
    await server.close();
  });
});

describe('serve --stdio with a token', () => {
  const MAIN = 'src/cli/main.ts';

  it('warns on stderr that tokens have no effect on stdio', async () => {
    const c = start(MAIN, ['serve', '--demo', '--stdio'], { MCPLITE_TOKENS: 'secret-token' });
    c.child.stdin.end();
    await c.exited;
    expect(c.stderr()).toMatch(/tokens have no effect with --stdio/);
    expect(c.stderr()).not.toContain('secret-token');
  });

  it('says nothing of tokens without one', async () => {
    const c = start(MAIN, ['serve', '--demo', '--stdio']);
    c.child.stdin.end();
    await c.exited;
    expect(c.stderr()).not.toMatch(/tokens have no effect/);
  });
});
