/**
 * The transport-neutral MCP engine on its own: given a request and its exchange (the interface both framings
 * implement), what it answers, what it throws, and what it leaves in the session. The framings themselves are
 * covered over real sockets and streams (index/stdio/loop tests).
 */
import { describe, expect, it } from 'vitest';
import { logToClient } from '../../core/notices.js';
import { createServer } from '../../create-server.js';
import type { JsonRpcRequest } from '../common/jsonrpc.js';
import type { Exchange } from './exchange.js';
import { McpEngine } from './methods.js';
import { LATEST_HANDSHAKE_REVISION, STATELESS_REVISION } from './revisions.js';
import { type McpSession, SessionStore } from './sessions.js';
import { taskRegistryFor } from './tasks.js';

const tools = [
  { name: 'echo', handler: (a: Record<string, unknown>) => a },
  { name: 'alpha', handler: () => 'a' },
  { name: 'slow', handler: (_a: unknown, ctx: { signal: AbortSignal }) => waitForAbort(ctx.signal) },
];

/** Reads its signal only after a while: the flight makes its signal on first read, already aborted if need be. */
const late = {
  name: 'late',
  handler: async (_a: unknown, ctx: { signal: AbortSignal }) => {
    await new Promise((r) => setTimeout(r, 20));
    return ctx.signal.aborted ? waitForAbort(ctx.signal) : 'not aborted';
  },
};

function waitForAbort(signal: AbortSignal): Promise<never> {
  return new Promise((_r, reject) => signal.addEventListener('abort', () => reject(signal.reason)));
}

/** An exchange as a framing makes one; `sent` collects the notifications. */
function exchange(init: Partial<Exchange> = {}): Exchange & { sent: Record<string, unknown>[] } {
  const sent: Record<string, unknown>[] = [];
  return {
    revision: '2025-06-18',
    stateless: false,
    clientCapabilities: {},
    logLevel: undefined,
    session: undefined,
    principal: undefined,
    remoteAddress: '127.0.0.1',
    signal: new AbortController().signal,
    canNotify: true,
    notify: async (m) => {
      sent.push(m);
    },
    request: undefined,
    finish: () => {},
    ...init,
    sent,
  };
}

const rq = (
  method: string,
  params: Record<string, unknown> = {},
  id: number | string = 1,
): JsonRpcRequest => ({
  jsonrpc: '2.0',
  id,
  method,
  params,
});

function engine(pageSize = 100) {
  const server = createServer({ tools, promiseStore: false });
  return new McpEngine(server, { pageSize, instructions: 'be nice' });
}

