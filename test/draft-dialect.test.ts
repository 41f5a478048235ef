/**
 * The draft-seed dialect (`mcp-detailed-draft-spec-2025-06-18.md`) spoken by a raw client through the draft's own
 * example messages, over WebSocket (`/mcp`), stdio and Streamable HTTP (POST /mcp with a session, one server and two
 * replicas sharing a RedisSessionStore): the draft's handshake and shapes, progress, cancel, tools/changed,
 * resources/changed, shutdown and exit.
 */
import { randomBytes } from 'node:crypto';
import { PassThrough } from 'node:stream';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveStdio } from '../src/bindings/mcp/stdio.js';
import { reportProgress } from '../src/core/notices.js';
import {
  createServer,
  type RunningServer,
  serve,
  type ToolDefinition,
  type ToolServer,
} from '../src/index.js';
import { RedisSessionStore } from '../src/stores/redis/session-store.js';
import { connectWs } from './support/ws-client.js';

const REDIS_URL = process.env.REDIS_URL;
if (!REDIS_URL) {
  console.warn(
    'SKIPPED in test/draft-dialect.test.ts: REDIS_URL is not set (e.g. redis://127.0.0.1:6379), so the draft dialect over two replicas sharing a RedisSessionStore is not tested',
  );
}

// The draft's examples, verbatim (sections 3.1, 3.1 step 3, 4.1, 5.1, 7, 8.1, 8.2).
const INITIALIZE = {
  jsonrpc: '2.0',
  method: 'initialize',
  params: {
    mcpVersion: '2025-06-18',
    clientCapabilities: { supportsProgress: true, supportsCancellation: true },
  },
  id: 1,
};
const INITIALIZED = { jsonrpc: '2.0', method: 'initialized', params: {} };
const TOOLS_LIST = { jsonrpc: '2.0', method: 'tools/list', id: 2 };
const INVOKE = {
  jsonrpc: '2.0',
  method: 'tools/invoke',
  params: { name: 'get_weather', arguments: { city: 'Phoenix' } },
  id: 10,
};
const CANCEL = { jsonrpc: '2.0', method: 'cancel', params: { id: 10 } };
const SHUTDOWN = { jsonrpc: '2.0', method: 'shutdown', id: 50 };
const EXIT = { jsonrpc: '2.0', method: 'exit' };
const WEATHER_SCHEMA = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] };

const aborted: string[] = [];

function makeServer(): ToolServer {
  const tools: ToolDefinition[] = [
    {
      name: 'get_weather',
      description: 'Retrieve weather for a city',
      inputSchema: WEATHER_SCHEMA,
      handler: async (args: { city: string }, ctx) => {
        if (args.city === 'Slow') {
          await reportProgress(ctx, 42, { total: 100, message: 'Searching...' });
          await new Promise((_r, reject) => {
            const stop = () => {
              aborted.push(args.city);
              reject(ctx.signal.reason);
            };
            if (ctx.signal.aborted) stop();
            else ctx.signal.addEventListener('abort', stop);
          });
        }
        return { temperature: 89, condition: 'Sunny' };
      },
    },
  ];
  return createServer({ tools, name: 'example-server', version: '1.0.0', promiseStore: false });
}

/** A connection speaking raw JSON-RPC messages. */
interface Conn {
  send(m: unknown): void;
  next(match: (m: any) => boolean): Promise<any>;
  closed: Promise<unknown>;
}

