/**
 * The built-in middleware a user composes (docs/middleware.md): `timeout`, `cacheResults`, `logCalls` and
 * `visibleTools` per caller, each over a real socket (MCP-lite HTTP with fetch, MCP with the official SDK's client),
 * the server's own policies on the same chain (the rate limiter and the metrics observer run before user
 * middleware), and `mcplite serve <module>` taking `middleware` from the module like its other options.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import {
  bearerAuth,
  cacheResults,
  createServer,
  logCalls,
  McpLiteError,
  type Middleware,
  type ServerOptions,
  timeout,
  visibleTools,
} from '../../src/index.js';
import { type RunningServer, serve } from '../../src/node.js';
import { children, ROOT, start } from '../support/cli-process.js';

const open: RunningServer[] = [];

afterEach(async () => {
  await Promise.all(open.splice(0).map((r) => r.close(500)));
  for (const child of children) child.kill();
});

async function served(options: ServerOptions): Promise<RunningServer> {
  const running = await serve(createServer(options), { port: 0 });
  open.push(running);
  return running;
}

let id = 1;

/** One MCP-lite JSON-RPC tools/call over HTTP: the status and the response. */
async function call(
  running: RunningServer,
  name: string,
  args: Record<string, unknown> = {},
  token?: string,
): Promise<{ status: number; body: any }> {
  const res = await fetch(`${running.url}/mcp-lite/v1/rpc`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: id++,
      method: 'tools/call',
      params: { name, arguments: args },
    }),
  });
  return { status: res.status, body: await res.json() };
}

async function listed(running: RunningServer, token?: string): Promise<string[]> {
  const res = await fetch(`${running.url}/mcp-lite/v1/tools`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: '{}',
  });
  return ((await res.json()) as { tools: Array<{ name: string }> }).tools.map((t) => t.name);
}

describe('timeout(ms)', () => {
  it('ends a call that outlives the limit with deadline_exceeded and aborts its handler', async () => {
    let abortedWith: unknown;
    const running = await served({
      tools: [
        {
          name: 'slow',
          handler: (_args, ctx) =>
            new Promise((resolve) => {
              ctx.signal.addEventListener('abort', () => {
                abortedWith = ctx.signal.reason;
                resolve('stopped');
              });
            }),
        },
        { name: 'quick', handler: () => 'done' },
      ],
      middleware: [timeout((op) => (op.name === 'slow' ? 100 : undefined))],
    });
    const started = Date.now();
    const slow = await call(running, 'slow');
    expect(Date.now() - started).toBeLessThan(5000);
    expect(slow.body.error).toMatchObject({ code: -32001, data: { timeoutMs: 100 } });
    expect((abortedWith as { code?: string }).code).toBe('deadline_exceeded');
    expect((await call(running, 'quick')).body.result.content).toBe('done');
  });

  it('refuses a limit that is not a positive number', () => {
    expect(() => timeout(0)).toThrow(/positive/);
  });
});

