/**
 * Issue 22 item 11: answers buffered without bound for clients that do not read. Each attack runs in a child
 * process with the gc exposed (test/support/unread-responses.ts): raw sockets that POST a batch whose answer is
 * large (100 `tools/list` of a 150 KB catalog: 15 MB asked for in 11 KB) and never read, on MCP-lite HTTP, on
 * `/mcp` (2025-03-26) and on the legacy HTTP+SSE transport. The server's buffered output and memory must stay
 * small while another client is still served, and be freed once the attackers go. Beside it, in this process:
 * the batch answer's bound as a client sees it, and a client that half-closes and never reads.
 */
import { execFile } from 'node:child_process';
import { connect, type Socket } from 'node:net';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { MAX_BATCH_ANSWER_BYTES } from '../../src/bindings/common/batch.js';
import { createServer, defineTool } from '../../src/index.js';
import { type RunningServer, serve } from '../../src/node.js';
import { MemorySessionStore } from '../../src/stores/memory-sessions.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const MB = 1024 * 1024;

interface Figures {
  before: number;
  during: { buffered: number; memory: number };
  after: { buffered: number; memory: number; sockets: number };
  other: number | false;
}

async function attack(path: string, connections: number): Promise<Figures> {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['--expose-gc', '--import', 'tsx', 'test/support/unread-responses.ts', path, String(connections)],
    { cwd: ROOT, timeout: 90_000, maxBuffer: 4 * MB },
  );
  const last = stdout.trim().split('\n').at(-1)!;
  return JSON.parse(last) as Figures;
}

describe('clients that never read their answers', () => {
  // Before the fix: 20 connections held 312 MB of output on both JSON endpoints, 12 legacy streams 755 MB.
  for (const [path, connections] of [
    ['/mcp-lite/v1/rpc', 20],
    ['/mcp', 20],
    ['/sse', 12],
  ] as const) {
    it(`${path}: ${connections} of them keep the server small and it serves others`, async () => {
      const figures = await attack(path, connections);
      expect(figures.other, JSON.stringify(figures)).toBe(100);
      expect(figures.during.buffered, JSON.stringify(figures)).toBeLessThan(8 * MB);
      expect(figures.during.memory - figures.before, JSON.stringify(figures)).toBeLessThan(64 * MB);
      // Gone clients leave nothing behind (the other client's keep-alive socket may still be open).
      expect(figures.after.buffered).toBe(0);
      expect(figures.after.sockets).toBeLessThanOrEqual(2);
      expect(figures.after.memory - figures.before).toBeLessThan(16 * MB);
    }, 120_000);
  }
});

// 100 tools of about 1.5 KB each: a tools/list answer of about 150 KB.
const catalog = Array.from({ length: 100 }, (_, i) =>
  defineTool({
    name: `tool_${i}`,
    description: `Tool ${i}: ${'lorem ipsum dolor sit amet '.repeat(55)}`,
    handler: () => 'ok',
  }),
);
const huge = defineTool({
  name: 'huge',
  description: 'Answers 24 MB',
  handler: () => 'x'.repeat(24 * MB),
});

let running: RunningServer | undefined;
afterEach(async () => {
  await running?.close(0);
  running = undefined;
});

