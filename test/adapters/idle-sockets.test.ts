/**
 * The node adapter's idle timeout (`idleTimeoutMs`, src/adapters/idle-sockets.ts): a connection on which nothing
 * moves is closed, one that moves bytes lives on, over real sockets.
 */
import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { NeutralRequest, NeutralResponse } from '../../src/core/http.js';
import { listenNode, type NodeListening } from '../../src/node.js';

let listening: NodeListening | undefined;

afterEach(async () => {
  await listening?.close();
  listening = undefined;
});

/** `/hang` never answers; `/drip` streams a chunk every 100 ms for 1.5 s; anything else answers at once. */
function handler(request: NeutralRequest): Promise<NeutralResponse> {
  if (request.path === '/hang') return new Promise(() => {});
  if (request.path === '/drip') {
    return Promise.resolve({
      status: 200,
      headers: { 'content-type': 'text/plain' },
      body: (async function* () {
        for (let i = 0; i < 15; i++) {
          await new Promise((resolve) => setTimeout(resolve, 100));
          yield `chunk ${i}\n`;
        }
      })(),
    });
  }
  return Promise.resolve({ status: 200, headers: { 'content-type': 'text/plain' }, body: 'ok' });
}

/** Opens a connection, sends `GET path` (keep-alive), and resolves with what it received and when it closed. */
async function exchange(port: number, path: string): Promise<{ text: string; closedAfterMs: number }> {
  const socket: Socket = connect(port, '127.0.0.1');
  await new Promise((resolve) => socket.once('connect', resolve));
  const started = Date.now();
  let text = '';
  socket.on('data', (chunk: Buffer) => {
    text += chunk.toString('utf8');
  });
  socket.write(`GET ${path} HTTP/1.1\r\nhost: 127.0.0.1\r\nconnection: keep-alive\r\n\r\n`);
  await new Promise((resolve) => socket.once('close', resolve));
  return { text, closedAfterMs: Date.now() - started };
}

describe('idle connections (idleTimeoutMs)', () => {
  it('closes a connection whose request is never answered once nothing has moved for the timeout', async () => {
    listening = await listenNode(handler, { idleTimeoutMs: 400, keepAliveTimeoutMs: 30_000 });
    const { text, closedAfterMs } = await exchange(listening.port, '/hang');
    expect(text).toBe('');
    expect(closedAfterMs).toBeGreaterThanOrEqual(350);
    expect(closedAfterMs).toBeLessThan(3_000);
  });

  it('closes a kept-alive connection left idle after its answer', async () => {
    listening = await listenNode(handler, { idleTimeoutMs: 400, keepAliveTimeoutMs: 30_000 });
    const { text, closedAfterMs } = await exchange(listening.port, '/');
    expect(text).toContain('200 OK');
    expect(closedAfterMs).toBeLessThan(3_000);
  });

  it('keeps a connection that moves bytes open past the timeout, to the end of its answer', async () => {
    listening = await listenNode(handler, { idleTimeoutMs: 400, keepAliveTimeoutMs: 30_000 });
    const { text, closedAfterMs } = await exchange(listening.port, '/drip');
    expect(text).toContain('chunk 14');
    // The answer took 1.5 s, well past the timeout; the connection then idled out.
    expect(closedAfterMs).toBeGreaterThanOrEqual(1_500);
  });

  it('closes nothing with the timeout off (0)', async () => {
    listening = await listenNode(handler, { idleTimeoutMs: 0, keepAliveTimeoutMs: 1_500 });
    const { closedAfterMs } = await exchange(listening.port, '/');
    // Only node's keep-alive timeout ended it.
    expect(closedAfterMs).toBeGreaterThanOrEqual(1_400);
  });
});