describe('cacheResults({ ttlMs, scope })', () => {
  function counting() {
    const runs = { cached: 0, plain: 0 };
    const tools = [
      {
        name: 'cached',
        cacheable: true,
        handler: (args: { q?: string }) => ({ q: args.q ?? null, run: ++runs.cached }),
      },
      { name: 'plain', handler: () => ({ run: ++runs.plain }) },
    ];
    return { runs, tools };
  }

  it('answers a cacheable tool from the cache per caller and never caches other tools', async () => {
    const { runs, tools } = counting();
    const running = await served({
      tools,
      authenticate: bearerAuth(['alice', 'bob']),
      middleware: [cacheResults({ ttlMs: 60_000 })],
    });
    const first = await call(running, 'cached', { q: 'a' }, 'alice');
    const again = await call(running, 'cached', { q: 'a' }, 'alice');
    expect(again.body.result.content).toEqual(first.body.result.content);
    expect(runs.cached).toBe(1);
    // Another caller never sees an answer made for someone else.
    expect((await call(running, 'cached', { q: 'a' }, 'bob')).body.result.content).toEqual({
      q: 'a',
      run: 2,
    });
    // Other arguments, another answer.
    expect((await call(running, 'cached', { q: 'b' }, 'alice')).body.result.content).toEqual({
      q: 'b',
      run: 3,
    });
    await call(running, 'plain', {}, 'alice');
    await call(running, 'plain', {}, 'alice');
    expect(runs.plain).toBe(2);
  });

  it('shares answers between callers with scope global, and forgets them after ttlMs', async () => {
    const { runs, tools } = counting();
    const running = await served({
      tools,
      authenticate: bearerAuth(['alice', 'bob']),
      middleware: [cacheResults({ ttlMs: 150, scope: 'global' })],
    });
    await call(running, 'cached', { q: 'a' }, 'alice');
    await call(running, 'cached', { q: 'a' }, 'bob');
    expect(runs.cached).toBe(1);
    // Called until the answer is forgotten (past ttlMs), which runs the tool again.
    await expect
      .poll(
        async () => {
          await call(running, 'cached', { q: 'a' }, 'bob');
          return runs.cached;
        },
        { timeout: 10_000, interval: 50 },
      )
      .toBe(2);
  });

  it('is bounded per caller: a full caller makes room from its own answers, never from another caller', async () => {
    const { runs, tools } = counting();
    const running = await served({
      tools,
      authenticate: bearerAuth(['alice', 'bob']),
      middleware: [cacheResults({ ttlMs: 60_000, maxEntriesPerCaller: 2, maxEntries: 3 })],
    });
    await call(running, 'cached', { q: 'bob' }, 'bob');
    for (const q of ['1', '2', '3']) await call(running, 'cached', { q }, 'alice');
    expect(runs.cached).toBe(4);
    // Bob's answer survived Alice filling her share.
    await call(running, 'cached', { q: 'bob' }, 'bob');
    expect(runs.cached).toBe(4);
    // Alice's oldest went to make room for her third.
    await call(running, 'cached', { q: '1' }, 'alice');
    expect(runs.cached).toBe(5);
  });
});

describe('logCalls()', () => {
  function capture() {
    const lines: any[] = [];
    const stream = new Writable({
      write(chunk, _enc, done) {
        for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
        done();
      },
    });
    return { lines, logger: pino(stream) };
  }

  it('writes one pino line per call, its arguments redacted unless asked for', async () => {
    const redacted = capture();
    const chosen = capture();
    const running = await served({
      tools: [{ name: 'greet', handler: (args: { name: string; card: string }) => `hi ${args.name}` }],
      middleware: [
        logCalls({ logger: redacted.logger }),
        logCalls({ logger: chosen.logger, arguments: ['name'] }),
      ],
    });
    await call(running, 'greet', { name: 'Ada', card: '4111' });
    await call(running, 'nope');
    // The call to an unknown tool is one line too: the refused attempt, with its code.
    expect(redacted.lines).toHaveLength(2);
    expect(redacted.lines[1]).toMatchObject({
      msg: 'operation failed',
      name: 'nope',
      error: 'tool_not_found',
    });
    expect(redacted.lines[0]).toMatchObject({
      msg: 'operation',
      method: 'tools/call',
      name: 'greet',
      binding: 'http',
      outcome: 'answer',
      arguments: { name: '[redacted]', card: '[redacted]' },
    });
    expect(JSON.stringify(redacted.lines)).not.toContain('4111');
    expect(chosen.lines[0].arguments).toEqual({ name: 'Ada', card: '[redacted]' });
  });

  it('logs a refusal with its code', async () => {
    const { lines, logger } = capture();
    const refuse: Middleware = () => {
      throw new McpLiteError('forbidden', 'not today');
    };
    const running = await served({
      tools: [{ name: 'greet', handler: () => 'hi' }],
      middleware: [logCalls({ logger }), refuse],
    });
    await call(running, 'greet');
    expect(lines[0]).toMatchObject({ msg: 'operation failed', name: 'greet', error: 'forbidden' });
  });
});