/** Runs the draft's transcript over one connection to `server`. */
async function transcript(server: ToolServer, conn: Conn): Promise<void> {
  conn.send(INITIALIZE);
  expect(await conn.next((m) => m.id === 1)).toEqual({
    jsonrpc: '2.0',
    id: 1,
    result: {
      server: { name: 'example-server', version: '1.0.0' },
      serverCapabilities: {
        supportsToolDiscovery: true,
        supportsResourceDiscovery: false,
        supportsNotifications: true,
        supportsProgress: true,
        supportsCancellation: true,
      },
    },
  });
  conn.send(INITIALIZED);
  conn.send(TOOLS_LIST);
  const listed = await conn.next((m) => m.id === 2);
  expect(listed.result).toEqual([
    expect.objectContaining({
      name: 'get_weather',
      description: 'Retrieve weather for a city',
      inputSchema: WEATHER_SCHEMA,
    }),
  ]);
  conn.send(INVOKE);
  expect(await conn.next((m) => m.id === 10)).toEqual({
    jsonrpc: '2.0',
    id: 10,
    result: { status: 'success', output: { temperature: 89, condition: 'Sunny' } },
  });
  conn.send({ ...INVOKE, id: 11, params: { name: 'get_weather', arguments: {} } });
  expect(await conn.next((m) => m.id === 11)).toEqual({
    jsonrpc: '2.0',
    id: 11,
    error: expect.objectContaining({ code: 4001, message: "Missing required parameter 'city'" }),
  });
  // Progress, then the draft's cancel of the running call.
  conn.send({ ...INVOKE, params: { name: 'get_weather', arguments: { city: 'Slow' } } });
  expect(await conn.next((m) => m.method === 'progress')).toEqual({
    jsonrpc: '2.0',
    method: 'progress',
    params: { id: 10, percent: 42, message: 'Searching...' },
  });
  conn.send(CANCEL);
  expect((await conn.next((m) => m.id === 10)).error).toBeDefined();
  expect(aborted).toContain('Slow');
  // A tool appears and one goes: tools/changed says which.
  server.catalog.add({ name: 'new_tool', description: 'A new feature', handler: () => 1 });
  expect(await conn.next((m) => m.method === 'tools/changed')).toEqual({
    jsonrpc: '2.0',
    method: 'tools/changed',
    params: { added: [{ name: 'new_tool', description: 'A new feature' }], removed: [] },
  });
  server.catalog.remove('new_tool');
  expect((await conn.next((m) => m.method === 'tools/changed')).params).toEqual({
    added: [],
    removed: ['new_tool'],
  });
  server.resources.add({ uri: 'user_files', name: 'user_files', read: () => 'x' });
  expect(await conn.next((m) => m.method === 'resources/changed')).toEqual({
    jsonrpc: '2.0',
    method: 'resources/changed',
    params: { updated: ['user_files'] },
  });
  server.resources.remove('user_files');
  await conn.next((m) => m.method === 'resources/changed');
  conn.send(SHUTDOWN);
  expect(await conn.next((m) => m.id === 50)).toEqual({ jsonrpc: '2.0', result: null, id: 50 });
  conn.send(EXIT);
  await conn.closed;
}

describe('the draft-seed dialect', () => {
  let server: ToolServer;
  let running: RunningServer;
  beforeAll(async () => {
    server = makeServer();
    running = await serve(server, { port: 0 });
  });
  afterAll(() => running.close(1000));

  it('over WebSocket: the draft example messages, answered in the draft shapes; exit closes', async () => {
    aborted.length = 0;
    const c = await connectWs(`${running.url.replace('http', 'ws')}/mcp`, { protocol: 'mcp' });
    await transcript(server, { send: c.send, next: c.next, closed: c.closed });
    expect((await c.closed).code).toBe(1000);
  });

  it('over stdio', async () => {
    aborted.length = 0;
    const stdioServer = makeServer();
    const input = new PassThrough();
    const output = new PassThrough();
    const stdio = serveStdio(stdioServer, { input, output });
    const received: any[] = [];
    const waiters: Array<() => void> = [];
    let buffered = '';
    output.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      for (let i = buffered.indexOf('\n'); i >= 0; i = buffered.indexOf('\n')) {
        received.push(JSON.parse(buffered.slice(0, i)));
        buffered = buffered.slice(i + 1);
        for (const w of waiters.splice(0)) w();
      }
    });
    const next = async (match: (m: any) => boolean) => {
      for (;;) {
        const i = received.findIndex(match);
        if (i >= 0) return received.splice(i, 1)[0];
        await new Promise<void>((r) => waiters.push(r));
      }
    };
    await transcript(stdioServer, {
      send: (m) => input.write(`${JSON.stringify(m)}\n`),
      next,
      closed: stdio.closed,
    });
    await stdioServer.close();
  });
});

const ACCEPT = 'application/json, text/event-stream';

