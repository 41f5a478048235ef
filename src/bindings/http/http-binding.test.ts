import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  callMessage,
  callTool,
  type JsonRpcResponse,
  postJson,
  startServer,
  type TestServer,
  waitFor,
} from '../../../test/support/http-harness.js';
import { defineTool, elicit, failure } from '../../index.js';

const LEAKY_MESSAGE = 'db password hunter2 at /srv/app/secret.js';

let notified = 0;

const tools = [
  defineTool({
    name: 'echo',
    '@type': 'query',
    description: 'Echoes its text',
    inputSchema: { type: 'object', required: ['text'], properties: { text: { type: 'string' } } },
    handler: ({ text }: { text: string }) => ({ text }),
  }),
  defineTool({
    name: 'add',
    description: 'Adds two numbers',
    inputSchema: {
      type: 'object',
      required: ['a', 'b'],
      properties: { a: { type: 'number' }, b: { type: 'number' } },
      additionalProperties: false,
    },
    handler: ({ a, b }: { a: number; b: number }) => a + b,
  }),
  defineTool({
    name: 'notify',
    description: 'Counts calls (used as a notification)',
    handler: () => {
      notified++;
      return 'ok';
    },
  }),
  defineTool({
    name: 'boom',
    description: 'Always crashes',
    handler: () => {
      throw new Error(LEAKY_MESSAGE);
    },
  }),
  defineTool({
    name: 'refuse',
    description: 'Fails for a business reason',
    handler: () => failure('Out of stock', { code: 'OUT_OF_STOCK', details: { sku: 'x1' } }),
  }),
  defineTool({
    name: 'subscribe',
    description: 'Asks for an email, then subscribes it',
    inputSchema: { type: 'object', properties: { topic: { type: 'string' } } },
    handler: (args: { topic?: string }, ctx) => {
      if (ctx.elicitation) {
        return {
          subscribed: ctx.elicitation.answers.email,
          topic: args.topic,
          context: ctx.elicitation.context,
        };
      }
      return elicit({
        message: 'Which email should get the digest?',
        schema: {
          type: 'object',
          required: ['email'],
          properties: { email: { type: 'string', format: 'email' } },
        },
        context: { step: 1 },
      });
    },
  }),
];

let t: TestServer;
const logLines: string[] = [];

beforeAll(async () => {
  const logger = pino({ level: 'debug' }, { write: (line: string) => logLines.push(line) });
  t = await startServer({ tools, version: '1.2.3', logger });
});
afterAll(() => t.close());

describe('tool discovery', () => {
  it.each(['listtools', 'tools'])(
    'POST %s with {} answers { tools } including redeem and cancel',
    async (endpoint) => {
      const res = await postJson(`${t.base}${endpoint}`, {});
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      const body = (await res.json()) as { tools: any[] };
      const names = body.tools.map((tool) => tool.name);
      expect(names).toEqual(expect.arrayContaining(['redeem', 'cancel', 'echo', 'add', 'subscribe']));
      const redeem = body.tools.find((tool) => tool.name === 'redeem');
      expect(redeem['@type']).toBe('system');
      expect(redeem.inputSchema.required).toEqual(['promise']);
      expect(redeem.inputSchema.properties.promise.type).toBe('string');
      const echo = body.tools.find((tool) => tool.name === 'echo');
      expect(echo).toMatchObject({ '@type': 'query', description: 'Echoes its text' });
    },
  );

  it('answers tools/list over rpc with the same tools', async () => {
    const res = await postJson(t.rpcUrl, { jsonrpc: '2.0', id: 'l1', method: 'tools/list' });
    const body = (await res.json()) as JsonRpcResponse;
    expect(body).toMatchObject({ jsonrpc: '2.0', id: 'l1' });
    expect(body.result.tools.map((tool: any) => tool.name)).toContain('echo');
  });

  it('accepts the base path without a trailing slash on the endpoint, and calltools as the rpc name', async () => {
    const res = await postJson(`${t.base}calltools/`, callMessage('echo', { text: 'hi' }));
    expect(res.status).toBe(200);
    expect(((await res.json()) as JsonRpcResponse).result.content).toEqual({ text: 'hi' });
  });
});

describe('base path', () => {
  it('serves the endpoints under a custom basePath and nothing under the default one', async () => {
    const custom = await startServer({ tools }, { basePath: 'api/lite' });
    try {
      expect(custom.base.endsWith('/api/lite/')).toBe(true);
      const res = await postJson(custom.rpcUrl, callMessage('echo', { text: 'moved' }));
      expect(((await res.json()) as JsonRpcResponse).result.content).toEqual({ text: 'moved' });
      expect(
        (await postJson(`${custom.running.url}/mcp-lite/v1/rpc`, callMessage('echo', { text: 'x' }))).status,
      ).toBe(404);
    } finally {
      await custom.close();
    }
  });
});

