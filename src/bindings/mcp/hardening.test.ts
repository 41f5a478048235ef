/**
 * The attacks of issue 9 on the MCP binding over Streamable HTTP, kept as tests on a real socket (at smaller sizes
 * than the original attacks where the behaviour is the same): huge clientInfo and capabilities on `initialize`,
 * session and task floods that must not evict anyone's live state, ownership with bearer auth, task origins kept
 * forever, an unknown method echoed in full, and the elicitation fallback for clients that cannot be asked.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearerAuth, createServer, defineTool, elicit, type RunningServer, serve } from '../../index.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** Heap in use after a full collection, in MiB. */
function heapMiB(): number {
  gc();
  gc();
  return process.memoryUsage().heapUsed / 1048576;
}

const TASKS = 'io.modelcontextprotocol/tasks';
const MiB = 'x'.repeat(1024 * 1024);
const HALF = MiB.slice(0, 512 * 1024);

const tools = [
  defineTool({ name: 'echo', handler: (a) => a }),
  defineTool({
    name: 'slow_task',
    longRunning: { estimatedMs: 5000 },
    handler: async (_a, ctx) => {
      await new Promise((r) => setTimeout(r, 5000));
      return ctx.signal.aborted ? 'aborted' : 'done';
    },
  }),
  defineTool({
    name: 'quick_task',
    longRunning: { estimatedMs: 10 },
    handler: () => 'done',
  }),
  defineTool({
    name: 'greet',
    handler: (args: { name?: string }, ctx) => {
      const who = args.name ?? (ctx.elicitation?.answers as { name?: string } | undefined)?.name;
      if (!who) {
        return elicit({
          message: 'Whom should I greet?',
          schema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
        });
      }
      return `Hello, ${who}!`;
    },
  }),
];

/** A server with small bounds, bearer tokens a, b, c (principals bearer-0, -1, -2) unless `auth` is false. */
async function start(
  mcp: Record<string, unknown>,
  server: Record<string, unknown> = {},
  auth = true,
): Promise<{ running: RunningServer; url: string }> {
  const running = await serve(
    createServer({ tools, ...(auth ? { authenticate: bearerAuth(['a', 'b', 'c']) } : {}), ...server }),
    { port: 0, mcp, maxBodyBytes: 8 * 1024 * 1024 },
  );
  return { running, url: `${running.url}/mcp` };
}

interface Reply {
  status: number;
  session: string | null;
  json: any;
}

let nextId = 1;

/** POSTs one message; `token` sends a bearer token, `session` an Mcp-Session-Id (with its revision). */
async function post(
  url: string,
  message: Record<string, unknown>,
  opts: { token?: string; session?: string; headers?: Record<string, string> } = {},
): Promise<Reply> {
  const res = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...(opts.token ? { authorization: `Bearer ${opts.token}` } : {}),
      ...(opts.session ? { 'mcp-session-id': opts.session, 'mcp-protocol-version': '2025-06-18' } : {}),
      ...opts.headers,
    },
    body: JSON.stringify({ jsonrpc: '2.0', ...message }),
  });
  const text = await res.text();
  return {
    status: res.status,
    session: res.headers.get('mcp-session-id'),
    json: text ? JSON.parse(text) : {},
  };
}

function initialize(url: string, token?: string, params: Record<string, unknown> = {}): Promise<Reply> {
  return post(
    url,
    {
      id: nextId++,
      method: 'initialize',
      params: {
        protocolVersion: '2025-06-18',
        capabilities: {},
        clientInfo: { name: 't', version: '1' },
        ...params,
      },
    },
    { token },
  );
}

function ping(url: string, session: string, token?: string): Promise<Reply> {
  return post(url, { id: nextId++, method: 'ping' }, { token, session });
}

