/**
 * Issue 22, item 6: an `async function*` tool that returns nothing answers with the list of the values it yielded,
 * whoever calls it: a client that streams (SSE on MCP-lite HTTP, a progress token on MCP) and one that does not get
 * the same answer (it used to be `null` for the first and the list for the second). A generator that returns a
 * value answers that value; one that yields more than `MAX_COLLECTED_YIELDS` values without returning fails, on
 * every wire alike, rather than keep an unbounded list (docs/wire-format.md, "Streaming").
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_COLLECTED_YIELDS } from '../../src/core/handler-value.js';
import { createServer, defineTool, silentLogger } from '../../src/index.js';
import { type RunningServer, serve } from '../../src/node.js';
import { postJson, postSse, readSse } from '../support/http-harness.js';

const tools = [
  defineTool({
    name: 'count',
    description: 'Yields 1, 2, 3 and returns nothing',
    handler: async function* () {
      for (let i = 1; i <= 3; i++) yield i;
    },
  }),
  defineTool({
    name: 'count_then_total',
    description: 'Yields 1, 2, 3 and returns its total',
    handler: async function* () {
      let total = 0;
      for (let i = 1; i <= 3; i++) {
        total += i;
        yield i;
      }
      return { total };
    },
  }),
  defineTool({
    name: 'flood',
    description: 'Yields one value more than the bound and returns nothing',
    handler: async function* () {
      for (let i = 0; i <= MAX_COLLECTED_YIELDS; i++) yield i;
    },
  }),
];

let running: RunningServer;
let rpcUrl: string;

beforeAll(async () => {
  running = await serve(createServer({ tools, logger: silentLogger }), { port: 0 });
  rpcUrl = `${running.url}/mcp-lite/v1/calltools`;
});
afterAll(() => running.close(1000));

const call = (name: string) => ({
  jsonrpc: '2.0',
  id: 1,
  method: 'tools/call',
  params: { name, arguments: {} },
});

/** An MCP-lite HTTP call answered as JSON (no streaming). */
async function liteJson(name: string): Promise<any> {
  const res = await postJson(rpcUrl, call(name));
  expect(res.headers.get('content-type')).toContain('application/json');
  return res.json();
}

/** An MCP-lite HTTP call answered as SSE: its partials and its last event. */
async function liteStream(
  name: string,
): Promise<{ partials: unknown[]; last: { event: string; data: any } }> {
  const res = await postSse(rpcUrl, call(name));
  expect(res.headers.get('content-type')).toContain('text/event-stream');
  const events = await readSse(res);
  const partials = events.filter((e) => e.event === 'message').map((e) => e.data.partial);
  return { partials, last: events.at(-1)! };
}

describe('MCP-lite HTTP: a generator without a return answers what it yielded, streamed or not', () => {
  it('answers [1, 2, 3] without streaming', async () => {
    expect((await liteJson('count')).result.content).toEqual([1, 2, 3]);
  });

  it('answers [1, 2, 3] to a streaming client too, after the same three partials', async () => {
    const { partials, last } = await liteStream('count');
    expect(partials).toEqual([1, 2, 3]);
    expect(last.event).toBe('done');
    expect(last.data.content).toEqual([1, 2, 3]);
  });

  it('answers the return value when there is one, streamed or not', async () => {
    expect((await liteJson('count_then_total')).result.content).toEqual({ total: 6 });
    expect((await liteStream('count_then_total')).last.data.content).toEqual({ total: 6 });
  });

  it('fails alike, streamed or not, past the bound on what it may yield without returning', async () => {
    expect((await liteJson('flood')).error).toMatchObject({ code: -32603, message: 'Internal error' });
    const { partials, last } = await liteStream('flood');
    expect(partials).toHaveLength(MAX_COLLECTED_YIELDS + 1);
    expect(last).toMatchObject({ event: 'error', data: { code: -32603 } });
  });
});

describe('MCP (official SDK client): the same answer with or without a progress token', () => {
  let client: Client;

  beforeAll(async () => {
    client = new Client({ name: 'generator-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${running.url}/mcp`)));
  });
  afterAll(() => client.close());

  it('answers [1, 2, 3] without a progress token', async () => {
    const result = await client.callTool({ name: 'count', arguments: {} });
    expect(result.structuredContent).toEqual({ result: [1, 2, 3] });
  });

  it('answers [1, 2, 3] with a progress token, after three progress notifications', async () => {
    const progress: unknown[] = [];
    const result = await client.callTool({ name: 'count', arguments: {} }, undefined, {
      onprogress: (p) => progress.push(p.message),
    });
    expect(result.structuredContent).toEqual({ result: [1, 2, 3] });
    expect(progress).toEqual(['1', '2', '3']);
  });

  it('answers the return value when there is one, with or without a progress token', async () => {
    const plain = await client.callTool({ name: 'count_then_total', arguments: {} });
    const streamed = await client.callTool({ name: 'count_then_total', arguments: {} }, undefined, {
      onprogress: () => {},
    });
    expect(plain.structuredContent).toEqual({ total: 6 });
    expect(streamed.structuredContent).toEqual({ total: 6 });
  });
});
