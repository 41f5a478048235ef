/**
 * Issue 28: the gateway scaled out. Two `mcplite proxy --config … --redis` processes share one Redis in front of
 * the same mcplite upstream (MCP-lite HTTP): a call slower than the answer budget made on one replica becomes a
 * promise that the other redeems; a cancel sent to the other replica reaches the upstream call. Needs REDIS_URL.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Client, connect } from '../../src/client/index.js';
import { createServer } from '../../src/create-server.js';
import { type RunningServer, serve } from '../../src/serve.js';
import { type Cli, logLine, run } from '../support/cli-process.js';

const REDIS_URL = process.env.REDIS_URL;
if (!REDIS_URL) {
  console.warn(
    'SKIPPED in test/gateway/replicas.test.ts: REDIS_URL is not set (e.g. redis://127.0.0.1:6379), so the gateway scaled out on Redis is not tested',
  );
}

describe.skipIf(!REDIS_URL)('two gateway replicas sharing Redis', { timeout: 120_000 }, () => {
  const prefix = `mcplite-test-gateway-${randomBytes(6).toString('hex')}:`;
  const dir = mkdtempSync(join(tmpdir(), 'mcplite-gateway-replicas-'));
  const aborted: string[] = [];
  let upstream: RunningServer;
  const replicas: Cli[] = [];
  const bases: string[] = [];
  const clients: Client[] = [];

  beforeAll(async () => {
    upstream = await serve(
      createServer({
        name: 'upstream',
        tools: [
          {
            name: 'slow',
            description: 'Answers after ms milliseconds, or notes that it was cancelled',
            inputSchema: {
              type: 'object',
              properties: { ms: { type: 'integer' }, tag: { type: 'string' } },
              required: ['ms'],
            },
            handler: async ({ ms, tag }: Record<string, unknown>, ctx) => {
              await new Promise<void>((resolve) => {
                const timer = setTimeout(resolve, Number(ms));
                ctx.signal.addEventListener('abort', () => {
                  clearTimeout(timer);
                  aborted.push(String(tag));
                  resolve();
                });
              });
              return `slept ${ms}`;
            },
          },
        ],
      }),
      { port: 0, grpcPort: false },
    );
    const config = join(dir, 'gateway.json');
    writeFileSync(config, JSON.stringify({ mcpServers: { up: { target: `${upstream.url}/mcp-lite/v1/` } } }));
    for (let i = 0; i < 2; i++) {
      const cli = run(
        [
          'proxy',
          '--config',
          config,
          '--port',
          '0',
          '--grpc-port',
          'off',
          '--answer-budget',
          '300',
          '--redis',
          REDIS_URL!,
          '--redis-prefix',
          prefix,
        ],
        { MCPLITE_SECRET: 'replicas-share-this-secret' },
      );
      replicas.push(cli);
      const line = await logLine(cli, (e) => e.msg === 'proxy listening');
      bases.push(String(line.url));
    }
  }, 60_000);

  afterAll(async () => {
    for (const c of clients) await c.close().catch(() => {});
    for (const cli of replicas) {
      if (cli.child.exitCode === null) {
        cli.child.kill('SIGTERM');
        await cli.exited;
      }
    }
    await upstream?.close(200);
    rmSync(dir, { recursive: true, force: true });
    const redis = new Redis(REDIS_URL!);
    try {
      let cursor = '0';
      do {
        const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500);
        cursor = next;
        if (keys.length > 0) await redis.del(...keys);
      } while (cursor !== '0');
    } finally {
      redis.disconnect();
    }
  });

  const open = async (base: string) => {
    const c = await connect(base);
    clients.push(c);
    return c;
  };

  it('a slow upstream call made on replica A is a promise that replica B redeems', async () => {
    const [a, b] = [await open(bases[0]!), await open(bases[1]!)];
    const promise = await a.call('up_slow', { ms: 1500, tag: 'redeemed' }, { redeem: false });
    expect(promise.type).toBe('promise');
    const token = (promise as { token: string }).token;
    const done = await b.redeem(token, { timeout: 20_000 });
    expect(done).toMatchObject({ type: 'answer', value: 'slept 1500' });
    expect(aborted).not.toContain('redeemed');
  });

  it('a cancel sent to replica B reaches the upstream call running behind replica A', async () => {
    const [a, b] = [await open(bases[0]!), await open(bases[1]!)];
    const promise = await a.call('up_slow', { ms: 30_000, tag: 'cancelled' }, { redeem: false });
    expect(promise.type).toBe('promise');
    await b.cancel((promise as { token: string }).token);
    await expect.poll(() => aborted, { timeout: 10_000 }).toContain('cancelled');
  });
});