/** A stateless (2026-07-28) request with its routing headers; `tasks` declares the tasks extension. */
function stateless(
  url: string,
  method: string,
  params: Record<string, unknown>,
  opts: { token?: string; tasks?: boolean; elicitation?: boolean } = {},
): Promise<Reply> {
  const name = method.startsWith('tasks/') ? params.taskId : params.name;
  const caps = {
    ...(opts.tasks ? { extensions: { [TASKS]: {} } } : {}),
    ...(opts.elicitation ? { elicitation: {} } : {}),
  };
  return post(
    url,
    {
      id: nextId++,
      method,
      params: {
        ...params,
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientCapabilities': caps,
        },
      },
    },
    {
      token: opts.token,
      headers: {
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': method,
        ...(typeof name === 'string' ? { 'mcp-name': name } : {}),
      },
    },
  );
}

describe('sessions keep bounded copies of what the client declared', () => {
  let running: RunningServer;
  let url: string;
  beforeAll(async () => {
    ({ running, url } = await start({ maxSessionsPerCaller: 1000 }, {}, false));
  });
  afterAll(() => running.close(1000));

  it('does not keep a huge clientInfo.name nor huge capabilities per session', async () => {
    await initialize(url); // warm up the path, so that the first session's code is not counted
    const before = heapMiB();
    for (let i = 0; i < 12; i++) {
      const r = await initialize(url, undefined, {
        clientInfo: { name: HALF, version: HALF, extra: HALF },
        capabilities: { elicitation: {}, experimental: { blob: HALF, list: [HALF, HALF] } },
      });
      expect(r.status).toBe(200);
    }
    // Kept whole, 12 sessions hold 12 × 3 MiB; bounded, a few KiB each.
    expect(heapMiB() - before).toBeLessThan(8);
  });

  it('still serves a session whose clientInfo was cut short', async () => {
    const r = await initialize(url, undefined, { clientInfo: { name: MiB, version: 1 } });
    expect(r.status).toBe(200);
    expect((await ping(url, r.session!)).json.result).toEqual({});
  });
});

describe('session bounds: the caller who reaches one gets -32004 / 429, and no live session is evicted', () => {
  let running: RunningServer;
  let url: string;
  beforeAll(async () => {
    ({ running, url } = await start({ maxSessionsPerCaller: 3, maxSessions: 5, maxSubscriptions: 2 }));
  });
  afterAll(() => running.close(1000));

  it('refuses a caller past its own bound, keeps its sessions, and takes one again after a DELETE', async () => {
    const sessions: string[] = [];
    for (let i = 0; i < 3; i++) sessions.push((await initialize(url, 'a')).session!);
    const refused = await initialize(url, 'a');
    expect(refused.status).toBe(429);
    expect(refused.json.error.code).toBe(-32004);
    expect(refused.json.error.message).toMatch(/Too many sessions/);
    expect(refused.session).toBeNull();
    for (const s of sessions) expect((await ping(url, s, 'a')).status).toBe(200);
    const del = await fetch(url, {
      method: 'DELETE',
      headers: { authorization: 'Bearer a', 'mcp-session-id': sessions[0]! },
    });
    expect(del.status).toBe(200);
    expect((await initialize(url, 'a')).status).toBe(200);
  });

  it("does not evict another caller's live session when the server is full", async () => {
    // a holds 3 (the test above); b fills the rest of the 5 and then floods.
    const b1 = (await initialize(url, 'b')).session!;
    const b2 = (await initialize(url, 'b')).session!;
    for (let i = 0; i < 20; i++) {
      const r = await initialize(url, i % 2 ? 'b' : 'c');
      expect(r.status).toBe(429);
      expect(r.json.error.code).toBe(-32004);
    }
    expect((await ping(url, b1, 'b')).status).toBe(200);
    expect((await ping(url, b2, 'b')).status).toBe(200);
  });

  it('bounds resource subscriptions per session and the length of their URIs', async () => {
    const { running: r2, url: u2 } = await start(
      { maxSubscriptions: 2 },
      {
        resources: [{ uri: 'test://a', name: 'a', read: () => 'A' }],
      },
    );
    try {
      const s = (await initialize(u2, 'a')).session!;
      const sub = (uri: string) =>
        post(
          u2,
          { id: nextId++, method: 'resources/subscribe', params: { uri } },
          { token: 'a', session: s },
        );
      expect((await sub('test://1')).json.result).toEqual({});
      expect((await sub('test://2')).json.result).toEqual({});
      expect((await sub('test://1')).json.result).toEqual({});
      const third = await sub('test://3');
      expect(third.json.error.code).toBe(-32004);
      const long = await sub(`test://${'u'.repeat(5000)}`);
      expect(long.json.error.code).toBe(-32602);
    } finally {
      await r2.close(1000);
    }
  });
});

