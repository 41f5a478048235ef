/**
 * A redeem that waits on a promise (wait_ms) while the Redis behind the promise store dies must answer
 * `unavailable` at once (issue 22 item 18: it answered after 14.5 s, when its wait ran out). A private
 * redis-server on a free port, killed while a redeem waits over MCP-lite HTTP (a real socket).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createServer } from '../../src/index.js';
import { type RunningServer, serve } from '../../src/node.js';
import { RedisPromiseStore } from '../../src/stores/redis/index.js';
import { freePort } from '../support/free-port.js';
import { latch } from '../support/latch.js';
import { RedisServer } from '../support/scale-cluster.js';

/** Called when a redeem starts waiting on a promise in the store. */
let waitStarted = (): void => {};

/** The real Redis store, telling the test when a redeem waits on it. */
class WatchedStore extends RedisPromiseStore {
  override waitSettled(...args: Parameters<RedisPromiseStore['waitSettled']>) {
    waitStarted();
    return super.waitSettled(...args);
  }
}

const open: Array<{ close(): Promise<unknown> }> = [];
afterEach(async () => {
  for (const o of open.splice(0).reverse()) await o.close().catch(() => {});
});

describe('a redeem waiting on Redis when Redis dies', () => {
  it('answers unavailable at once, not when its wait runs out', async () => {
    const redis = await new RedisServer(await freePort()).start();
    open.push({ close: () => redis.kill() });
    const server = createServer({
      tools: [
        {
          name: 'slow',
          description: 'Runs until its caller gives up',
          inputSchema: { type: 'object' },
          longRunning: { estimatedMs: 60_000 },
          handler: (_args: unknown, ctx: { signal: AbortSignal }) =>
            new Promise((_resolve, reject) =>
              ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason)),
            ),
        },
      ],
      promiseStore: new WatchedStore({ url: redis.url, prefix: 'redis-down-redeem:' }),
    });
    const running: RunningServer = await serve(server, { port: 0 });
    open.push({ close: () => running.close(0) }, server);
    const rpc = `${running.url}/mcp-lite/v1/rpc`;
    const call = async (name: string, args: Record<string, unknown>) => {
      const res = await fetch(rpc, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: { name, arguments: args },
        }),
      });
      return (await res.json()) as { result?: any; error?: { code: number; message: string; data?: any } };
    };

    const first = await call('slow', {});
    expect(first.result?._meta?.response_type, JSON.stringify(first)).toBe('promise');
    const token: string = first.result._meta.promise_token;
    // The redeem waits (wait_ms) for the promise, which lives in the Redis store.
    const waiting = latch();
    waitStarted = waiting.resolve;
    const redeeming = call('redeem', { promise: token, wait_ms: 15_000 });
    await waiting.promise;
    const killed = Date.now();
    await redis.kill();
    const settled = await redeeming;
    const tookMs = Date.now() - killed;
    expect(settled.error, JSON.stringify(settled)).toMatchObject({
      code: -32603,
      message: expect.stringContaining('The state store (Redis) is unavailable'),
      data: { reason: 'unavailable' },
    });
    // Long before the 15 s wait would have run out (what it did before), with room for a loaded machine.
    expect(tookMs).toBeLessThan(5000);
  }, 120_000);
});