describe('visibleTools((tool, caller) => boolean)', () => {
  const tools = [
    { name: 'report', handler: () => 'report' },
    { name: 'admin', inputSchema: { type: 'object', required: ['x'] }, handler: () => 'admin' },
  ];
  const options: ServerOptions = {
    tools,
    authenticate: bearerAuth(['root', 'guest']),
    middleware: [
      visibleTools((tool, caller) => tool.name !== 'admin' || caller.principal?.id === 'bearer-0'),
    ],
  };

  it('lists a hidden tool to nobody it hides from, on MCP-lite HTTP and on MCP', async () => {
    const running = await served(options);
    expect(await listed(running, 'root')).toEqual(['report', 'admin']);
    expect(await listed(running, 'guest')).toEqual(['report']);
    const client = new Client({ name: 'visible', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${running.url}/mcp`), {
        requestInit: { headers: { authorization: 'Bearer guest' } },
      }),
    );
    try {
      expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['report']);
      await expect(client.callTool({ name: 'admin', arguments: { x: 1 } })).rejects.toMatchObject({
        code: -32602,
      });
    } finally {
      await client.close();
    }
  });

  it('answers a hidden tool as unknown whatever its arguments, and names only visible tools', async () => {
    const running = await served(options);
    const refused = await call(running, 'admin', {}, 'guest');
    expect(refused.body.error).toMatchObject({ code: -32601, data: { requested_tool: 'admin' } });
    expect(refused.body.error.data.available_tools).toEqual(['report']);
    expect((await call(running, 'admin', { x: 1 }, 'root')).body.result.content).toBe('admin');
  });
});

describe('the server’s own policies on the chain', () => {
  it('rate-limits and observes before user middleware, which never sees a refused call', async () => {
    const seen: string[] = [];
    const records: string[] = [];
    const running = await served({
      tools: [{ name: 'ping', handler: () => 'pong' }],
      rateLimit: { requestsPerSecond: 0.001, burst: 1 },
      onCallEnd: (r) => records.push(`${r.binding}:${r.outcome}`),
      middleware: [
        (op, next) => {
          seen.push(op.method);
          return next();
        },
      ],
    });
    expect((await call(running, 'ping')).body.result.content).toBe('pong');
    expect((await call(running, 'ping')).body.error.code).toBe(-32029);
    expect(seen).toEqual(['tools/call']);
    expect(records).toEqual(['http:answer', 'http:error:rate_limited']);
  });
});

describe('resources, prompts and completions', () => {
  it('walk the chain on MCP and on MCP-lite HTTP, where a middleware sees and may refuse them', async () => {
    const seen: Array<{ method: string; name: string | undefined; arguments: unknown; binding: string }> = [];
    const running = await served({
      tools: [{ name: 'report', handler: () => 'report' }],
      resources: [
        { uri: 'notes://open', name: 'open', read: () => 'open notes' },
        { uri: 'notes://secret', name: 'secret', read: () => 'secret notes' },
      ],
      prompts: [
        {
          name: 'review',
          arguments: [{ name: 'code', required: true }],
          handler: ({ code }) => `Review this: ${code}`,
          complete: { code: (value) => [`${value}1`, `${value}2`] },
        },
      ],
      middleware: [
        (op, next) => {
          seen.push({
            method: op.method,
            name: op.name,
            arguments: op.arguments,
            binding: op.caller.binding,
          });
          if (op.method === 'resources/read' && op.name === 'notes://secret') {
            throw new McpLiteError('forbidden', 'not yours');
          }
          return next();
        },
      ],
    });
    const client = new Client({ name: 'operations', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${running.url}/mcp`)));
    try {
      expect((await client.listResources()).resources.map((r) => r.uri)).toEqual([
        'notes://open',
        'notes://secret',
      ]);
      expect((await client.readResource({ uri: 'notes://open' })).contents[0]).toMatchObject({
        text: 'open notes',
      });
      await expect(client.readResource({ uri: 'notes://secret' })).rejects.toMatchObject({ code: 403 });
      expect((await client.listPrompts()).prompts.map((p) => p.name)).toEqual(['review']);
      await client.getPrompt({ name: 'review', arguments: { code: 'x' } });
      const completed = await client.complete({
        ref: { type: 'ref/prompt', name: 'review' },
        argument: { name: 'code', value: 'v' },
      });
      expect(completed.completion.values).toEqual(['v1', 'v2']);
    } finally {
      await client.close();
    }
    const prompt = await fetch(`${running.url}/mcp-lite/v1/prompts`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'review', arguments: { code: 'y' } }),
    });
    expect(prompt.status).toBe(200);
    expect(seen).toEqual([
      { method: 'resources/list', name: undefined, arguments: undefined, binding: 'mcp' },
      { method: 'resources/read', name: 'notes://open', arguments: undefined, binding: 'mcp' },
      { method: 'resources/read', name: 'notes://secret', arguments: undefined, binding: 'mcp' },
      { method: 'prompts/list', name: undefined, arguments: undefined, binding: 'mcp' },
      { method: 'prompts/get', name: 'review', arguments: { code: 'x' }, binding: 'mcp' },
      {
        method: 'completion/complete',
        name: undefined,
        arguments: { ref: { type: 'ref/prompt', name: 'review' }, argument: { name: 'code', value: 'v' } },
        binding: 'mcp',
      },
      { method: 'prompts/get', name: 'review', arguments: { code: 'y' }, binding: 'http' },
    ]);
  });
});

