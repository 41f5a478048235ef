/**
 * The one outbound stream (`bindings/common/outbound-stream.ts`): a client that stops reading a stream is cut off
 * once `maxQueuedBytes` wait for it, on every binding that streams, with the same option name. Shown through real
 * sockets on two bindings: MCP-lite HTTP's SSE call stream and an MCP Streamable HTTP POST stream, each fed by a tool
 * that sends partials without waiting for them to be read. The client's socket reads nothing while the tool sends;
 * the server must drop the connection (and abort the call) rather than keep what the tool sends for it.
 */
import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { listenNode, type NodeListening } from '../src/adapters/node.js';
import { composeHandlers } from '../src/bindings/common/compose.js';
import { createMcpBinding } from '../src/bindings/mcp/index.js';
import { createHttpBinding } from '../src/bindings/mcp-lite/http/index.js';
import { createServer } from '../src/index.js';

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
 * Sends a raw HTTP POST on a socket that reads nothing until the tool has stopped sending (every partial sent, or
 * the call aborted; bounded polling), then reads what the server still delivers: 'cut off' when the server closed
 * the connection before all of it arrived, 'everything' when every partial reached the client.
 */
function postUnread(
  port: number,
  path: string,
  body: unknown,
  headers: Record<string, string>,
): Promise<string> {
  const text = JSON.stringify(body);
  const socket: Socket = connect(port, '127.0.0.1');
  return new Promise((resolve, reject) => {
    let received = 0;
    socket.on('connect', () => {
      socket.pause();
      const lines = [
        `POST ${path} HTTP/1.1`,
        'host: 127.0.0.1',
        'content-type: application/json',
        `content-length: ${Buffer.byteLength(text)}`,
        ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
        '',
        text,
      ];
      socket.write(lines.join('\r\n'));
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

describe('a client that stops reading a stream is cut off', () => {
  it('on MCP-lite HTTP (SSE)', async () => {
    listening = await listenNode(createHttpBinding(server, { maxQueuedBytes: 256 * 1024 }), { port: 0 });
    const outcome = postUnread(
      listening.port,
      '/mcp-lite/v1/calltools',
      { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'flood', arguments: {} } },
      { accept: 'text/event-stream' },
    );
    expect(await outcome).toBe('cut off');
    // The call's client is gone: its work is aborted, not left to send into nothing.
    expect(aborted).toBe(true);
  }, 60_000);

  it('on MCP Streamable HTTP (a POST stream)', async () => {
    const mcp = createMcpBinding(server, { sessions: false, maxQueuedBytes: 256 * 1024 });
    listening = await listenNode(composeHandlers(mcp), { port: 0 });
    const outcome = postUnread(
      listening.port,
      '/mcp',
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'flood', arguments: {}, _meta: { progressToken: 'p' } },
      },
      { accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' },
    );
    expect(await outcome).toBe('cut off');
    expect(aborted).toBe(true);
    mcp.close();
  }, 60_000);
});
