/**
 * MCP handshake-revision sessions shared between two replicas through Redis (`RedisSessionStore`): two `serve()`
 * instances on different ports, each with its own store over the same Redis and prefix (and the same secret), used
 * by one client over raw HTTP so that each request goes to the replica the test chooses. A session made on A is
 * used on B; an elicitation/create sent on A's stream is answered by a POST on B; a GET stream on B hears a
 * notification produced on A; a Last-Event-ID resume works on B; DELETE on B ends the session on A; the per-caller
 * bound holds across replicas; the legacy HTTP+SSE transport's POST lands on the other replica. Needs a real Redis
 * at REDIS_URL (skipped, with a warning, without one).
 */
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { logToClient } from '../src/core/notices.js';
import { createServer, defineTool, elicit, type RunningServer, serve } from '../src/index.js';
import { RedisPromiseStore } from '../src/stores/redis/promise-store.js';
import { RedisSessionStore } from '../src/stores/redis/session-store.js';

const REDIS_URL = process.env.REDIS_URL;
if (!REDIS_URL) {
  console.warn(
    'SKIPPED test/mcp-shared-sessions.test.ts: REDIS_URL is not set (e.g. redis://127.0.0.1:6379), so sessions shared through Redis are not tested',
  );
}

const SECRET = 'shared-sessions-test-secret-0123456789';
const REVISION = '2025-06-18';
const ACCEPT = 'application/json, text/event-stream';

/** A long-running tool that asks for input: a task on the stateless revision (needs a promise store). */
const ASK_TASK = defineTool({
  name: 'ask_task',
  longRunning: { estimatedMs: 50 },
  handler: (_a, ctx) =>
    ctx.elicitation
      ? `Hello, ${(ctx.elicitation.answers as { name?: string }).name}!`
      : elicit({
          message: 'What is your name?',
          schema: { type: 'object', required: ['name'], properties: { name: { type: 'string' } } },
        }),
});

function makeServer(promiseStore?: RedisPromiseStore) {
  return createServer({
    secret: SECRET,
    promiseStore: promiseStore ?? false,
    tools: [
      { name: 'echo', handler: (args) => args },
      {
        name: 'chatty',
        handler: async (_a, ctx) => {
          await logToClient(ctx, 'debug', 'quiet');
          await logToClient(ctx, 'error', 'loud');
          return 'ok';
        },
      },
      {
        name: 'ask_name',
        handler: (_a, ctx) =>
          ctx.elicitation
            ? `Hello, ${(ctx.elicitation.answers as { name?: string }).name}!`
            : elicit({
                message: 'What is your name?',
                schema: { type: 'object', required: ['name'], properties: { name: { type: 'string' } } },
              }),
      },
      ...(promiseStore ? [ASK_TASK] : []),
    ],
  });
}

interface Replica {
  running: RunningServer;
  server: ReturnType<typeof makeServer>;
  store: RedisSessionStore;
  promises: RedisPromiseStore | undefined;
  url: string;
}

async function replica(
  prefix: string,
  options: Record<string, number> = {},
  withPromises = false,
): Promise<Replica> {
  const store = new RedisSessionStore({ url: REDIS_URL!, prefix, ...options });
  const promises = withPromises
    ? new RedisPromiseStore({ url: REDIS_URL!, prefix: `${prefix}p:` })
    : undefined;
  const server = makeServer(promises);
  const running = await serve(server, { port: 0, sessionStore: store });
  return { running, server, store, promises, url: running.url };
}

async function closeReplica(r: Replica | undefined): Promise<void> {
  if (!r) return;
  await r.running.close(200);
  await r.store.close();
  await r.promises?.close();
}

/** Deletes every key under the run's prefixes. */
async function cleanUp(prefixes: string[]): Promise<void> {
  const redis = new Redis(REDIS_URL!);
  try {
    for (const prefix of prefixes) {
      let cursor = '0';
      do {
        const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500);
        cursor = next;
        if (keys.length > 0) await redis.del(...keys);
      } while (cursor !== '0');
    }
  } finally {
    redis.disconnect();
  }
}

let nextId = 1;

function post(base: string, body: unknown, session?: string, accept = ACCEPT): Promise<Response> {
  return fetch(`${base}/mcp`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept,
      ...(session ? { 'mcp-session-id': session, 'mcp-protocol-version': REVISION } : {}),
    },
    body: JSON.stringify(body),
  });
}

function request(method: string, params: Record<string, unknown> = {}) {
  return { jsonrpc: '2.0', id: nextId++, method, params };
}