describe('tools/call', () => {
  it('answers with content and _meta (spec A.2)', async () => {
    const body = await callTool(t.rpcUrl, 'echo', { text: 'hello' });
    expect(body.jsonrpc).toBe('2.0');
    expect(body.result.content).toEqual({ text: 'hello' });
    expect(body.result._meta).toMatchObject({ response_type: 'answer', server_version: '1.2.3' });
    expect(new Date(body.result._meta.timestamp).toISOString()).toBe(body.result._meta.timestamp);
    expect(body.result._meta.processing_time_ms).toBeGreaterThanOrEqual(0);
  });

  it('keeps the request id, string or number', async () => {
    const res = await postJson(t.rpcUrl, {
      jsonrpc: '2.0',
      id: 'call-001',
      method: 'tools/call',
      params: { name: 'add', arguments: { a: 1, b: 2 } },
    });
    expect(await res.json()).toMatchObject({ id: 'call-001', result: { content: 3 } });
    const res2 = await postJson(t.rpcUrl, {
      jsonrpc: '2.0',
      id: 7,
      method: 'tools/call',
      params: { name: 'add', arguments: { a: 1, b: 2 } },
    });
    expect(await res2.json()).toMatchObject({ id: 7, result: { content: 3 } });
  });

  it('reports a business failure as a result with response_type failure', async () => {
    const body = await callTool(t.rpcUrl, 'refuse', {});
    expect(body.error).toBeUndefined();
    expect(body.result.failure).toEqual({
      message: 'Out of stock',
      code: 'OUT_OF_STOCK',
      details: { sku: 'x1' },
    });
    expect(body.result._meta.response_type).toBe('failure');
  });

  it('answers a notification with 202 and no body, and still runs it', async () => {
    const before = notified;
    const res = await postJson(t.rpcUrl, {
      jsonrpc: '2.0',
      method: 'tools/call',
      params: { name: 'notify' },
    });
    expect(res.status).toBe(202);
    expect(await res.text()).toBe('');
    expect(notified).toBe(before + 1);
  });
});

describe('batches', () => {
  it('answers a batch as a batch, in order, leaving out notifications', async () => {
    const res = await postJson(t.rpcUrl, [
      { jsonrpc: '2.0', id: 'a', method: 'tools/call', params: { name: 'add', arguments: { a: 2, b: 3 } } },
      { jsonrpc: '2.0', method: 'tools/call', params: { name: 'notify' } },
      { jsonrpc: '2.0', id: 'b', method: 'tools/list' },
      { jsonrpc: '2.0', id: 'c', method: 'tools/call', params: { name: 'nope' } },
      {
        jsonrpc: '2.0',
        id: 'd',
        method: 'tools/call',
        params: { name: 'echo', arguments: { text: 'last' } },
      },
    ]);
    expect(res.status).toBe(200);
    const body = (await res.json()) as JsonRpcResponse[];
    expect(body.map((r) => r.id)).toEqual(['a', 'b', 'c', 'd']);
    expect(body[0]!.result.content).toBe(5);
    expect(body[1]!.result.tools.length).toBeGreaterThan(0);
    expect(body[2]!.error!.code).toBe(-32601);
    expect(body[3]!.result.content).toEqual({ text: 'last' });
  });

  it('answers a batch of only notifications with 202 and an empty body', async () => {
    const before = notified;
    const res = await postJson(t.rpcUrl, [
      { jsonrpc: '2.0', method: 'tools/call', params: { name: 'notify' } },
      { jsonrpc: '2.0', method: 'tools/call', params: { name: 'notify' } },
    ]);
    expect(res.status).toBe(202);
    expect(await res.text()).toBe('');
    expect(notified).toBe(before + 2);
  });

  it('answers an invalid member of a batch in the batch', async () => {
    const res = await postJson(t.rpcUrl, [
      { jsonrpc: '1.0', id: 1, method: 'x' },
      { jsonrpc: '2.0', id: 2, method: 'tools/list' },
    ]);
    expect(res.status).toBe(200);
    const body = (await res.json()) as JsonRpcResponse[];
    expect(body[0]).toMatchObject({ id: 1, error: { code: -32600 } });
    expect(body[1]!.id).toBe(2);
  });
});

