/**
 * The universal client against live mcplite servers on every binding: MCP-lite HTTP, gRPC, MCP over gRPC, MCP stateless
 * (2026-07-28), MCP on a handshake revision (the official SDK's client underneath), and stdio. The same cases run
 * on each: listing, the five outcomes, partials, auto-redeem, cancellation on give-up, and protocol errors.
 */
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type CallOutcome,
  type Client,
  type ConnectOptions,
  connect,
  McpLiteError,
} from '../../src/client/index.js';
import { createServer } from '../../src/index.js';
import { type RunningServer, serve } from '../../src/node.js';
import { aborted, clientTools } from '../support/client-fixture.js';
import { freePort } from '../support/free-port.js';

let running: RunningServer;
const STDIO = `${process.execPath} --import tsx ${fileURLToPath(new URL('../support/client-stdio-server.ts', import.meta.url))}`;

beforeAll(async () => {
  running = await serve(
    createServer({ name: 'client-fixture', version: '1.0.0', tools: clientTools, mcpInlineWaitMs: 0 }),
    {
      port: 0,
      grpcPort: 0,
    },
  );
});
afterAll(async () => {
  await running.close(500);
});

interface Case {
  name: string;
  target: () => string;
  options?: ConnectOptions;
  binding: string;
  /** Whether the wire carries MCP-lite's meta and partial values as sent. */
  lite: boolean;
  /** The server runs in another process (its handlers' aborts cannot be seen here). */
  remote?: boolean;
  /** A unary wire without a place for `@type` or partials (MCP over gRPC: the proto has neither). */
  unary?: boolean;
}

const CASES: Case[] = [
  {
    name: 'MCP-lite HTTP',
    target: () => `${running.url}/mcp-lite/v1/`,
    binding: 'mcp-lite-http',
    lite: true,
  },
  { name: 'gRPC', target: () => `grpc://127.0.0.1:${running.grpc!.port}`, binding: 'grpc', lite: true },
  {
    name: 'MCP over gRPC',
    target: () => `grpc://127.0.0.1:${running.grpc!.port}/model_context_protocol.Mcp`,
    binding: 'mcp-grpc',
    lite: false,
    unary: true,
  },
  { name: 'MCP stateless', target: () => `${running.url}/mcp`, binding: 'mcp', lite: false },
  {
    name: 'MCP handshake',
    target: () => `${running.url}/mcp`,
    options: { mcpRevision: 'handshake' },
    binding: 'mcp',
    lite: false,
  },
  {
    name: 'stdio',
    target: () => STDIO,
    options: { stderr: 'ignore' },
    binding: 'stdio',
    lite: false,
    remote: true,
  },
];