async function initialize(base: string, name = 'shared'): Promise<Response> {
  return post(
    base,
    request('initialize', {
      protocolVersion: REVISION,
      capabilities: { elicitation: {} },
      clientInfo: { name, version: '1.0.0' },
    }),
  );
}

async function openSession(base: string): Promise<string> {
  const res = await initialize(base);
  expect(res.status).toBe(200);
  await res.text();
  return res.headers.get('mcp-session-id')!;
}

/** One SSE event: its id and its data parsed. */
interface SseEvent {
  id?: string;
  data: any;
}

/** Reads SSE events off a response as they come. */
class SseReader {
  private buffer = '';
  private readonly reader: ReadableStreamDefaultReader<Uint8Array>;
  private readonly decoder = new TextDecoder();

  constructor(res: Response) {
    this.reader = res.body!.getReader();
  }

  /** The next event with data (comments skipped), within `timeoutMs`. */
  async next(timeoutMs = 5000): Promise<SseEvent> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const end = this.buffer.indexOf('\n\n');
      if (end >= 0) {
        const block = this.buffer.slice(0, end);
        this.buffer = this.buffer.slice(end + 2);
        let id: string | undefined;
        let data: string | undefined;
        for (const line of block.split('\n')) {
          if (line.startsWith('id: ')) id = line.slice(4);
          else if (line.startsWith('data: ')) data = line.slice(6);
        }
        if (data !== undefined) return { id, data: JSON.parse(data) };
        continue;
      }
      const left = deadline - Date.now();
      if (left <= 0) throw new Error('no SSE event in time');
      let timer: NodeJS.Timeout | undefined;
      const chunk = await Promise.race([
        this.reader.read(),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error('no SSE event in time')), left);
        }),
      ]).finally(() => clearTimeout(timer));
      if (chunk.done) throw new Error('the stream ended');
      this.buffer += this.decoder.decode(chunk.value, { stream: true });
    }
  }

  /** Resolves true once the stream ends (events before that are skipped). */
  async ended(timeoutMs = 5000): Promise<boolean> {
    try {
      for (;;) await this.next(timeoutMs);
    } catch (err) {
      return (err as Error).message === 'the stream ended';
    }
  }

  cancel(): void {
    this.reader.cancel().catch(() => {});
  }
}

function getStream(base: string, session: string, lastEventId?: string): Promise<Response> {
  return fetch(`${base}/mcp`, {
    headers: {
      accept: 'text/event-stream',
      'mcp-session-id': session,
      'mcp-protocol-version': REVISION,
      ...(lastEventId ? { 'last-event-id': lastEventId } : {}),
    },
  });
}

/** A request of the stateless revision (2026-07-28) that declares elicitation and the tasks extension. */
async function stateless(base: string, method: string, params: Record<string, unknown>): Promise<any> {
  const name = method.startsWith('tasks/') ? params.taskId : params.name;
  const res = await fetch(`${base}/mcp`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: ACCEPT,
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': method,
      ...(typeof name === 'string' ? { 'mcp-name': name } : {}),
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: nextId++,
      method,
      params: {
        ...params,
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientCapabilities': {
            elicitation: {},
            extensions: { 'io.modelcontextprotocol/tasks': {} },
          },
        },
      },
    }),
  });
  return res.json();
}

/** Polls tasks/get on a replica until the task has `status`. */
async function taskStatus(base: string, taskId: string, status: string): Promise<any> {
  for (let i = 0; i < 150; i++) {
    const task = (await stateless(base, 'tasks/get', { taskId })).result;
    if (task?.status === status) return task;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`task ${taskId} never reached ${status}`);
}

/** Adds a tool on a replica's server: its list_changed goes to every initialized session of the shared store. */
let added = 0;
function changeTools(r: Replica): void {
  r.server.catalog.add({ name: `added_${++added}`, handler: () => 'x' });
}