describe('protocol errors', () => {
  it('answers invalid arguments with -32602 and data.errors naming the field', async () => {
    const body = await callTool(t.rpcUrl, 'add', { a: 1, b: 'two' });
    expect(body.error!.code).toBe(-32602);
    expect(body.error!.message).toContain('b');
    expect(body.error!.data.errors).toEqual([
      expect.objectContaining({ field: 'b', message: 'must be of type number' }),
    ]);
  });

  it('names a missing required field', async () => {
    const body = await callTool(t.rpcUrl, 'echo', {});
    expect(body.error!.code).toBe(-32602);
    expect(body.error!.data.errors).toEqual([
      expect.objectContaining({ field: 'text', message: 'is required' }),
    ]);
  });

  it('answers an unknown tool with -32601, the requested tool, the available tools and a suggestion (spec A.5)', async () => {
    const body = await callTool(t.rpcUrl, 'ecoh', { text: 'x' });
    expect(body.error).toMatchObject({ code: -32601, message: 'Tool not found' });
    expect(body.error!.data.requested_tool).toBe('ecoh');
    expect(body.error!.data.available_tools).toEqual(expect.arrayContaining(['redeem', 'echo', 'add']));
    expect(body.error!.data.suggestion).toBe("Did you mean 'echo'?");
  });

  it('answers a crashing handler with -32603 "Internal error" and leaks nothing', async () => {
    const res = await postJson(t.rpcUrl, callMessage('boom', {}));
    expect(res.status).toBe(200);
    const text = await res.text();
    const body = JSON.parse(text) as JsonRpcResponse;
    expect(body.error).toEqual({ code: -32603, message: 'Internal error' });
    expect(text).not.toContain('hunter2');
    expect(text).not.toContain('/srv/app');
    expect(text).not.toMatch(/\bat\s.*\(/);
  });

  it('logs the crash (with its cause) on the server instead', async () => {
    await waitFor(() => logLines.some((l) => l.includes('hunter2')), 2000, 'the crash in the log');
    const line = JSON.parse(logLines.find((l) => l.includes('hunter2'))!);
    expect(line.level).toBe(50);
    expect(line.tool).toBe('boom');
  });
});

describe('client hang-up', () => {
  it('aborts the handler of a plain JSON call when the client goes away', async () => {
    const probe = { started: false, aborted: false };
    const h = await startServer({
      tools: [
        defineTool({
          name: 'wait',
          description: 'Waits until aborted',
          handler: (_args, ctx) =>
            new Promise((resolve) => {
              probe.started = true;
              ctx.signal.addEventListener('abort', () => {
                probe.aborted = true;
                resolve('aborted');
              });
            }),
        }),
      ],
    });
    try {
      const controller = new AbortController();
      const pending = fetch(h.rpcUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(callMessage('wait', {})),
        signal: controller.signal,
      }).catch((err: Error) => err);
      await waitFor(() => probe.started, 5000, 'the handler to start');
      controller.abort();
      expect(await pending).toBeInstanceOf(Error);
      await waitFor(() => probe.aborted, 5000, 'the handler to be aborted');
      expect(h.server.inFlight).toBe(0);
    } finally {
      await h.close();
    }
  });
});