for (const c of CASES) {
  describe(`client over ${c.name}`, () => {
    let client: Client;
    beforeAll(async () => {
      client = await connect(c.target(), c.options);
    });
    afterAll(async () => {
      await client.close();
    });

    it('detects the binding and lists the tools', async () => {
      expect(client.binding).toBe(c.binding);
      const tools = await client.listTools();
      const echo = tools.find((t) => t.name === 'echo');
      expect(echo).toMatchObject({ name: 'echo', description: 'Echo the message back' });
      if (!c.unary) expect(echo?.['@type']).toBe('query');
      expect(echo?.inputSchema).toMatchObject({ required: ['message'] });
      expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(['redeem', 'cancel', 'subscribe']));
    });

    it('answers', async () => {
      const outcome = await client.call('echo', { message: 'hi', times: 2 });
      expect(outcome).toMatchObject({ type: 'answer', value: { message: 'hi', times: 2 } });
    });

    it('fails for a business reason', async () => {
      const outcome = await client.call('refuse');
      expect(outcome).toMatchObject({ type: 'failure', message: 'No stock left', code: 'out_of_stock' });
    });

    it('asks for more resource', async () => {
      const outcome = await client.call('budget');
      expect(outcome).toMatchObject({
        type: 'request-for-more-resource',
        resource: 'rows',
        requested: 120,
        granted: 50,
      });
    });

    it('streams partials, then the outcome', async () => {
      const events: unknown[] = [];
      for await (const ev of client.stream('count', { n: 3 })) events.push(ev);
      // A unary wire answers the outcome alone.
      if (c.unary) {
        expect(events).toEqual([expect.objectContaining({ type: 'answer', value: { total: 3 } })]);
        return;
      }
      expect(events).toHaveLength(4);
      expect(events[3]).toMatchObject({ type: 'answer', value: { total: 3 } });
      if (c.lite)
        expect(events.slice(0, 3)).toEqual([1, 2, 3].map((i) => ({ type: 'partial', value: { i } })));
      else expect((events[0] as { type: string }).type).toBe('partial');
    });

    it('redeems a promise by itself, reporting progress', async () => {
      const seen: string[] = [];
      const outcome = await client.call('slow_job', { ms: 300 }, { onPromise: (p) => seen.push(p.token) });
      expect(outcome).toMatchObject({ type: 'answer', value: { done: true, ms: 300 } });
      expect(seen.length).toBeGreaterThan(0);
    });

    it('returns the promise with redeem: false, then redeems and cancels by token', async () => {
      const promise = await client.call('slow_job', { ms: 200 }, { redeem: false });
      expect(promise.type).toBe('promise');
      const token = (promise as { token: string }).token;
      expect(await client.redeem(token)).toMatchObject({ type: 'answer', value: { done: true } });

      const other = (await client.call('slow_job', { ms: 60_000, id: `${c.name}-c` }, { redeem: false })) as {
        token: string;
      };
      const cancelled = await client.cancel(other.token);
      expect(cancelled.cancelled).toBe(true);
      if (!c.remote) await expect.poll(() => aborted.has(`${c.name}-c`)).toBe(true);
    });

    it('cancels the promise when the caller gives up (timeout)', async () => {
      const err = await client
        .call('slow_job', { ms: 60_000, id: `${c.name}-t` }, { timeout: 300 })
        .catch((e) => e);
      expect(err).toBeInstanceOf(McpLiteError);
      expect(err.code).toBe('deadline_exceeded');
      if (!c.remote) await expect.poll(() => aborted.has(`${c.name}-t`)).toBe(true);
      else expect(err.data.promise).toMatch(/^prom_/);
    });

    it('answers an elicitation through its continuation', async () => {
      const first: CallOutcome = await client.call('subscribe', { topic: 'security' });
      expect(first.type).toBe('elicitation');
      if (first.type !== 'elicitation') return;
      expect(first.message).toBe('Which email should we use?');
      expect(first.requestedSchema).toMatchObject({ properties: { email: { type: 'string' } } });
      const done = await first.answer({ email: 'a@b.c' });
      expect(done).toMatchObject({ type: 'answer', value: { subscribed: 'a@b.c', topic: 'security' } });
    });

    it('throws McpLiteError for an unknown tool, with the suggestion', async () => {
      const err = await client.call('ecoh', { message: 'x' }).catch((e) => e);
      expect(err).toBeInstanceOf(McpLiteError);
      expect(err.code).toBe('tool_not_found');
      expect(err.data.requested_tool).toBe('ecoh');
      if (c.lite) expect(err.data.suggestion).toContain('echo');
    });

    it('throws invalid_params for arguments that break the schema', async () => {
      const err = await client.call('echo', { message: 5 }).catch((e) => e);
      expect(err).toBeInstanceOf(McpLiteError);
      expect(err.code).toBe('invalid_params');
    });
  });
}