describe('MCP native tools', () => {
  it('walk the same chain: a middleware refuses one as it refuses a core tool', async () => {
    const server = createServer({
      tools: [{ name: 'report', handler: () => 'report' }],
      middleware: [
        (op, next) => {
          if (op.method === 'tools/call' && op.name === 'native_wipe') {
            throw new McpLiteError('forbidden', 'not today');
          }
          return next();
        },
      ],
    });
    const running = await serve(server, {
      port: 0,
      mcp: {
        nativeTools: [
          {
            tool: { name: 'native_wipe', inputSchema: { type: 'object' } },
            handler: () => ({ content: [{ type: 'text', text: 'wiped' }] }),
          },
          {
            tool: { name: 'native_ok', inputSchema: { type: 'object' } },
            handler: () => ({ content: [{ type: 'text', text: 'fine' }] }),
          },
        ],
      },
    });
    open.push(running);
    const client = new Client({ name: 'native', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${running.url}/mcp`)));
    try {
      expect((await client.callTool({ name: 'native_ok', arguments: {} })).content).toEqual([
        { type: 'text', text: 'fine' },
      ]);
      // Streamable HTTP answers forbidden with 403, which the SDK's transport reports as its code.
      await expect(client.callTool({ name: 'native_wipe', arguments: {} })).rejects.toMatchObject({
        code: 403,
      });
    } finally {
      await client.close();
    }
  });
});

describe('mcplite serve <module>', () => {
  it('takes middleware from serverOptions and from a { tools, ...options } default export', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcplite-middleware-'));
    const named = join(dir, 'named.mjs');
    const mcplite = pathToFileURL(join(ROOT, 'src/index.ts')).href;
    writeFileSync(
      named,
      `import { McpLiteError } from '${mcplite}';
export const tools = [{ name: 'hello', handler: () => 'hello' }, { name: 'wipe', handler: () => 'gone' }];
export const serverOptions = { middleware: [(op, next) => {
  if (op.method === 'tools/call' && op.name === 'wipe') throw new McpLiteError('forbidden', 'not today');
  return next();
}] };
`,
    );
    const fallback = join(dir, 'default.mjs');
    writeFileSync(
      fallback,
      `export default { tools: [{ name: 'hello', handler: () => 'hello' }, { name: 'hidden', handler: () => 1 }],
  middleware: [async (op, next) => { const r = await next(); return op.method === 'tools/list' ? r.filter((t) => t.name !== 'hidden') : r; }] };
`,
    );
    const first = await start([named]);
    const rpc = (base: string, body: unknown) =>
      fetch(`${base}rpc`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const wiped = await rpc(first.base, {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'wipe' },
    });
    expect(wiped.status).toBe(403);
    expect(((await wiped.json()) as any).error.code).toBe(-32003);
    const second = await start([fallback]);
    const list = await rpc(second.base, { jsonrpc: '2.0', id: 2, method: 'tools/list' });
    expect(((await list.json()) as any).result.tools.map((t: { name: string }) => t.name)).toEqual(['hello']);
  }, 60_000);
});