/** POSTs one message to `/mcp`, in `session` if given (a draft client sends no MCP-Protocol-Version). */
function post(base: string, body: unknown, session?: string): Promise<Response> {
  return fetch(`${base}/mcp`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: ACCEPT,
      ...(session ? { 'mcp-session-id': session } : {}),
    },
    body: JSON.stringify(body),
  });
}

/** The JSON answer of a POST. */
async function answer(base: string, body: unknown, session: string): Promise<any> {
  const res = await post(base, body, session);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toContain('application/json');
  return res.json();
}

/** Reads the messages of an SSE response as they come (comments skipped). */
class Events {
  private buffer = '';
  private readonly reader: ReadableStreamDefaultReader<Uint8Array>;
  private readonly decoder = new TextDecoder();

  constructor(res: Response) {
    this.reader = res.body!.getReader();
  }

  /** The next message, within 5 s; throws 'the stream ended' once it ends. */
  async next(): Promise<any> {
    const deadline = Date.now() + 5000;
    for (;;) {
      const end = this.buffer.indexOf('\n\n');
      if (end >= 0) {
        const block = this.buffer.slice(0, end);
        this.buffer = this.buffer.slice(end + 2);
        const data = block.split('\n').find((line) => line.startsWith('data: '));
        if (data) return JSON.parse(data.slice(6));
        continue;
      }
      let timer: NodeJS.Timeout | undefined;
      const chunk = await Promise.race([
        this.reader.read(),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error('no SSE event in time')), deadline - Date.now());
        }),
      ]).finally(() => clearTimeout(timer));
      if (chunk.done) throw new Error('the stream ended');
      this.buffer += this.decoder.decode(chunk.value, { stream: true });
    }
  }

  /** The next message matching `match` (others skipped). */
  async find(match: (m: any) => boolean): Promise<any> {
    for (;;) {
      const m = await this.next();
      if (match(m)) return m;
    }
  }

  /** Resolves once the stream ends (messages before that skipped). */
  async ended(): Promise<void> {
    await expect(
      (async () => {
        for (;;) await this.next();
      })(),
    ).rejects.toThrow('the stream ended');
  }
}

/**
 * The draft's transcript over Streamable HTTP: `initialize` POSTed to `a`, every later message alternating
 * between `a` and `b` (one server: the same), the GET stream on `b` hearing catalog changes made on `a`'s server.
 */
