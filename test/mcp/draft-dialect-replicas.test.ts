/**
 * The draft-seed dialect (`mcp-detailed-draft-spec-2025-06-18.md`) over Streamable HTTP on two replicas sharing a
 * RedisSessionStore: a draft session made on one replica is served in the draft shapes on the other, and its
 * record keeps the dialect. Needs REDIS_URL.
 */
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ToolServer } from '../../src/index.js';
import { type RunningServer, serve } from '../../src/node.js';
import { RedisSessionStore } from '../../src/stores/redis/session-store.js';
import { aborted, EXIT, httpTranscript, INITIALIZE, makeServer, post } from '../support/draft-dialect.js';

const REDIS_URL = process.env.REDIS_URL;
if (!REDIS_URL) {
  console.warn(
    'SKIPPED in test/mcp/draft-dialect-replicas.test.ts: REDIS_URL is not set (e.g. redis://127.0.0.1:6379), so the draft dialect over two replicas sharing a RedisSessionStore is not tested',
  );
}

describe.skipIf(!REDIS_URL)('the draft-seed dialect over two replicas sharing a RedisSessionStore', () => {
  const prefix = `mcplite-test-draft-${randomBytes(6).toString('hex')}:`;
  const replicas: Array<{
    url: string;
    server: ToolServer;
    store: RedisSessionStore;
    running: RunningServer;
  }> = [];

  beforeAll(async () => {
    for (let i = 0; i < 2; i++) {
      const store = new RedisSessionStore({ url: REDIS_URL!, prefix });
      const server = makeServer();
      const running = await serve(server, { port: 0, sessionStore: store });
      replicas.push({ url: running.url, server, store, running });
    }
  });
  afterAll(async () => {
    for (const r of replicas) {
      await r.running.close(200);
      await r.store.close();
    }
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

  it('a draft session made on A is served in the draft shapes on B; its record keeps the dialect', async () => {
    aborted.length = 0;
    const [a, b] = replicas as [(typeof replicas)[0], (typeof replicas)[0]];
    // The record says draft-seed, read back from Redis by the other replica's store.
    const init = await post(a.url, { ...INITIALIZE, id: 99 });
    const session = init.headers.get('mcp-session-id')!;
    await init.text();
    expect(await b.store.peek(session)).toMatchObject({ dialect: 'draft-seed', revision: '2025-06-18' });
    expect((await post(b.url, EXIT, session)).status).toBe(202);
    expect(await a.store.peek(session)).toBeUndefined();

    const transcribed = await httpTranscript(a, b);
    expect(await a.store.peek(transcribed)).toBeUndefined();
  });
});