describe('connect', () => {
  it('asks the server when the path says nothing (MCP-lite at a custom base, MCP elsewhere)', async () => {
    const other = await serve(createServer({ name: 'x', version: '1', tools: clientTools }), {
      port: 0,
      basePath: '/tools-api/',
      mcpPath: '/rpc-mcp',
    });
    try {
      const lite = await connect(`${other.url}/tools-api/`);
      expect(lite.binding).toBe('mcp-lite-http');
      expect(await lite.call('echo', { message: 'a' })).toMatchObject({ type: 'answer' });
      const mcp = await connect(`${other.url}/rpc-mcp`);
      expect(mcp.binding).toBe('mcp');
      expect(await mcp.call('echo', { message: 'b' })).toMatchObject({
        type: 'answer',
        value: { message: 'b' },
      });
      await mcp.close();
    } finally {
      await other.close(200);
    }
  });

  it('takes an explicit binding', async () => {
    const client = await connect(`http://127.0.0.1:${running.grpc!.port}`, { binding: 'grpc' });
    expect(client.binding).toBe('grpc');
    expect(await client.call('echo', { message: 'g' })).toMatchObject({ type: 'answer' });
    await client.close();
  });

  it('names the unreachable target and the cause', async () => {
    const port = await freePort();
    for (const target of [`http://127.0.0.1:${port}/mcp-lite/v1/`, `grpc://127.0.0.1:${port}`]) {
      const client = await connect(target);
      const err = await client.call('echo', { message: 'x' }).catch((e) => e);
      await client.close();
      expect(err).toBeInstanceOf(McpLiteError);
      expect(err.code).toBe('unavailable');
      expect(err.message).toBe(`Cannot reach ${target}: connect ECONNREFUSED 127.0.0.1:${port}`);
      expect(err.data).toEqual({
        reason: 'unreachable',
        target,
        cause: `connect ECONNREFUSED 127.0.0.1:${port}`,
      });
    }
    // MCP connects at once (it asks the server which revision it speaks): connect itself fails.
    const err = await connect(`http://127.0.0.1:${port}/mcp`).catch((e) => e);
    expect(err.message).toBe(
      `Cannot reach http://127.0.0.1:${port}/mcp: connect ECONNREFUSED 127.0.0.1:${port}`,
    );
  });

  it('reports an unreachable server as unavailable', async () => {
    const client = await connect('http://127.0.0.1:1/mcp-lite/v1/');
    const err = await client.listTools().catch((e) => e);
    expect(err).toBeInstanceOf(McpLiteError);
    expect(err.code).toBe('unavailable');
  });
});

describe('client over Webtools (the real binding, served by serve())', () => {
  let client: Client;
  beforeAll(async () => {
    client = await connect(`${running.url}/webtools/client-fixture/`);
  });
  afterAll(async () => {
    await client.close();
  });

  it('detects the binding and lists the actions as tools', async () => {
    expect(client.binding).toBe('webtools');
    const names = (await client.listTools()).map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['echo', 'refuse', 'subscribe']));
  });

  it('answers, fails, asks for more resource', async () => {
    expect(await client.call('echo', { message: 'w', times: 2 })).toMatchObject({
      type: 'answer',
      value: { message: 'w', times: 2 },
    });
    expect(await client.call('refuse')).toMatchObject({ type: 'failure', code: 'out_of_stock' });
    expect(await client.call('budget')).toMatchObject({
      type: 'request-for-more-resource',
      resource: 'rows',
      requested: 120,
    });
  });

  it('redeems a promise and answers an elicitation', async () => {
    expect(await client.call('slow_job', { ms: 200 })).toMatchObject({
      type: 'answer',
      value: { done: true },
    });
    const first = await client.call('subscribe', { topic: 'w' });
    expect(first.type).toBe('elicitation');
    if (first.type !== 'elicitation') return;
    expect(await first.answer({ email: 'w@x.y' })).toMatchObject({
      type: 'answer',
      value: { subscribed: 'w@x.y' },
    });
  });

  it('streams partials over SSE, then the outcome', async () => {
    const events: unknown[] = [];
    for await (const ev of client.stream('count', { n: 3 })) events.push(ev);
    expect(events).toEqual([
      ...[1, 2, 3].map((i) => ({ type: 'partial', value: { i } })),
      expect.objectContaining({ type: 'answer', value: { total: 3 } }),
    ]);
    const partials: unknown[] = [];
    await expect(
      client.call('echo', { message: 5 }, { onPartial: (p) => partials.push(p) }),
    ).rejects.toMatchObject({ code: 'invalid_params' });
    expect(partials).toEqual([]);
  });

  it('throws for an unknown action and for bad arguments', async () => {
    await expect(client.call('ecoh', {})).rejects.toBeInstanceOf(McpLiteError);
    await expect(client.call('echo', { message: 5 })).rejects.toMatchObject({ code: 'invalid_params' });
  });
});
