/**
 * The one outbound writer (`bindings/common/outbound-stream.ts`): a client that stops reading is cut off once
 * `maxQueuedBytes` wait for it, on every binding that streams or holds a connection, with the same option name.
 * Shown through real sockets and pipes: MCP-lite HTTP's SSE call stream, an MCP Streamable HTTP POST stream and
 * MCP-lite over WebSocket, each fed by a tool that sends partials without waiting for them to be read (the client's
 * socket reads nothing while the tool sends: the server must drop the connection and abort the call rather than keep
 * what the tool sends for it), and MCP over stdio in a child process whose stdout pipe nobody reads.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { listenNode, type NodeListening } from '../../src/adapters/node.js';
import { composeHandlers } from '../../src/bindings/common/compose.js';
import { createMcpBinding } from '../../src/bindings/mcp/index.js';
import { createMcpLiteHttpBinding } from '../../src/bindings/mcp-lite/http/index.js';
import { createMcpLiteWsBinding } from '../../src/bindings/mcp-lite/ws/index.js';
import { createServer } from '../../src/index.js';

const CHUNK = 'x'.repeat(16 * 1024);
/** 64 MiB in all: far more than the kernel's socket buffers hold on loopback. */
const PARTIALS = 4096;
let sent = 0;
let aborted = false;
let stopped: () => void = () => {};

const server = createServer({
  tools: [
    {
      name: 'flood',
      handler: (_a, ctx) =>
        new Promise((resolve) => {
          stopped = () => resolve('stopped');
          ctx.signal.addEventListener('abort', () => {
            aborted = true;
            resolve('aborted');
          });
          // Not awaited: the stream's bound is all that stands between this and the heap.
          const step = () => {
            for (let i = 0; i < 64 && sent < PARTIALS && !ctx.signal.aborted; i++, sent++)
              void ctx.partial(CHUNK);
            if (sent < PARTIALS && !ctx.signal.aborted) setImmediate(step);
          };
          step();
        }),
    },
  ],
});

let listening: NodeListening | undefined;
afterEach(async () => {
  stopped();
  sent = 0;
  aborted = false;
  await listening?.close();
});

/**
 * Sends `request` raw on a socket that reads nothing until the tool has stopped sending (every partial sent, or the
 * call aborted; bounded polling), then reads what the server still delivers: 'cut off' when the server closed the
 * connection before all of it arrived, 'everything' when every partial reached the client.
 */
function sendUnread(port: number, request: Buffer | string): Promise<string> {
  const socket: Socket = connect(port, '127.0.0.1');
  return new Promise((resolve, reject) => {
    let received = 0;
    socket.on('connect', () => {
      socket.pause();
      socket.write(request);
      void (async () => {
        for (let i = 0; i < 3000 && sent < PARTIALS && !aborted; i++)
          await new Promise((r) => setTimeout(r, 10));
        socket.on('data', (chunk: Buffer) => {
          received += chunk.length;
          if (received >= PARTIALS * CHUNK.length) {
            socket.destroy();
            resolve('everything');
          }
        });
        socket.resume();
      })();
    });
    socket.on('close', () => resolve('cut off'));
    socket.on('error', (err) => reject(err));
  });
}

/** A raw HTTP POST of `body` as JSON. */
function post(path: string, body: unknown, headers: Record<string, string>): string {
  const text = JSON.stringify(body);
  return [
    `POST ${path} HTTP/1.1`,
    'host: 127.0.0.1',
    'content-type: application/json',
    `content-length: ${Buffer.byteLength(text)}`,
    ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
    '',
    text,
  ].join('\r\n');
}