describe('elicitation', () => {
  it('asks, then accepts the signed state with the answers (round trip)', async () => {
    const first = await callTool(t.rpcUrl, 'subscribe', { topic: 'security' });
    expect(first.result._meta.response_type).toBe('elicitation');
    const { message, requested_schema, state } = first.result.elicitation;
    expect(message).toBe('Which email should get the digest?');
    expect(requested_schema.required).toEqual(['email']);
    expect(typeof state).toBe('string');

    const second = await callTool(
      t.rpcUrl,
      'subscribe',
      { topic: 'security' },
      {
        elicitation: { state, answers: { email: 'a@b.example' } },
      },
    );
    expect(second.result._meta.response_type).toBe('answer');
    expect(second.result.content).toEqual({
      subscribed: 'a@b.example',
      topic: 'security',
      context: { step: 1 },
    });
  });

  it('checks the answers against the requested schema', async () => {
    const first = await callTool(t.rpcUrl, 'subscribe', {});
    const second = await callTool(
      t.rpcUrl,
      'subscribe',
      {},
      {
        elicitation: { state: first.result.elicitation.state, answers: { email: 'not an email' } },
      },
    );
    expect(second.error!.code).toBe(-32602);
    expect(second.error!.data.errors[0].field).toBe('email');
  });

  it('rejects an altered state', async () => {
    const first = await callTool(t.rpcUrl, 'subscribe', {});
    const state: string = first.result.elicitation.state;
    const [body, mac] = state.split('.') as [string, string];
    const payload = JSON.parse(Buffer.from(body, 'base64url').toString());
    payload.schema = { type: 'object' };
    const altered = `${Buffer.from(JSON.stringify(payload)).toString('base64url')}.${mac}`;
    const second = await callTool(
      t.rpcUrl,
      'subscribe',
      {},
      { elicitation: { state: altered, answers: {} } },
    );
    expect(second.error).toMatchObject({ code: -32602, data: { reason: 'forged' } });
  });

  it('rejects a forged state', async () => {
    const forged = `${Buffer.from(JSON.stringify({ tool: 'subscribe', schema: {}, context: null, exp: Date.now() + 60_000 })).toString('base64url')}.${Buffer.alloc(32).toString('base64url')}`;
    const res = await callTool(t.rpcUrl, 'subscribe', {}, { elicitation: { state: forged, answers: {} } });
    expect(res.error).toMatchObject({ code: -32602, data: { reason: 'forged' } });
  });

  it('rejects a state made for another tool', async () => {
    const first = await callTool(t.rpcUrl, 'subscribe', {});
    const res = await callTool(
      t.rpcUrl,
      'echo',
      { text: 'x' },
      {
        elicitation: { state: first.result.elicitation.state, answers: { email: 'a@b.example' } },
      },
    );
    expect(res.error).toMatchObject({ code: -32602, data: { reason: 'wrong_tool' } });
  });
});

describe('promises', () => {
  /** A tool whose calls wait until the test releases them, and which records whether its signal fired. */
  function gatedTool() {
    const gates: Array<{ release: (v: unknown) => void; aborted: boolean; started: boolean }> = [];
    const tool = defineTool({
      name: 'gated',
      description: 'Waits for the test',
      handler: (_args, ctx) =>
        new Promise((resolve) => {
          const gate = { release: resolve, aborted: false, started: true };
          gates.push(gate);
          ctx.signal.addEventListener('abort', () => {
            gate.aborted = true;
            resolve('aborted');
          });
        }),
    });
    return { tool, gates };
  }

  it('turns a call that outlives the answer budget into a promise, then redeems it', async () => {
    const { tool, gates } = gatedTool();
    const p = await startServer({ tools: [tool], answerBudgetMs: 50 });
    try {
      const first = await callTool(p.rpcUrl, 'gated', {});
      expect(first.result._meta.response_type).toBe('promise');
      const token: string = first.result._meta.promise_token;
      expect(token).toMatch(/^prom_[A-Za-z0-9_-]{32}$/);
      expect(Number.isNaN(Date.parse(first.result._meta.estimated_completion))).toBe(false);

      const pending = await callTool(p.rpcUrl, 'redeem', { promise: token });
      expect(pending.result._meta).toMatchObject({ response_type: 'promise', promise_token: token });

      gates[0]!.release({ done: true });
      const settled = await callTool(p.rpcUrl, 'redeem', { promise: token, wait_ms: 5000 });
      expect(settled.result._meta.response_type).toBe('answer');
      expect(settled.result.content).toEqual({ done: true });
      expect(gates[0]!.aborted).toBe(false);
    } finally {
      await p.close();
    }
  });

  it('cancels a promise: the handler signal fires and redeeming says cancelled', async () => {
    const { tool, gates } = gatedTool();
    const p = await startServer({ tools: [tool], answerBudgetMs: 50 });
    try {
      const first = await callTool(p.rpcUrl, 'gated', {});
      const token: string = first.result._meta.promise_token;
      const cancelled = await callTool(p.rpcUrl, 'cancel', { promise: token });
      expect(cancelled.result.content).toEqual({ promise: token, cancelled: true, status: 'cancelled' });
      await waitFor(() => gates[0]?.aborted === true, 2000, 'the handler to be aborted');
      const redeemed = await callTool(p.rpcUrl, 'redeem', { promise: token });
      expect(redeemed.result._meta.response_type).toBe('failure');
      expect(redeemed.result.failure.code).toBe('cancelled');
    } finally {
      await p.close();
    }
  });

  it('answers a malformed or unknown token with -32602', async () => {
    const malformed = await callTool(t.rpcUrl, 'redeem', { promise: 'prom_nope' });
    expect(malformed.error).toMatchObject({ code: -32602, data: { reason: 'malformed' } });
    const unknown = await callTool(t.rpcUrl, 'redeem', { promise: `prom_${'A'.repeat(32)}` });
    expect(unknown.error).toMatchObject({ code: -32602, data: { reason: 'unknown' } });
  });
});
