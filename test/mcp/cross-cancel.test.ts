/**
 * `notifications/cancelled` reaches a session's request on whichever replica runs it: two `serve()` replicas on one
 * Redis (`RedisSessionStore`, same prefix), a slow tool called on A in a session, the cancel POSTed to B. The
 * handler on A sees its signal abort and the call is answered "cancelled"; a cancel naming another session's
 * request, or sent by someone without the session, aborts nothing (the right cancel after them is the one the
 * handler sees). The tests wait on the handler starting, never on a pause. Needs Redis at REDIS_URL (skipped, with a
 * warning, without one).
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer } from '../../src/index.js';
import { type RunningServer, serve } from '../../src/node.js';
import { RedisSessionStore } from '../../src/stores/redis/session-store.js';
import { deletePrefix } from '../support/scale-cluster.js';

const REDIS_URL = process.env.REDIS_URL;
if (!REDIS_URL) console.warn('SKIPPED test/mcp/cross-cancel.test.ts: REDIS_URL is not set');
const REVISION = '2025-06-18';
const prefix = `mcplite-test-cross-cancel:${randomUUID()}:`;

/** What the slow tool saw, by the `tag` argument: whether its signal aborted, and why. */
const seen = new Map<string, string>();
/** The tags of the slow calls that have started. */
const started = new Set<string>();

function makeServer() {
  return createServer({
    secret: 'cross-cancel-test-secret-0123456789',
    promiseStore: false,
    tools: [
      {
        name: 'slow',
        description: 'Waits until its signal aborts, or 10 s',
        inputSchema: { type: 'object', properties: { tag: { type: 'string' } } },
        handler: (args, ctx) =>
          new Promise((resolve, reject) => {
            const tag = String(args.tag);
            started.add(tag);
            const timer = setTimeout(() => {
              seen.set(tag, 'ran to the end');
              resolve('done');
            }, 10_000);
            ctx.signal.addEventListener('abort', () => {
              clearTimeout(timer);
              seen.set(tag, `aborted: ${String((ctx.signal.reason as Error)?.message)}`);
              reject(ctx.signal.reason);
            });
          }),
      },
    ],
  });
}

describe.skipIf(!REDIS_URL)('notifications/cancelled across replicas', () => {
  const replicas: Array<{ running: RunningServer; store: RedisSessionStore }> = [];
  let nextId = 1;

  beforeAll(async () => {
    for (let i = 0; i < 2; i++) {
      const store = new RedisSessionStore({ url: REDIS_URL!, prefix });
      replicas.push({ running: await serve(makeServer(), { port: 0, sessionStore: store }), store });
    }
  });

  afterAll(async () => {
    for (const r of replicas) {
      await r.running.close(200);
      await r.store.close();
    }
    await deletePrefix(REDIS_URL!, prefix);
  });

  const url = (i: number) => `${replicas[i]!.running.url}/mcp`;

  function post(i: number, body: unknown, session?: string): Promise<Response> {
    return fetch(url(i), {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...(session ? { 'mcp-session-id': session, 'mcp-protocol-version': REVISION } : {}),
      },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(15_000),
    });
  }

  async function openSession(i: number): Promise<string> {
    const res = await post(i, {
      jsonrpc: '2.0',
      id: nextId++,
      method: 'initialize',
      params: { protocolVersion: REVISION, capabilities: {}, clientInfo: { name: 'cross', version: '1' } },
    });
    expect(res.status).toBe(200);
    await res.text();
    const session = res.headers.get('mcp-session-id')!;
    await (await post(i, { jsonrpc: '2.0', method: 'notifications/initialized' }, session)).text();
    return session;
  }

  /** Starts `slow` on replica `i`; resolves with the JSON-RPC message that answers it (JSON or the SSE stream's last). */
  function callSlow(i: number, session: string, id: number, tag: string): Promise<any> {
    const body = { jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'slow', arguments: { tag } } };
    return post(i, body, session).then(async (res) => {
      const text = await res.text();
      if (!(res.headers.get('content-type') ?? '').includes('text/event-stream')) return JSON.parse(text);
      const data = text.split('\n').filter((l) => l.startsWith('data: '));
      return JSON.parse(data[data.length - 1]!.slice(6));
    });
  }

  async function cancelOn(
    i: number,
    session: string | undefined,
    requestId: number,
    reason = 'user pressed stop',
  ) {
    const res = await post(
      i,
      {
        jsonrpc: '2.0',
        method: 'notifications/cancelled',
        params: { requestId, reason },
      },
      session,
    );
    await res.text();
    return res.status;
  }

  it('aborts the handler on the replica running the request when the cancel lands on another', async () => {
    const session = await openSession(0);
    const id = nextId++;
    const answer = callSlow(0, session, id, 'cross');
    await expect.poll(() => started.has('cross'), { timeout: 10_000 }).toBe(true);
    expect(seen.has('cross')).toBe(false);
    expect(await cancelOn(1, session, id)).toBe(202);
    const message = await answer;
    expect(seen.get('cross')).toBe('aborted: Cancelled: user pressed stop');
    // MCP: a cancelled request need not be answered; this server answers it as cancelled.
    expect(message.error ?? message.result, JSON.stringify(message)).toBeDefined();
    expect(JSON.stringify(message)).toMatch(/ancel/);
  }, 120_000);

  it('aborts nothing for a cancel of another session, nor for one sent without the session', async () => {
    const running = await openSession(0);
    const other = await openSession(1);
    const id = nextId++;
    const answer = callSlow(0, running, id, 'kept');
    await expect.poll(() => started.has('kept'), { timeout: 10_000 }).toBe(true);
    // The same request id, but in another session: not this request.
    expect(await cancelOn(1, other, id, 'wrong session')).toBe(202);
    // Without a session id the notification names no session at all.
    const bare = await cancelOn(1, undefined, id, 'no session');
    expect([202, 400]).toContain(bare);
    expect(seen.has('kept')).toBe(false);
    // The right session's cancel, from the same replica after the others: the one that aborts (a handler aborts
    // once, so an earlier cancel that had reached it would be the reason it saw).
    expect(await cancelOn(1, running, id, 'right session')).toBe(202);
    await answer;
    expect(seen.get('kept')).toBe('aborted: Cancelled: right session');
  }, 120_000);
});