describe('the bound of a batch answer', () => {
  for (const [path, headers] of [
    ['/mcp-lite/v1/rpc', {}],
    ['/mcp', { 'mcp-protocol-version': '2025-03-26', accept: 'application/json, text/event-stream' }],
  ] as const) {
    it(`${path}: answers what fits and refuses the rest member by member`, async () => {
      running = await serve(createServer({ tools: catalog }), { port: 0 });
      const batch = Array.from({ length: 100 }, (_, id) => ({ jsonrpc: '2.0', id, method: 'tools/list' }));
      const res = await fetch(`${running.url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify(batch),
      });
      expect(res.status).toBe(200);
      const text = await res.text();
      expect(Buffer.byteLength(text)).toBeLessThanOrEqual(MAX_BATCH_ANSWER_BYTES);
      const answers = JSON.parse(text) as Array<{ id: number; result?: { tools: unknown[] }; error?: any }>;
      expect(answers.map((a) => a.id)).toEqual(batch.map((m) => m.id));
      const answered = answers.filter((a) => a.result);
      expect(answered.length).toBeGreaterThan(0);
      expect(answered.every((a) => a.result!.tools.length === 100)).toBe(true);
      const refused = answers.slice(answered.length);
      expect(refused.length).toBeGreaterThan(0);
      for (const a of refused) {
        expect(a.error).toMatchObject({ code: -32004, data: { limit: MAX_BATCH_ANSWER_BYTES } });
        expect(a.error.message).toContain('smaller batch');
      }
    });
  }
});

describe('a client that half-closes and never reads', () => {
  it('has its connection, and the answer it held, freed within seconds', async () => {
    running = await serve(createServer({ tools: [huge] }), { port: 0 });
    const serverSockets = new Set<Socket>();
    running.http.server.on('connection', (s: Socket) => {
      serverSockets.add(s);
      s.once('close', () => serverSockets.delete(s));
    });
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'huge' } });
    const client = connect(running.http.port, '127.0.0.1');
    client.on('error', () => {});
    client.pause();
    await new Promise((resolve) => client.once('connect', resolve));
    client.end(
      `POST /mcp-lite/v1/rpc HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\n` +
        `content-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );
    // The answer is written and stalls: far more than the kernel takes for a peer that does not read.
    await expect
      .poll(() => [...serverSockets].reduce((n, s) => n + s.writableLength, 0), { timeout: 10_000 })
      .toBeGreaterThan(8 * MB);
    const stalled = Date.now();
    await expect.poll(() => serverSockets.size, { timeout: 15_000, interval: 100 }).toBe(0);
    // Before the fix it stayed until the idle timeout (120 s).
    expect(Date.now() - stalled).toBeLessThan(8_000);
    client.destroy();
  }, 120_000);

  it('still gets the whole answer when it reads, however it paces itself', async () => {
    running = await serve(createServer({ tools: [huge] }), { port: 0 });
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'huge' } });
    const client = connect(running.http.port, '127.0.0.1');
    await new Promise((resolve) => client.once('connect', resolve));
    client.end(
      `POST /mcp-lite/v1/rpc HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\n` +
        `content-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );
    let received = 0;
    // Reads in bursts with pauses shorter than the 2 s the server gives a half-closed peer to take something.
    client.on('data', (chunk: Buffer) => {
      received += chunk.length;
      client.pause();
      setTimeout(() => client.resume(), 5);
    });
    await new Promise((resolve) => client.once('close', resolve));
    expect(received).toBeGreaterThan(24 * MB);
  }, 60_000);
});

describe("a session's GET stream whose client stops reading", () => {
  it('is cut off past its bound instead of keeping every event for it', async () => {
    const store = new MemorySessionStore();
    running = await serve(createServer({ tools: [huge] }), { port: 0, sessionStore: store });
    const headers = {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-03-26',
    };
    const init = await fetch(`${running.url}/mcp`, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2025-03-26',
          capabilities: {},
          clientInfo: { name: 'stalled', version: '1' },
        },
      }),
    });
    const sessionId = init.headers.get('mcp-session-id')!;
    await init.text();
    const client = connect(running.http.port, '127.0.0.1');
    client.on('error', () => {});
    await new Promise((resolve) => client.once('connect', resolve));
    client.pause();
    client.write(
      `GET /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\naccept: text/event-stream\r\nmcp-session-id: ${sessionId}\r\n` +
        'mcp-protocol-version: 2025-03-26\r\n\r\n',
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    // 16 MB of events for a client that reads none of them (the kernel takes a few MB).
    const data = `{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"${'x'.repeat(4000)}"}}`;
    for (let i = 0; i < 4000; i++) {
      await store.publish(sessionId, {
        type: 'event',
        stream: 'get',
        id: `e${i}`,
        chunk: `event: message\ndata: ${data}\n\n`,
      });
    }
    const published = 4000 * data.length;
    let received = 0;
    let tail = '';
    const ended = new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), 10_000);
      client.on('data', (chunk: Buffer) => {
        received += chunk.length;
        tail = (tail + chunk.toString('latin1')).slice(-16);
        // The end of the chunked body: the stream was ended.
        if (tail.endsWith('0\r\n\r\n')) {
          clearTimeout(timer);
          resolve(true);
        }
      });
      client.once('close', () => {
        clearTimeout(timer);
        resolve(true);
      });
    });
    client.resume();
    expect(await ended).toBe(true);
    expect(received).toBeLessThan(published / 2);
    client.destroy();
  }, 120_000);
});
