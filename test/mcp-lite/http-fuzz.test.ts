import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defineTool, failure } from '../../src/index.js';
import { expectStillServing, readSse, startServer, type TestServer } from '../support/http-harness.js';

/** Fuzzing the MCP-lite HTTP binding: whatever arrives, the answer is well-formed JSON-RPC and the server lives. */

const tools = [
  defineTool({
    name: 'echo',
    description: 'Echoes its text',
    inputSchema: { type: 'object', required: ['text'], properties: { text: { type: 'string' } } },
    handler: ({ text }: { text: string }) => text,
  }),
  defineTool({
    name: 'add',
    description: 'Adds',
    inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } } },
    handler: ({ a = 0, b = 0 }: { a?: number; b?: number }) => a + b,
  }),
  defineTool({
    name: 'boom',
    description: 'Crashes',
    handler: () => {
      throw new Error('boom');
    },
  }),
  defineTool({
    name: 'refuse',
    description: 'Fails',
    handler: () => failure('no'),
  }),
  defineTool({
    name: 'stream',
    description: 'Streams whatever it got',
    handler: async (args: Record<string, unknown>, ctx) => {
      await ctx.partial(args);
      return Object.keys(args).length;
    },
  }),
];

const TOOL_NAMES = [...tools.map((t) => t.name), 'redeem', 'cancel'];
const RUNS = { numRuns: 300 };

let t: TestServer;
beforeAll(async () => {
  t = await startServer({ tools });
});
afterAll(() => t.close());

function isValidId(id: unknown): boolean {
  return id === null || typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id));
}

/** One JSON-RPC response object: jsonrpc "2.0", an id of a valid type, exactly one of result and error. */
function expectResponseObject(r: unknown): void {
  expect(typeof r).toBe('object');
  expect(r).not.toBeNull();
  const o = r as Record<string, any>;
  expect(o.jsonrpc).toBe('2.0');
  expect('id' in o && isValidId(o.id)).toBe(true);
  expect('result' in o !== 'error' in o).toBe(true);
  if ('error' in o) {
    expect(Number.isInteger(o.error.code)).toBe(true);
    expect(typeof o.error.message).toBe('string');
  }
}

/** The reply to anything: 202 with no body, or JSON-RPC response(s) with a status that fits them. */
async function expectSensibleReply(res: Response): Promise<void> {
  const text = await res.text();
  if (res.status === 202) {
    expect(text).toBe('');
    return;
  }
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  const body = JSON.parse(text);
  if (Array.isArray(body)) {
    expect(res.status).toBe(200);
    expect(body.length).toBeGreaterThan(0);
    for (const r of body) expectResponseObject(r);
    return;
  }
  expectResponseObject(body);
  if (res.status === 400) expect([-32700, -32600]).toContain(body.error?.code);
  else expect(res.status).toBe(200);
}

function post(body: string | Uint8Array, accept?: string): Promise<Response> {
  return fetch(t.rpcUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(accept ? { accept } : {}) },
    body: typeof body === 'string' ? body : new Uint8Array(body),
  });
}

const anyJson = fc.jsonValue({ maxDepth: 4 });
const rpcish = fc.record(
  {
    jsonrpc: fc.oneof(fc.constant('2.0'), fc.constant('2.0'), anyJson),
    id: fc.oneof(fc.string(), fc.integer(), fc.double(), fc.constant(null), anyJson),
    method: fc.oneof(fc.constantFrom('tools/call', 'tools/call', 'tools/list'), fc.string(), anyJson),
    params: fc.oneof(
      fc.record(
        {
          name: fc.oneof(fc.constantFrom(...TOOL_NAMES), fc.string(), anyJson),
          arguments: fc.oneof(fc.dictionary(fc.string(), anyJson), anyJson),
          elicitation: anyJson,
        },
        { requiredKeys: ['name'] },
      ),
      anyJson,
    ),
  },
  { requiredKeys: [] },
);

describe('fuzzing the rpc endpoint', () => {
  it('answers any JSON value sensibly', async () => {
    await fc.assert(
      fc.asyncProperty(anyJson, async (value) => {
        await expectSensibleReply(await post(JSON.stringify(value)));
      }),
      RUNS,
    );
  });

  it('answers random JSON-RPC-ish messages sensibly', async () => {
    await fc.assert(
      fc.asyncProperty(rpcish, async (message) => {
        await expectSensibleReply(await post(JSON.stringify(message)));
      }),
      RUNS,
    );
  });

  it('answers random batches sensibly, one response per non-notification', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(rpcish, { maxLength: 12 }), async (batch) => {
        const res = await post(JSON.stringify(batch));
        const clone = res.clone();
        await expectSensibleReply(res);
        if (batch.length > 0 && res.status === 200) {
          const replies = (await clone.json()) as unknown[];
          expect(replies.length).toBeLessThanOrEqual(batch.length);
        }
      }),
      RUNS,
    );
  });

  it('answers random bytes sensibly', async () => {
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ maxLength: 256 }), async (bytes) => {
        await expectSensibleReply(await post(bytes));
      }),
      RUNS,
    );
  });

  it('answers random text that looks a bit like JSON sensibly', async () => {
    const jsonChars = fc.constantFrom(...'{}[]":,0123456789.eE+-truefalsnl \\u"'.split(''));
    await fc.assert(
      fc.asyncProperty(fc.string({ unit: jsonChars, maxLength: 80 }), async (text) => {
        await expectSensibleReply(await post(text));
      }),
      RUNS,
    );
  });

  it('answers random messages asking for SSE with JSON or a well-formed event stream', async () => {
    await fc.assert(
      fc.asyncProperty(rpcish, async (message) => {
        const res = await post(JSON.stringify(message), 'text/event-stream');
        if (!res.headers.get('content-type')?.startsWith('text/event-stream')) {
          await expectSensibleReply(res);
          return;
        }
        expect(res.status).toBe(200);
        const events = (await readSse(res)).filter((e) => e.event !== 'heartbeat');
        const last = events.at(-1)!;
        expect(['done', 'error']).toContain(last.event);
        for (const e of events.slice(0, -1)) expect(e.event).toBe('message');
        if (last.event === 'done') expect(typeof last.data._meta.response_type).toBe('string');
        else expect(Number.isInteger(last.data.code)).toBe(true);
      }),
      { numRuns: 150 },
    );
  });

  it('still serves after all that', async () => {
    await expectStillServing(t.rpcUrl);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
