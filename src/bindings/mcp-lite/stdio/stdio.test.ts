/**
 * MCP-lite over stdio on real streams: line framing, concurrent calls, partials as notifications, cancellation,
 * bad lines, the line limit checked while reading, the end of input, and a client that never reads.
 */
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { type JsonLines, jsonLines } from '../../../../test/support/json-lines.js';
import { createServer } from '../../../create-server.js';
import { type McpLiteStdioOptions, type McpLiteStdioServer, serveMcpLiteStdio } from './index.js';

const tools = [
  { name: 'echo', handler: (a: { message: string }) => ({ message: a.message }) },
  {
    name: 'delay',
    handler: async (a: { ms: number }) => {
      await new Promise((r) => setTimeout(r, a.ms));
      return a.ms;
    },
  },
  {
    name: 'report',
    handler: async function* () {
      yield 1;
      yield 2;
      return 'done';
    },
  },
  {
    name: 'wait',
    handler: (_a: unknown, ctx: { signal: AbortSignal }) =>
      new Promise((_r, reject) => ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason))),
  },
  { name: 'big', handler: () => 'x'.repeat(64 * 1024) },
];

let open: McpLiteStdioServer | undefined;
afterEach(() => open?.close());

function connect(options: McpLiteStdioOptions = {}) {
  const server = createServer({ tools, promiseStore: false });
  const input = new PassThrough();
  const own = new PassThrough();
  const output = options.output ?? own;
  // A caller's own output (one that stops reading) is not read here: reading it would drain it.
  const lines: JsonLines = options.output
    ? { messages: [], next: () => new Promise(() => {}) }
    : jsonLines(own);
  const stdio = serveMcpLiteStdio(server, { ...options, input, output });
  open = stdio;
  const send = (m: unknown) => input.write(`${typeof m === 'string' ? m : JSON.stringify(m)}\n`);
  return { stdio, input, send, next: lines.next, messages: lines.messages };
}

describe('MCP-lite over stdio', () => {
  it('answers tools/list and tools/call, many at once, each as it finishes', async () => {
    const c = connect();
    c.send({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
    expect((await c.next((m) => m.id === 1)).result.tools.map((t: any) => t.name)).toEqual(
      tools.map((t) => t.name),
    );
    for (const [id, ms] of [
      [2, 200],
      [3, 80],
      [4, 1],
    ] as const) {
      c.send({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'delay', arguments: { ms } } });
    }
    const order: number[] = [];
    for (let i = 0; i < 3; i++) order.push((await c.next((m) => m.id >= 2)).id);
    expect(order).toEqual([4, 3, 2]);
  });

  it('sends partials as notifications when asked, and cancels on notifications/cancelled', async () => {
    const c = connect();
    c.send({ jsonrpc: '2.0', id: 's', method: 'tools/call', params: { name: 'report', stream: true } });
    const done = await c.next((m) => m.id === 's');
    expect(done.result.content).toBe('done');
    expect(c.messages).toEqual([
      { jsonrpc: '2.0', method: 'notifications/partial', params: { id: 's', partial: 1 } },
      { jsonrpc: '2.0', method: 'notifications/partial', params: { id: 's', partial: 2 } },
    ]);
    c.send({ jsonrpc: '2.0', id: 'w', method: 'tools/call', params: { name: 'wait' } });
    c.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'w' } });
    expect((await c.next((m) => m.id === 'w')).error.code).toBe(-32800);
  });

  it('answers bad lines with JSON-RPC errors, skips blank ones, takes CRLF, and carries on', async () => {
    const c = connect();
    c.send('this is not json');
    expect((await c.next((m) => m.error)).error.code).toBe(-32700);
    c.send('   ');
    c.send({ jsonrpc: '2.0', id: 7, method: 'nope' });
    expect((await c.next((m) => m.id === 7)).error.code).toBe(-32601);
    c.input.write('{"jsonrpc":"2.0","id":8,"method":"ping"}\r\n');
    expect(await c.next((m) => m.id === 8)).toEqual({ jsonrpc: '2.0', id: 8, result: {} });
    c.send([]);
    expect((await c.next((m) => m.error)).error.code).toBe(-32600);
  });

  it('refuses a line over the limit as soon as it passes it, without waiting for its end', async () => {
    const c = connect({ maxLineBytes: 1024 });
    c.input.write('{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"pad":"');
    c.input.write('x'.repeat(4096));
    // No newline yet: the error comes from the size alone.
    const refused = await c.next((m) => m.error);
    expect(refused.error).toMatchObject({ code: -32600, data: { limit: 1024 } });
    c.input.write(`${'y'.repeat(4096)}"}}\n`);
    c.send({ jsonrpc: '2.0', id: 2, method: 'ping' });
    expect((await c.next((m) => m.id === 2)).result).toEqual({});
    expect(c.messages).toEqual([]);
  });

  it('ends when the input ends, after the running calls have answered', async () => {
    const c = connect();
    c.send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'delay', arguments: { ms: 30 } } });
    c.input.end();
    await c.stdio.closed;
    expect(c.messages).toEqual([expect.objectContaining({ id: 1, result: expect.anything() })]);
  });

  it('stops rather than buffering without bound for a client that never reads', async () => {
    const output = new PassThrough({ highWaterMark: 1024 });
    const c = connect({ output, maxQueuedBytes: 256 * 1024 });
    for (let i = 0; i < 10; i++)
      c.send({ jsonrpc: '2.0', id: i, method: 'tools/call', params: { name: 'big' } });
    await c.stdio.closed.then(undefined, () => {});
    expect(output.writableLength).toBeLessThan(1024 * 1024);
  });
});