/** A raw WebSocket upgrade request (RFC 6455 4.1) followed by one text frame carrying `message`, masked. */
function upgradeAndSend(path: string, protocol: string, message: unknown): Buffer {
  const head = [
    `GET ${path} HTTP/1.1`,
    'host: 127.0.0.1',
    'upgrade: websocket',
    'connection: Upgrade',
    `sec-websocket-key: ${randomBytes(16).toString('base64')}`,
    'sec-websocket-version: 13',
    `sec-websocket-protocol: ${protocol}`,
    '',
    '',
  ].join('\r\n');
  const payload = Buffer.from(JSON.stringify(message));
  const mask = randomBytes(4);
  // FIN + text; the payload here is under 64 KiB, so a 16-bit length (126) when over 125 bytes.
  const header =
    payload.length < 126
      ? Buffer.from([0x81, 0x80 | payload.length])
      : Buffer.from([0x81, 0x80 | 126, payload.length >> 8, payload.length & 0xff]);
  const masked = Buffer.from(payload.map((b, i) => b ^ mask[i % 4]!));
  return Buffer.concat([Buffer.from(head), header, mask, masked]);
}

describe('a client that stops reading a stream is cut off', () => {
  it('on MCP-lite HTTP (SSE)', async () => {
    listening = await listenNode(createMcpLiteHttpBinding(server, { maxQueuedBytes: 256 * 1024 }), {
      port: 0,
    });
    const outcome = sendUnread(
      listening.port,
      post(
        '/mcp-lite/v1/calltools',
        { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'flood', arguments: {} } },
        { accept: 'text/event-stream' },
      ),
    );
    expect(await outcome).toBe('cut off');
    // The call's client is gone: its work is aborted, not left to send into nothing.
    expect(aborted).toBe(true);
  }, 60_000);

  it('on MCP Streamable HTTP (a POST stream)', async () => {
    const mcp = createMcpBinding(server, { sessions: false, maxQueuedBytes: 256 * 1024 });
    listening = await listenNode(composeHandlers(mcp), { port: 0 });
    const outcome = sendUnread(
      listening.port,
      post(
        '/mcp',
        {
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: { name: 'flood', arguments: {}, _meta: { progressToken: 'p' } },
        },
        { accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' },
      ),
    );
    expect(await outcome).toBe('cut off');
    expect(aborted).toBe(true);
    mcp.close();
  }, 60_000);

  it('on a WebSocket connection (MCP-lite)', async () => {
    const ws = createMcpLiteWsBinding(server, { maxQueuedBytes: 256 * 1024 });
    listening = await listenNode(composeHandlers(), { port: 0, onUpgrade: ws.upgrade });
    const outcome = sendUnread(
      listening.port,
      upgradeAndSend('/mcp-lite/v1/ws', 'mcp-lite', {
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'flood', arguments: {}, stream: true },
      }),
    );
    expect(await outcome).toBe('cut off');
    // The connection is gone, and with it the call running on it.
    expect(aborted).toBe(true);
    expect(ws.connections).toBe(0);
    await ws.close(0);
  }, 60_000);

  it('on stdio (MCP): a child process whose stdout pipe nobody reads stops', async () => {
    const root = fileURLToPath(new URL('../..', import.meta.url));
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', join(root, 'test/support/stdio-hardening-server.ts')],
      {
        cwd: root,
        env: { ...process.env, MCPLITE_TOKENS: '', MCPLITE_MAX_QUEUED_BYTES: String(256 * 1024) },
      },
    );
    try {
      // Nothing ever reads the child's stdout: the pipe and this side's socket buffer fill, then answers wait.
      child.stdout.pause();
      let stderr = '';
      child.stderr.setEncoding('utf8').on('data', (c: string) => {
        stderr += c;
      });
      const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
      // 64 answers of 256 KiB: 16 MiB, far past the bound and what the pipe holds.
      for (let id = 1; id <= 64; id++) {
        const params = {
          name: 'big',
          arguments: { bytes: 256 * 1024 },
          _meta: {
            'io.modelcontextprotocol/protocolVersion': '2026-07-28',
            'io.modelcontextprotocol/clientCapabilities': {},
          },
        };
        child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params })}\n`);
      }
      // The session ends by itself (its runner then exits), with stdout still unread.
      expect(await exited).toBe(0);
      expect(stderr).toMatch(/stdout is not being read: stopping/);
    } finally {
      child.kill();
    }
  }, 60_000);
});
