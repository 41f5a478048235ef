/**
 * Shared setup of the draft-dialect tests (`test/draft-dialect*.test.ts`): the draft's example messages, its example
 * server, and the raw Streamable HTTP client and transcript used by the one-server and two-replica parts.
 */
import { afterAll, beforeAll, expect } from 'vitest';
import { reportProgress } from '../../src/core/notices.js';
import { createServer, type Middleware, type ToolDefinition, type ToolServer } from '../../src/index.js';
import { type RunningServer, serve } from '../../src/node.js';

// The draft's examples, verbatim (sections 3.1, 3.1 step 3, 4.1, 5.1, 7, 8.1, 8.2).
/** The draft's `initialize` (section 3.1). */
export const INITIALIZE = {
  jsonrpc: '2.0',
  method: 'initialize',
  params: {
    mcpVersion: '2025-06-18',
    clientCapabilities: { supportsProgress: true, supportsCancellation: true },
  },
  id: 1,
};
/** The answer to the draft's `initialize` from `makeServer()` (section 3.1). */
export const INITIALIZE_RESULT = {
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
};
/** The draft's `initialized` notification (section 3.1 step 3). */
export const INITIALIZED = { jsonrpc: '2.0', method: 'initialized', params: {} };
/** The draft's `tools/list` (section 4.1). */
export const TOOLS_LIST = { jsonrpc: '2.0', method: 'tools/list', id: 2 };
/** The draft's `tools/invoke` of get_weather for Phoenix (section 5.1). */
export const INVOKE = {
  jsonrpc: '2.0',
  method: 'tools/invoke',
  params: { name: 'get_weather', arguments: { city: 'Phoenix' } },
  id: 10,
};
/** The draft's `cancel` of request 10 (section 7). */
export const CANCEL = { jsonrpc: '2.0', method: 'cancel', params: { id: 10 } };
/** The draft's `shutdown` (section 8.1). */
export const SHUTDOWN = { jsonrpc: '2.0', method: 'shutdown', id: 50 };
/** The draft's `exit` notification (section 8.2). */
export const EXIT = { jsonrpc: '2.0', method: 'exit' };
/** The input schema of get_weather. */
export const WEATHER_SCHEMA = {
  type: 'object',
  properties: { city: { type: 'string' } },
  required: ['city'],
};

/** The cities whose slow get_weather call was aborted (tests reset it before use). */
export const aborted: string[] = [];

/** The draft's example server: get_weather, which for 'Slow' reports progress and runs until aborted. */
export function makeServer(options: { middleware?: Middleware[] } = {}): ToolServer {
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
  return createServer({
    tools,
    name: 'example-server',
    version: '1.0.0',
    promiseStore: false,
    ...(options.middleware ? { middleware: options.middleware } : {}),
  });
}

const ACCEPT = 'application/json, text/event-stream';

/**
 * Serves `makeServer()` on a free port for the calling file's tests (started before them, closed after); the
 * returned object is filled in when they start.
 */
export function useDraftServer(): { server: ToolServer; running: RunningServer } {
  const live = {} as { server: ToolServer; running: RunningServer };
  beforeAll(async () => {
    live.server = makeServer();
    live.running = await serve(live.server, { port: 0 });
  });
  afterAll(() => live.running.close(1000));
  return live;
}

/** POSTs one message to `/mcp`, in `session` if given (a draft client sends no MCP-Protocol-Version). */
export function post(base: string, body: unknown, session?: string): Promise<Response> {
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
export async function answer(base: string, body: unknown, session: string): Promise<any> {
  const res = await post(base, body, session);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toContain('application/json');
  return res.json();
}

/** Reads the messages of an SSE response as they come (comments skipped). */
export class Events {
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
export async function httpTranscript(
  a: { url: string; server: ToolServer },
  b: { url: string },
): Promise<string> {
  const init = await post(a.url, INITIALIZE);
  expect(init.status).toBe(200);
  const session = init.headers.get('mcp-session-id')!;
  expect(session).toMatch(/^[\x21-\x7e]+$/);
  expect(await init.json()).toEqual(INITIALIZE_RESULT);
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