async function httpTranscript(a: { url: string; server: ToolServer }, b: { url: string }): Promise<string> {
  const init = await post(a.url, INITIALIZE);
  expect(init.status).toBe(200);
  const session = init.headers.get('mcp-session-id')!;
  expect(session).toMatch(/^[\x21-\x7e]+$/);
  expect(await init.json()).toEqual({
    jsonrpc: '2.0',
    id: 1,
    result: {
      server: { name: 'example-server', version: '1.0.0' },
      serverCapabilities: {
        supportsToolDiscovery: true,
        supportsResourceDiscovery: false,
        supportsNotifications: true,
        supportsProgress: true,
        supportsCancellation: true,
      },
    },
  });
  const initialized = await post(b.url, INITIALIZED, session);
  expect(initialized.status).toBe(202);
  const get = await fetch(`${b.url}/mcp`, {
    headers: { accept: 'text/event-stream', 'mcp-session-id': session },
  });
  expect(get.status).toBe(200);
  const stream = new Events(get);

  const listed = await answer(a.url, TOOLS_LIST, session);
  expect(listed).toEqual({
    jsonrpc: '2.0',
    id: 2,
    result: [
      expect.objectContaining({
        name: 'get_weather',
        description: 'Retrieve weather for a city',
        inputSchema: WEATHER_SCHEMA,
      }),
    ],
  });
  expect(await answer(b.url, INVOKE, session)).toEqual({
    jsonrpc: '2.0',
    id: 10,
    result: { status: 'success', output: { temperature: 89, condition: 'Sunny' } },
  });
  const missing = await answer(
    a.url,
    { ...INVOKE, id: 11, params: { name: 'get_weather', arguments: {} } },
    session,
  );
  expect(missing).toEqual({
    jsonrpc: '2.0',
    id: 11,
    error: expect.objectContaining({ code: 4001, message: "Missing required parameter 'city'" }),
  });
  const unknownTool = await answer(
    b.url,
    { ...INVOKE, id: 12, params: { name: 'nope', arguments: {} } },
    session,
  );
  expect(unknownTool.error.code).toBe(4001);

  // Progress on the request's own SSE stream, then the draft's cancel (POSTed to the replica running the call).
  const slow = await post(
    b.url,
    { ...INVOKE, params: { name: 'get_weather', arguments: { city: 'Slow' } } },
    session,
  );
  expect(slow.headers.get('content-type')).toContain('text/event-stream');
  const call = new Events(slow);
  expect(await call.next()).toEqual({
    jsonrpc: '2.0',
    method: 'progress',
    params: { id: 10, percent: 42, message: 'Searching...' },
  });
  expect((await post(b.url, CANCEL, session)).status).toBe(202);
  const cancelled = await call.next();
  expect(cancelled).toMatchObject({ jsonrpc: '2.0', id: 10, error: { code: expect.any(Number) } });
  expect(cancelled.result).toBeUndefined();
  expect(aborted).toContain('Slow');

  // A tool appears and one goes on `a`: tools/changed on the GET stream (on `b`) says which.
  a.server.catalog.add({ name: 'new_tool', description: 'A new feature', handler: () => 1 });
  expect(await stream.find((m) => m.method === 'tools/changed')).toEqual({
    jsonrpc: '2.0',
    method: 'tools/changed',
    params: { added: [{ name: 'new_tool', description: 'A new feature' }], removed: [] },
  });
  a.server.catalog.remove('new_tool');
  expect((await stream.find((m) => m.method === 'tools/changed')).params).toEqual({
    added: [],
    removed: ['new_tool'],
  });
  a.server.resources.add({ uri: 'user_files', name: 'user_files', read: () => 'x' });
  expect(await stream.find((m) => m.method === 'resources/changed')).toEqual({
    jsonrpc: '2.0',
    method: 'resources/changed',
    params: { updated: ['user_files'] },
  });
  a.server.resources.remove('user_files');
  expect((await stream.find((m) => m.method === 'resources/changed')).params).toEqual({
    updated: ['user_files'],
  });

  expect(await answer(a.url, SHUTDOWN, session)).toEqual({ jsonrpc: '2.0', result: null, id: 50 });
  // exit ends the session: its GET stream ends, and it is unknown on every replica.
  expect((await post(a.url, EXIT, session)).status).toBe(202);
  await stream.ended();
  for (const base of [a.url, b.url]) {
    const after = await post(base, TOOLS_LIST, session);
    expect(after.status).toBe(404);
    await after.text();
  }
  return session;
}

describe('the draft-seed dialect over Streamable HTTP', () => {
  let server: ToolServer;
  let running: RunningServer;
  beforeAll(async () => {
    server = makeServer();
    running = await serve(server, { port: 0 });
  });
  afterAll(() => running.close(1000));

  it('a draft initialize POSTed to /mcp makes a draft session: every message answered in the draft shapes', async () => {
    aborted.length = 0;
    const replica = { url: running.url, server };
    await httpTranscript(replica, replica);
  });

  it('leaves MCP clients of the same endpoint in MCP shapes', async () => {
    const init = await post(running.url, {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'mcp', version: '1' } },
    });
    expect((await init.json()).result).toMatchObject({ protocolVersion: '2025-06-18', serverInfo: {} });
    const session = init.headers.get('mcp-session-id')!;
    const listed = await answer(running.url, { jsonrpc: '2.0', id: 2, method: 'tools/list' }, session);
    expect(listed.result.tools).toEqual([expect.objectContaining({ name: 'get_weather' })]);
    const invoked = await answer(running.url, INVOKE, session);
    expect(invoked.result.structuredContent).toEqual({ temperature: 89, condition: 'Sunny' });
    const missing = await answer(
      running.url,
      { ...INVOKE, params: { name: 'get_weather', arguments: {} } },
      session,
    );
    expect(missing.error.code).toBe(-32602);
  });
});

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