describe.skipIf(!REDIS_URL)('MCP sessions shared between replicas through Redis', () => {
  const run = randomBytes(6).toString('hex');
  const prefix = `mcplite-test-${run}:`;
  const boundPrefix = `mcplite-test-${run}-bound:`;
  const taskPrefix = `mcplite-test-${run}-task:`;
  let a: Replica;
  let b: Replica;

  beforeAll(async () => {
    a = await replica(prefix);
    b = await replica(prefix);
  });
  afterAll(async () => {
    await closeReplica(a);
    await closeReplica(b);
    await cleanUp([prefix, boundPrefix, taskPrefix]);
  });

  it('serves a session made on A on B: tools/call, logging/setLevel, then a call on A at that level', async () => {
    const session = await openSession(a.url);
    expect(session).toMatch(/^[\x21-\x7e]+$/);
    const initialized = await post(b.url, { jsonrpc: '2.0', method: 'notifications/initialized' }, session);
    expect(initialized.status).toBe(202);

    const call = await post(b.url, request('tools/call', { name: 'echo', arguments: { x: 1 } }), session);
    expect(call.status).toBe(200);
    expect((await call.json()).result.structuredContent).toEqual({ x: 1 });

    const level = await post(b.url, request('logging/setLevel', { level: 'warning' }), session);
    expect(level.status).toBe(200);
    expect((await level.json()).result).toEqual({});

    // The level set on B is the session's on A: only the error passes it.
    const chatty = await post(a.url, request('tools/call', { name: 'chatty', arguments: {} }), session);
    expect(chatty.headers.get('content-type')).toContain('text/event-stream');
    const sse = new SseReader(chatty);
    const log = await sse.next();
    expect(log.data).toMatchObject({
      method: 'notifications/message',
      params: { level: 'error', data: 'loud' },
    });
    expect((await sse.next()).data.result.content[0].text).toBe('ok');
    sse.cancel();

    // The negotiated revision is the session's on B too.
    const wrong = await fetch(`${b.url}/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: ACCEPT,
        'mcp-session-id': session,
        'mcp-protocol-version': '2025-03-26',
      },
      body: JSON.stringify(request('ping')),
    });
    expect(wrong.status).toBe(400);
    await wrong.text();
  });

  it("answers an elicitation/create sent on A's stream with a POST on B, and the tool completes", async () => {
    const session = await openSession(a.url);
    const call = await post(a.url, request('tools/call', { name: 'ask_name', arguments: {} }), session);
    expect(call.status).toBe(200);
    const sse = new SseReader(call);
    const ask = await sse.next();
    expect(ask.data.method).toBe('elicitation/create');
    expect(ask.data.params.message).toBe('What is your name?');

    const answer = await post(
      b.url,
      { jsonrpc: '2.0', id: ask.data.id, result: { action: 'accept', content: { name: 'Ada' } } },
      session,
    );
    expect(answer.status).toBe(202);
    const result = await sse.next();
    expect(result.data.result.isError).toBeFalsy();
    expect(result.data.result.content[0].text).toContain('Hello, Ada!');
    sse.cancel();
  });

  it('carries a notification produced on A to the GET stream open on B', async () => {
    const session = await openSession(a.url);
    await post(a.url, { jsonrpc: '2.0', method: 'notifications/initialized' }, session);
    const res = await getStream(b.url, session);
    expect(res.status).toBe(200);
    const sse = new SseReader(res);
    changeTools(a);
    const event = await sse.next();
    expect(event.data).toEqual({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' });
    expect(event.id).toBeTruthy();
    sse.cancel();
  });

  it('resumes with Last-Event-ID on B what A recorded', async () => {
    const session = await openSession(a.url);
    await post(a.url, { jsonrpc: '2.0', method: 'notifications/initialized' }, session);
    const first = new SseReader(await getStream(a.url, session));
    changeTools(a);
    const seen = await first.next();
    first.cancel();
    // Sent while no stream is open: kept in the session's log (in Redis) for resumption.
    await new Promise((r) => setTimeout(r, 100));
    changeTools(a);
    changeTools(a);
    await new Promise((r) => setTimeout(r, 200));

    const resumed = new SseReader(await getStream(b.url, session, seen.id));
    const one = await resumed.next();
    const two = await resumed.next();
    expect(one.data.method).toBe('notifications/tools/list_changed');
    expect(two.data.method).toBe('notifications/tools/list_changed');
    expect(one.id).not.toBe(seen.id);
    expect(two.id).not.toBe(one.id);
    // And the stream goes on from there: a notification produced on A after the resume.
    changeTools(a);
    expect((await resumed.next()).data.method).toBe('notifications/tools/list_changed');
    resumed.cancel();
  });

  it("resumes on B a POST stream of A's with Last-Event-ID", async () => {
    const session = await openSession(a.url);
    await post(a.url, request('logging/setLevel', { level: 'warning' }), session);
    const call = await post(a.url, request('tools/call', { name: 'chatty', arguments: {} }), session);
    const sse = new SseReader(call);
    const log = await sse.next();
    expect(log.data.method).toBe('notifications/message');
    expect(log.id).toBeTruthy();
    const result = await sse.next();
    sse.cancel();
    await new Promise((r) => setTimeout(r, 100));
    const resumed = new SseReader(await getStream(b.url, session, log.id));
    const replayed = await resumed.next();
    expect(replayed.id).toBe(result.id);
    expect(replayed.data.result.content[0].text).toBe('ok');
    resumed.cancel();
  });

  it('ends on A a session deleted on B, with its GET stream', async () => {
    const session = await openSession(a.url);
    const stream = new SseReader(await getStream(a.url, session));
    const del = await fetch(`${b.url}/mcp`, { method: 'DELETE', headers: { 'mcp-session-id': session } });
    expect(del.status).toBe(200);
    expect(await stream.ended()).toBe(true);
    const ping = await post(a.url, request('ping'), session);
    expect(ping.status).toBe(404);
    await ping.text();
    const again = await fetch(`${a.url}/mcp`, { method: 'DELETE', headers: { 'mcp-session-id': session } });
    expect(again.status).toBe(404);
  });

  it('keeps the per-caller bound across replicas (429 on either), and frees it on DELETE', async () => {
    const c = await replica(boundPrefix, { maxSessionsPerCaller: 2 });
    const d = await replica(boundPrefix, { maxSessionsPerCaller: 2 });
    try {
      const s1 = await openSession(c.url);
      await openSession(d.url);
      for (const r of [c, d]) {
        const refused = await initialize(r.url);
        expect(refused.status).toBe(429);
        expect((await refused.json()).error.code).toBe(-32004);
      }
      const del = await fetch(`${d.url}/mcp`, { method: 'DELETE', headers: { 'mcp-session-id': s1 } });
      expect(del.status).toBe(200);
      await openSession(c.url);
    } finally {
      await closeReplica(c);
      await closeReplica(d);
    }
  });

  it('resumes on B, with tasks/update, a task made on A that asked for input', async () => {
    const c = await replica(taskPrefix, {}, true);
    const d = await replica(taskPrefix, {}, true);
    try {
      const created = (await stateless(c.url, 'tools/call', { name: 'ask_task', arguments: {} })).result;
      expect(created.resultType).toBe('task');
      const { taskId } = created;
      const waiting = await taskStatus(d.url, taskId, 'input_required');
      const [key] = Object.keys(waiting.inputRequests);
      const ack = await stateless(d.url, 'tasks/update', {
        taskId,
        inputResponses: { [key!]: { action: 'accept', content: { name: 'Ada' } } },
      });
      expect(ack.error).toBeUndefined();
      const done = await taskStatus(c.url, taskId, 'completed');
      expect(done.result.content[0].text).toBe('Hello, Ada!');
    } finally {
      await closeReplica(c);
      await closeReplica(d);
    }
  });

  it("carries a legacy HTTP+SSE client's POST on B to its stream on A", async () => {
    const res = await fetch(`${a.url}/sse`, { headers: { accept: 'text/event-stream' } });
    expect(res.status).toBe(200);
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let text = '';
    while (!text.includes('event: endpoint')) text += decoder.decode((await reader.read()).value);
    const endpoint = /data: (\S+)/.exec(text.slice(text.indexOf('event: endpoint')))![1]!;
    const posted = await fetch(`${b.url}${endpoint}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'ping' }),
    });
    expect(posted.status).toBe(202);
    while (!text.includes('"id":7')) text += decoder.decode((await reader.read()).value);
    expect(text).toContain('"result":{}');
    await reader.cancel();
  });
});

describe('a session store whose Redis is down', () => {
  it('answers the calls that need a session 503 at once, and serves stateless requests', async () => {
    // Nothing listens on port 1: every connection is refused.
    const store = new RedisSessionStore({ url: 'redis://127.0.0.1:1', prefix: 'mcplite-test-down:' });
    const running = await serve(makeServer(), { port: 0, sessionStore: store });
    try {
      const started = Date.now();
      const init = await initialize(running.url);
      expect(init.status).toBe(503);
      const body = await init.json();
      expect(body.error).toMatchObject({ code: -32603, data: { reason: 'unavailable' } });
      expect(body.error.message).toContain('The state store (Redis) is unavailable');
      const named = await post(running.url, request('ping'), 'a-session-id');
      expect(named.status).toBe(503);
      await named.text();
      expect(Date.now() - started).toBeLessThan(3000);

      const stateless = await post(running.url, request('tools/call', { name: 'echo', arguments: { y: 2 } }));
      expect(stateless.status).toBe(200);
      expect((await stateless.json()).result.structuredContent).toEqual({ y: 2 });
    } finally {
      await running.close(200);
      await store.close();
    }
  });
});
