/**
 * A flood of sockets (issue 9: 1,500 of them ran the process into its file limit) degrades into quick refusals:
 * real TCP connections to a real server, the limit held, the next requests answered 503 or closed, and normal
 * service once the flood goes away. gRPC (grpc-js) closes connections past its limit on arrival.
 */
import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createServer, defineTool } from '../../src/index.js';
import { type RunningServer, serve } from '../../src/node.js';
import { makeClient, unary } from '../support/grpc-client.js';

const tools = [defineTool({ name: 'ping', description: 'Answers pong', handler: () => 'pong' })];

let running: RunningServer | undefined;
const sockets: Socket[] = [];

afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy();
  await running?.close(500);
  running = undefined;
});

/**
 * Opens `n` sockets that start a request and never finish it, and waits until each is connected or refused, or
 * for at most 5 s: on a busy machine the kernel drops SYNs past the listen backlog and retries them for a minute,
 * and such a socket is held (pending) all the same.
 */
async function flood(port: number, n: number): Promise<{ connected: number }> {
  let connected = 0;
  // In waves of at most 250, so that a busy server's listen backlog (511) is not what refuses them.
  for (let opened = 0; opened < n; opened += 250) {
    await wave(port, Math.min(250, n - opened), () => connected++);
  }
  return { connected };
}

async function wave(port: number, n: number, onConnect: () => void): Promise<void> {
  await Promise.all(
    Array.from(
      { length: n },
      () =>
        new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, 5_000);
          const done = () => {
            clearTimeout(timer);
            resolve();
          };
          const s = connect(port, '127.0.0.1', () => {
            onConnect();
            s.write('POST /mcp-lite/v1/calltools HTTP/1.1\r\nHost: 127.0.0.1\r\n');
            done();
          });
          s.on('error', done);
          sockets.push(s);
        }),
    ),
  );
}

/** How many connections the server holds now. */
function connections(r: RunningServer): Promise<number> {
  return new Promise((resolve, reject) =>
    r.http.server.getConnections((err, count) => (err ? reject(err) : resolve(count))),
  );
}

async function callPing(url: string): Promise<number | 'closed'> {
  try {
    const res = await fetch(`${url}/mcp-lite/v1/calltools`, {
      method: 'POST',
      // A connection the server never takes counts as closed, without waiting for undici's 10 s connect timeout.
      signal: AbortSignal.timeout(3000),
      headers: { 'content-type': 'application/json', connection: 'close' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'ping' } }),
    });
    await res.text();
    return res.status;
  } catch {
    return 'closed';
  }
}

describe('connection limit (node:http)', () => {
  it('answers 503 past the limit while 1,500 sockets are held, and serves again once they go', async () => {
    running = await serve(createServer({ tools }), { port: 0, maxConnections: 200 });
    await flood(running.http.port, 1_500);
    // The server holds as many connections as it takes before the test asks for more.
    await expect.poll(() => connections(running!), { timeout: 30_000 }).toBeGreaterThanOrEqual(200);
    const refused = await Promise.all(Array.from({ length: 10 }, () => callPing(running!.url)));
    for (const outcome of refused) expect([503, 'closed']).toContain(outcome);
    const first503 = await fetch(`${running.url}/mcp-lite/v1/calltools`, {
      method: 'POST',
      signal: AbortSignal.timeout(3000),
    }).catch(() => undefined);
    if (first503) {
      expect(first503.status).toBe(503);
      expect(first503.headers.get('retry-after')).toBe('1');
      expect((await first503.json()).error).toMatchObject({ code: -32603, data: { reason: 'unavailable' } });
    }
    for (const s of sockets.splice(0)) s.destroy();
    let status: number | 'closed' = 'closed';
    // Closing 1,500 sockets takes the server a while when the machine is busy: wait for service by the clock.
    const deadline = Date.now() + 30_000;
    while (status !== 200 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 20));
      status = await callPing(running.url);
    }
    expect(status).toBe(200);
  }, 90_000);

  it('answers 503 (not a reset) to the first connections past the limit', async () => {
    running = await serve(createServer({ tools }), { port: 0, maxConnections: 20 });
    const { connected } = await flood(running.http.port, 20);
    expect(connected).toBe(20);
    await expect.poll(() => connections(running!), { timeout: 10_000 }).toBe(20);
    expect(await callPing(running.url)).toBe(503);
  });
});

describe('connection limit (gRPC)', () => {
  it('closes gRPC connections past the limit; clients get UNAVAILABLE, then service once it frees', async () => {
    running = await serve(createServer({ tools }), { port: 0, grpcPort: 0, maxConnections: 5 });
    const clients = Array.from({ length: 5 }, () =>
      makeClient(running!.grpc!.address, 'spec', { 'grpc.use_local_subchannel_pool': 1 }),
    );
    for (const c of clients) expect((await unary(c, 'GetTools', {})).response).toBeDefined();
    const extra = makeClient(running.grpc!.address, 'spec', { 'grpc.use_local_subchannel_pool': 1 });
    const refused = await unary(extra, 'GetTools', {}, { deadlineMs: 1_000 });
    expect([14, 4]).toContain(refused.error?.code); // UNAVAILABLE, or the deadline while it retries
    for (const c of clients) c.close();
    let ok = false;
    for (let i = 0; i < 50 && !ok; i++) {
      await new Promise((r) => setTimeout(r, 50));
      ok = (await unary(extra, 'GetTools', {}, { deadlineMs: 1_000 })).response !== undefined;
    }
    expect(ok).toBe(true);
    extra.close();
  }, 120_000);
});