describe('sessions with bearer auth belong to their principal', () => {
  let running: RunningServer;
  let url: string;
  beforeAll(async () => {
    ({ running, url } = await start({}));
  });
  afterAll(() => running.close(1000));

  it('answers 404 to token B on the session of token A, for POST, GET and DELETE', async () => {
    const s = (await initialize(url, 'a')).session!;
    expect((await ping(url, s, 'b')).status).toBe(404);
    const get = await fetch(url, {
      headers: { authorization: 'Bearer b', 'mcp-session-id': s, accept: 'text/event-stream' },
    });
    expect(get.status).toBe(404);
    await get.body?.cancel();
    const del = await fetch(url, {
      method: 'DELETE',
      headers: { authorization: 'Bearer b', 'mcp-session-id': s },
    });
    expect(del.status).toBe(404);
    expect((await ping(url, s, 'a')).status).toBe(200);
  });
});

describe('idle sessions expire, freeing their place', () => {
  it('closes a session unused for idleMs, and its caller may open another', async () => {
    const { running, url } = await start({ idleMs: 150, maxSessionsPerCaller: 1 });
    try {
      const s = (await initialize(url, 'a')).session!;
      expect((await initialize(url, 'a')).status).toBe(429);
      await new Promise((r) => setTimeout(r, 500));
      expect((await ping(url, s, 'a')).status).toBe(404);
      expect((await initialize(url, 'a')).status).toBe(200);
    } finally {
      await running.close(1000);
    }
  });
});

describe('task origins are bounded, owned and freed with their task', () => {
  let running: RunningServer;
  let url: string;
  beforeAll(async () => {
    ({ running, url } = await start({ maxTasksPerCaller: 2 }, { promiseTtlMs: 400 }));
  });
  afterAll(() => running.close(100));

  it('does not keep 1 MiB of arguments per task', async () => {
    const { running: r2, url: u2 } = await start({ maxTasksPerCaller: 1000 }, {}, false);
    try {
      await stateless(u2, 'tools/call', { name: 'quick_task', arguments: {} }, { tasks: true });
      const before = heapMiB();
      const ids: string[] = [];
      for (let i = 0; i < 16; i++) {
        const args = { pad: MiB };
        const r = await stateless(u2, 'tools/call', { name: 'quick_task', arguments: args }, { tasks: true });
        expect(r.json.result.resultType).toBe('task');
        ids.push(r.json.result.taskId);
      }
      // The work is over (and its arguments with it): only what the binding keeps for each task remains.
      for (const taskId of ids) {
        let status = '';
        while (status !== 'completed') {
          status = (await stateless(u2, 'tasks/get', { taskId }, { tasks: true })).json.result.status;
        }
      }
      expect(heapMiB() - before).toBeLessThan(12);
    } finally {
      await r2.close(0);
    }
  });

  it("refuses a caller's task past its bound (-32004 / 429) and keeps its tasks; another caller is not affected", async () => {
    const t1 = (await stateless(url, 'tools/call', { name: 'slow_task' }, { token: 'a', tasks: true })).json
      .result;
    const t2 = (await stateless(url, 'tools/call', { name: 'slow_task' }, { token: 'a', tasks: true })).json
      .result;
    const refused = await stateless(url, 'tools/call', { name: 'slow_task' }, { token: 'a', tasks: true });
    expect(refused.status).toBe(429);
    expect(refused.json.error.code).toBe(-32004);
    for (const t of [t1, t2]) {
      const got = await stateless(url, 'tasks/get', { taskId: t.taskId }, { token: 'a', tasks: true });
      expect(got.json.result.status).toBe('working');
    }
    const other = await stateless(url, 'tools/call', { name: 'slow_task' }, { token: 'b', tasks: true });
    expect(other.json.result.resultType).toBe('task');
    // The tasks expire with their promises (400 ms), and their places with them.
    await new Promise((r) => setTimeout(r, 600));
    const again = await stateless(url, 'tools/call', { name: 'slow_task' }, { token: 'a', tasks: true });
    expect(again.json.result.resultType).toBe('task');
  });

  it('keeps a task to its principal: token B cannot get, cancel or update what token A made', async () => {
    const { taskId } = (
      await stateless(url, 'tools/call', { name: 'slow_task' }, { token: 'c', tasks: true })
    ).json.result;
    for (const [method, extra] of [
      ['tasks/get', {}],
      ['tasks/cancel', {}],
      ['tasks/update', { inputResponses: {} }],
    ] as const) {
      const r = await stateless(url, method, { taskId, ...extra }, { token: 'b', tasks: true });
      expect(r.json.error.code).toBe(-32602);
      expect(r.json.error.message).toMatch(/Unknown task/);
    }
    const mine = await stateless(url, 'tasks/get', { taskId }, { token: 'c', tasks: true });
    expect(mine.json.result.status).toBe('working');
  });
});