describe('McpEngine', () => {
  it('negotiates initialize: a known handshake revision is echoed, anything else gets the latest', () => {
    const e = engine();
    const known = e.initialize({ protocolVersion: '2025-03-26', capabilities: { roots: {} } });
    expect(known.revision).toBe('2025-03-26');
    expect(known.clientCapabilities).toEqual({ roots: {} });
    expect(known.result).toMatchObject({ protocolVersion: '2025-03-26', instructions: 'be nice' });
    expect(e.initialize({ protocolVersion: '1999-01-01' }).revision).toBe(LATEST_HANDSHAKE_REVISION);
    expect(e.initialize({ protocolVersion: STATELESS_REVISION }).revision).toBe(LATEST_HANDSHAKE_REVISION);
  });

  it('answers a synchronous tools/call synchronously, and throws an unknown tool at once', () => {
    const e = engine();
    const result = e.handle(rq('tools/call', { name: 'echo', arguments: { a: 1 } }), exchange());
    expect(result).not.toBeInstanceOf(Promise);
    expect(result).toMatchObject({ structuredContent: { a: 1 } });
    expect(() => e.handle(rq('tools/call', { name: 'nope' }), exchange())).toThrow(
      expect.objectContaining({ code: 'tool_not_found' }),
    );
  });

  it('pages tools/list with opaque cursors and refuses a made-up one', async () => {
    const e = engine(2);
    const first = await e.handle(rq('tools/list'), exchange());
    expect((first.tools as unknown[]).length).toBe(2);
    const second = await e.handle(rq('tools/list', { cursor: first.nextCursor }), exchange());
    expect((second.tools as Array<{ name: string }>).map((t) => t.name)).toEqual(['slow']);
    expect(second.nextCursor).toBeUndefined();
    await expect(e.handle(rq('tools/list', { cursor: 'bm9wZQ' }), exchange())).rejects.toMatchObject({
      code: 'invalid_params',
    });
  });

  it('adds the stateless result type and caching hints, and refuses what the stateless revision removed', async () => {
    const e = engine();
    const stateless = exchange({ stateless: true, revision: STATELESS_REVISION });
    const list = await e.handle(rq('tools/list'), stateless);
    expect(list).toMatchObject({ resultType: 'complete', ttlMs: 0, cacheScope: 'public' });
    const discover = await e.handle(rq('server/discover'), stateless);
    expect(discover.supportedVersions).toEqual([STATELESS_REVISION]);
    for (const method of ['ping', 'initialize', 'logging/setLevel', 'resources/subscribe']) {
      await expect(e.handle(rq(method), stateless)).rejects.toMatchObject({ code: 'method_not_found' });
    }
    await expect(e.handle(rq('server/discover'), exchange())).rejects.toMatchObject({
      code: 'method_not_found',
    });
  });

  it('keeps the log level and subscriptions in the session, and sends log notices that pass the level', async () => {
    const server = createServer({
      promiseStore: false,
      tools: [
        {
          name: 'chatty',
          handler: async (_a, ctx) => {
            await logToClient(ctx, 'debug', 'quiet');
            await logToClient(ctx, 'error', 'loud');
            return 'ok';
          },
        },
      ],
    });
    const e = new McpEngine(server);
    const session: McpSession = new SessionStore().create('2025-06-18', {}, undefined, 'addr:127.0.0.1');
    await e.handle(rq('logging/setLevel', { level: 'warning' }), exchange({ session }));
    expect(session.logLevel).toBe('warning');
    await expect(
      e.handle(rq('logging/setLevel', { level: 'loud' }), exchange({ session })),
    ).rejects.toMatchObject({
      code: 'invalid_params',
    });
    await e.handle(rq('resources/subscribe', { uri: 'test://a' }), exchange({ session }));
    expect(session.subscriptions.has('test://a')).toBe(true);
    const x = exchange({ session, logLevel: session.logLevel });
    await e.handle(rq('tools/call', { name: 'chatty' }), x);
    expect(x.sent).toEqual([
      { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'error', data: 'loud' } },
    ]);
  });

  it("cancels a session's request on notifications/cancelled, but not another session's", async () => {
    const e = engine();
    const store = new SessionStore();
    const mine = store.create('2025-06-18', {}, undefined, 'addr:127.0.0.1');
    const theirs = store.create('2025-06-18', {}, undefined, 'addr:127.0.0.1');
    const running = e.handle(rq('tools/call', { name: 'slow' }, 'r1'), exchange({ session: mine }));
    e.notification(rq('notifications/cancelled', { requestId: 'r1' }), {
      session: theirs,
      principal: undefined,
    });
    await new Promise((r) => setTimeout(r, 20));
    e.notification(rq('notifications/cancelled', { requestId: 'r1', reason: 'user' }), {
      session: mine,
      principal: undefined,
    });
    await expect(running).rejects.toMatchObject({ code: 'cancelled', message: 'Cancelled: user' });
  });

  it('cancels a request that reads its signal only after the cancel, or after its connection closed', async () => {
    const e = new McpEngine(createServer({ tools: [late], promiseStore: false }), {});
    const session = new SessionStore().create('2025-06-18', {}, undefined, 'addr:127.0.0.1');
    const cancelled = e.handle(rq('tools/call', { name: 'late' }, 'r1'), exchange({ session }));
    e.notification(rq('notifications/cancelled', { requestId: 'r1', reason: 'user' }), {
      session,
      principal: undefined,
    });
    await expect(cancelled).rejects.toMatchObject({ code: 'cancelled', message: 'Cancelled: user' });

    const connection = new AbortController();
    const closed = e.handle(
      rq('tools/call', { name: 'late' }, 'r2'),
      exchange({ session, signal: connection.signal }),
    );
    connection.abort(new Error('gone'));
    await expect(closed).rejects.toMatchObject({ code: 'internal' });

    const untouched = e.handle(rq('tools/call', { name: 'late' }, 'r3'), exchange({ session }));
    await expect(untouched).resolves.toMatchObject({ content: [{ type: 'text', text: 'not aborted' }] });
  });

  it('declares the tasks extension on the stateless revision only, and only with promises', () => {
    const withPromises = createServer({ tools });
    const e = new McpEngine(withPromises, {}, taskRegistryFor(withPromises));
    // MCP Apps is declared on every revision, beside it.
    const apps = { 'io.modelcontextprotocol/ui': { mimeTypes: ['text/html;profile=mcp-app'] } };
    expect(e.capabilities(true).extensions).toEqual({ 'io.modelcontextprotocol/tasks': {}, ...apps });
    expect(e.capabilities(false).extensions).toEqual(apps);
    expect(engine().capabilities(true).extensions).toEqual(apps);
  });
});
