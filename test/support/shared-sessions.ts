/**
 * Harness for the tests of MCP sessions shared between replicas through Redis (test/mcp-shared-sessions-*.test.ts):
 * replicas (`serve()` with a `RedisSessionStore`, the same secret), raw HTTP requests of the handshake revision and
 * of the stateless one, and an SSE reader. Every replica uses REDIS_URL; the test files skip without it.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { logToClient } from '../../src/core/notices.js';
import { createServer, defineTool, elicit, type ToolHandler } from '../../src/index.js';
import { type RunningServer, serve } from '../../src/node.js';
import { RedisPromiseStore } from '../../src/stores/redis/promise-store.js';
import { RedisSessionStore } from '../../src/stores/redis/session-store.js';
import { deletePrefix } from './scale-cluster.js';

export const REDIS_URL = process.env.REDIS_URL;
const SECRET = 'shared-sessions-test-secret-0123456789';
const REVISION = '2025-06-18';
export const ACCEPT = 'application/json, text/event-stream';

/** Asks for a name, then greets it. */
const askName: ToolHandler = (_a, ctx) =>
  ctx.elicitation
    ? `Hello, ${(ctx.elicitation.answers as { name?: string }).name}!`
    : elicit({
        message: 'What is your name?',
        schema: { type: 'object', required: ['name'], properties: { name: { type: 'string' } } },
      });

/** A long-running tool that asks for input: a task on the stateless revision (needs a promise store). */
const ASK_TASK = defineTool({ name: 'ask_task', longRunning: { estimatedMs: 50 }, handler: askName });

export function makeServer(promiseStore?: RedisPromiseStore) {
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
      { name: 'ask_name', handler: askName },
      ...(promiseStore ? [ASK_TASK] : []),
    ],
  });
}

export interface Replica {
  running: RunningServer;
  server: ReturnType<typeof makeServer>;
  store: RedisSessionStore;
  promises: RedisPromiseStore | undefined;
  url: string;
}

/** A replica over `prefix` (store `options`, a promise store with `withPromises`), reaching Redis at `redisUrl`. */
export async function replica(
  prefix: string,
  options: Record<string, number> = {},
  withPromises = false,
  redisUrl = REDIS_URL!,
): Promise<Replica> {
  const store = new RedisSessionStore({ url: redisUrl, prefix, ...options });
  const promises = withPromises
    ? new RedisPromiseStore({ url: REDIS_URL!, prefix: `${prefix}p:` })
    : undefined;
  const server = makeServer(promises);
  const running = await serve(server, { port: 0, sessionStore: store });
  return { running, server, store, promises, url: running.url };
}

export async function closeReplica(r: Replica | undefined): Promise<void> {
  if (!r) return;
  await r.running.close(200);
  await r.store.close();
  await r.promises?.close();
}

/** Replicas A and B of one suite, and the other prefixes of its run. */
export interface ReplicaPair {
  a: Replica;
  b: Replica;
  prefixOf(name: string): string;
}

/**
 * For the suite it is called in: replicas A and B over the prefix `mcplite-test-<run>-<label>:` (a fresh run id per
 * call, so that test files running in parallel share no keys), started before its tests and closed after them.
 * `prefixOf(name)` gives another prefix of the run (for replicas a test starts itself); the keys under every
 * prefix of the run are deleted at the end. `a` and `b` are filled in when the suite starts.
 */
function replicaPair(label: string): ReplicaPair {
  const run = randomBytes(6).toString('hex');
  const prefixes: string[] = [];
  const prefixOf = (name: string) => {
    const prefix = `mcplite-test-${run}-${name}:`;
    prefixes.push(prefix);
    return prefix;
  };
  const prefix = prefixOf(label);
  const a = {} as Replica;
  const b = {} as Replica;
  beforeAll(async () => {
    Object.assign(a, await replica(prefix));
    Object.assign(b, await replica(prefix));
  });
  afterAll(async () => {
    for (const r of [a, b]) await closeReplica(r.running ? r : undefined);
    for (const p of prefixes) await deletePrefix(REDIS_URL!, p);
  });
  return { a, b, prefixOf };
}

/**
 * The suite "MCP sessions shared between replicas through Redis" of `file`, with its own replicas and prefix
 * (`label`): skipped without REDIS_URL, saying so on the console.
 */
export function describeShared(file: string, label: string, tests: (pair: ReplicaPair) => void): void {
  if (!REDIS_URL) {
    console.warn(
      `SKIPPED ${file}: REDIS_URL is not set (e.g. redis://127.0.0.1:6379), so sessions shared through Redis are not tested`,
    );
  }
  describe.skipIf(!REDIS_URL)('MCP sessions shared between replicas through Redis', () =>
    tests(replicaPair(label)),
  );
}

let nextId = 1;

/** POSTs a JSON-RPC message to a replica's /mcp, in the session when one is given, with any other `headers`. */
export function post(
  base: string,
  body: unknown,
  session?: string,
  accept = ACCEPT,
  headers: Record<string, string> = {},
): Promise<Response> {
  return fetch(`${base}/mcp`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept,
      ...(session ? { 'mcp-session-id': session, 'mcp-protocol-version': REVISION } : {}),
      ...headers,
    },
    body: JSON.stringify(body),
  });
}

export function request(method: string, params: Record<string, unknown> = {}) {
  return { jsonrpc: '2.0', id: nextId++, method, params };
}

export async function initialize(base: string, name = 'shared'): Promise<Response> {
  return post(
    base,
    request('initialize', {
      protocolVersion: REVISION,
      capabilities: { elicitation: {} },
      clientInfo: { name, version: '1.0.0' },
    }),
  );
}

export async function openSession(base: string): Promise<string> {
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
export class SseReader {
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

export function getStream(base: string, session: string, lastEventId?: string): Promise<Response> {
  return fetch(`${base}/mcp`, {
    headers: {
      accept: 'text/event-stream',
      'mcp-session-id': session,
      'mcp-protocol-version': REVISION,
      ...(lastEventId ? { 'last-event-id': lastEventId } : {}),
    },
  });
}

/** The `_meta` of a stateless request: the revision, and a client that declares elicitation and tasks. */
const STATELESS_META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {
    elicitation: {},
    extensions: { 'io.modelcontextprotocol/tasks': {} },
  },
};

/** A request of the stateless revision (2026-07-28) that declares elicitation and the tasks extension. */
export async function stateless(base: string, method: string, params: Record<string, unknown>): Promise<any> {
  const name = method.startsWith('tasks/') ? params.taskId : params.name;
  const headers = {
    'mcp-protocol-version': '2026-07-28',
    'mcp-method': method,
    ...(typeof name === 'string' ? { 'mcp-name': name } : {}),
  };
  const message = { jsonrpc: '2.0', id: nextId++, method, params: { ...params, _meta: STATELESS_META } };
  return (await post(base, message, undefined, ACCEPT, headers)).json();
}

/** Polls tasks/get on a replica until the task has `status`. */
export async function taskStatus(base: string, taskId: string, status: string): Promise<any> {
  for (let i = 0; i < 150; i++) {
    const task = (await stateless(base, 'tasks/get', { taskId })).result;
    if (task?.status === status) return task;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`task ${taskId} never reached ${status}`);
}

/** Adds a tool on a replica's server: its list_changed goes to every initialized session of the shared store. */
let added = 0;
export function changeTools(r: Replica): void {
  r.server.catalog.add({ name: `added_${++added}`, handler: () => 'x' });
}
