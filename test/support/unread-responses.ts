/**
 * The attack of issue 22 item 11: clients that POST a batch whose answer is large and never read it. Run as a
 * child process with the gc exposed, so that the figures are this server's alone:
 *
 *   node --expose-gc --import tsx test/support/unread-responses.ts <path> <connections>
 *
 * `path` is `/mcp-lite/v1/rpc`, `/mcp` (a 2025-03-26 batch) or `/sse` (legacy HTTP+SSE: the client opens its
 * stream, never reads it, and posts batches to its session). The catalog's `tools/list` is about 150 KB, so a
 * batch of 100 of them asks for about 15 MB. Each attacker is a raw `net` socket that never reads: the kernel
 * buffers fill, then whatever the server keeps is the server's. While they stall, another client must still be
 * served. Prints one JSON line: the server's buffered output bytes (the sum of its sockets' `writableLength`),
 * its memory (heap and external after a full gc) before, during and after the attackers left, and whether the
 * other client was answered. With `HALF_CLOSE=1` the attackers leave by half-closing (FIN) instead of resetting.
 */
import { connect, type Socket } from 'node:net';
import { createServer, defineTool } from '../../src/index.js';
import { serve } from '../../src/node.js';

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with node --expose-gc');
const path = process.argv[2] ?? '/mcp-lite/v1/rpc';
const connections = Number(process.argv[3] ?? 20);

// 100 tools of about 1.5 KB each: a tools/list answer of about 150 KB.
const tools = Array.from({ length: 100 }, (_, i) =>
  defineTool({
    name: `tool_${i}`,
    description: `Tool ${i}: ${'lorem ipsum dolor sit amet '.repeat(55)}`,
    handler: () => 'ok',
  }),
);
const running = await serve(createServer({ tools }), { port: 0 });
const serverSockets = new Set<Socket>();
running.http.server.on('connection', (socket: Socket) => {
  serverSockets.add(socket);
  socket.once('close', () => serverSockets.delete(socket));
});
const { port } = new URL(running.url);

function memory(): number {
  gc!();
  gc!();
  const m = process.memoryUsage();
  return m.heapUsed + m.external;
}

function buffered(): number {
  let n = 0;
  for (const s of serverSockets) n += s.writableLength;
  return n;
}

function batch(method: string, protocol?: string): string {
  return JSON.stringify(
    Array.from({ length: 100 }, (_, id) => ({
      jsonrpc: '2.0',
      id,
      method,
      ...(protocol ? { params: {} } : {}),
    })),
  );
}

function post(socket: Socket, target: string, body: string, extra = ''): void {
  socket.write(
    `POST ${target} HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\ncontent-type: application/json\r\n` +
      `accept: application/json, text/event-stream\r\n${extra}content-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
}

/** A raw socket that never reads (paused: node stops taking bytes from the kernel). */
function attacker(): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1', () => resolve(socket));
    socket.pause();
    socket.on('error', () => {});
    socket.once('error', reject);
  });
}

/** Opens a legacy SSE stream on `socket` (never read after its first bytes) and returns its session id. */
async function legacySession(socket: Socket): Promise<string> {
  socket.write(`GET /sse HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\naccept: text/event-stream\r\n\r\n`);
  return new Promise((resolve, reject) => {
    let seen = '';
    const onData = (chunk: Buffer) => {
      seen += String(chunk);
      const match = /sessionId=([\w-]+)/.exec(seen);
      if (!match) return;
      // From here on the stream is never read again.
      socket.off('data', onData);
      socket.pause();
      resolve(match[1]!);
    };
    socket.on('data', onData);
    socket.resume();
    socket.once('close', () => reject(new Error('no endpoint event')));
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const before = memory();
const sockets: Socket[] = [];
for (let i = 0; i < connections; i++) {
  const socket = await attacker();
  sockets.push(socket);
  if (path === '/sse') {
    const id = await legacySession(socket);
    // The messages go on other (read) connections; the answers go down the unread stream.
    const initialize = {
      jsonrpc: '2.0',
      id: 'init',
      method: 'initialize',
      params: {
        protocolVersion: '2024-11-05',
        capabilities: {},
        clientInfo: { name: 'attacker', version: '1' },
      },
    };
    for (const message of [initialize, { jsonrpc: '2.0', method: 'notifications/initialized' }]) {
      const res = await fetch(`${running.url}/messages?sessionId=${id}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(message),
      });
      await res.arrayBuffer();
    }
    for (let b = 0; b < 16; b++) {
      const res = await fetch(`${running.url}/messages?sessionId=${id}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: batch('tools/list', '2024-11-05'),
      });
      await res.arrayBuffer();
    }
  } else if (path === '/mcp') {
    post(socket, '/mcp', batch('tools/list', '2025-03-26'), 'mcp-protocol-version: 2025-03-26\r\n');
  } else post(socket, path, batch('tools/list'));
}
await sleep(1500);
const during = { buffered: buffered(), memory: memory() };
// Another client is still served while the attackers stall.
const other = await fetch(`${running.url}/mcp-lite/v1/rpc`, {
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
  signal: AbortSignal.timeout(10_000),
}).then(
  async (r) =>
    r.status === 200 && ((await r.json()) as { result?: { tools?: unknown[] } }).result?.tools?.length,
  () => false,
);
// A client that leaves by half-closing (FIN) never reads either; one that resets is gone at once.
for (const s of sockets) process.env.HALF_CLOSE ? s.end() : s.destroy();
await sleep(process.env.HALF_CLOSE ? 5000 : 1000);
const after = { buffered: buffered(), memory: memory(), sockets: serverSockets.size };
await running.close(0);
process.stdout.write(`${JSON.stringify({ path, connections, before, during, after, other })}\n`);
process.exit(0);