describe('an unknown method or task is named back at most 128 characters long', () => {
  let running: RunningServer;
  let url: string;
  beforeAll(async () => {
    ({ running, url } = await start({}, {}, false));
  });
  afterAll(() => running.close(1000));

  it('caps the method name in the message and in data, on both kinds of revision', async () => {
    const method = `x/${'m'.repeat(200_000)}`;
    const handshake = await post(
      url,
      { id: 1, method },
      { headers: { 'mcp-protocol-version': '2025-06-18' } },
    );
    // The stateless revision repeats the method in a header, which node:http bounds at 16 KiB.
    const short = `x/${'m'.repeat(10_000)}`;
    const bare = await stateless(url, short, {});
    for (const [r, sent] of [
      [handshake, method],
      [bare, short],
    ] as const) {
      expect(r.json.error.code).toBe(-32601);
      expect(JSON.stringify(r.json).length).toBeLessThan(600);
      expect(r.json.error.data.method).toBe(`${sent.slice(0, 128)}…`);
    }
    const taskId = 't'.repeat(10_000);
    const task = await stateless(url, 'tasks/get', { taskId }, { tasks: true });
    expect(task.json.error.code).toBe(-32602);
    expect(JSON.stringify(task.json).length).toBeLessThan(600);
  });
});

describe('the elicitation fallback for a client that cannot be asked (handshake revisions)', () => {
  let running: RunningServer;
  let url: string;
  beforeAll(async () => {
    ({ running, url } = await start({}, {}, false));
  });
  afterAll(() => running.close(1000));

  it('says how to answer, without double punctuation, and the retry it describes works', async () => {
    const session = (await initialize(url)).session!;
    const call = (params: Record<string, unknown>) =>
      post(url, { id: nextId++, method: 'tools/call', params }, { session });
    const first = (await call({ name: 'greet', arguments: {} })).json.result;
    const text: string = first.content[0].text;
    expect(text).toContain('Whom should I greet? ');
    expect(text).not.toContain('?.');
    expect(text).toContain('"elicitation"');
    const { state } = first._meta['mcplite/elicitation'];
    const second = (
      await call({ name: 'greet', arguments: {}, elicitation: { state, answers: { name: 'Ada' } } })
    ).json.result;
    expect(second.content[0].text).toBe('Hello, Ada!');
    const forged = (
      await call({ name: 'greet', arguments: {}, elicitation: { state: `${state}x`, answers: {} } })
    ).json;
    expect(forged.error.code).toBe(-32602);
    const wrong = (await call({ name: 'greet', arguments: {}, elicitation: 'yes' })).json;
    expect(wrong.error.code).toBe(-32602);
  });
});
