import { Client as SdkClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serverOptions, tools } from '../../examples/demo/index.js';
import { type CallOutcome, type Client, checkLock, connect, createLock } from '../../src/client/index.js';
import { callMessage, postJson, startServer, type TestServer } from '../support/http-harness.js';

/**
 * Every demo tool declares its output schema on the tool, and answers, over MCP-lite HTTP and MCP, what the
 * listing declares. Over MCP a schema that is not an object's (search_documents' array, generate_report's text) is
 * listed wrapped as `{ result }`, as the answer is sent, and a long-running tool (analyze_dataset) lists none: its
 * result is the promise, its answer comes from `redeem`. Every action of the `documents` webtool answers, over
 * Webtools, what its responseSchema declares, which is the tool's outputSchema; so a lock made over Webtools is
 * accepted over MCP-lite.
 */

const ajv = new Ajv2020({ strict: false, allErrors: true });
((addFormatsModule as any).default ?? addFormatsModule)(ajv);

let t: TestServer;
beforeAll(async () => {
  t = await startServer({ ...serverOptions, tools, answerBudgetMs: 0, mcpInlineWaitMs: 0 });
});
afterAll(() => t.close());

const CALLS: Array<[string, Record<string, unknown>]> = [
  ['echo', { message: 'hello', repeat: 2 }],
  ['get_document', { document_id: 'doc_002' }],
  ['export_documents', { category: 'security', max_rows: 1000 }],
  ['search_documents', { query: 'replication latency', limit: 3 }],
  ['analyze_dataset', { dataset_id: 'security', analysis_type: 'summary' }],
  ['generate_report', { topic: 'quarterly results' }],
];

describe('demo output schemas', () => {
  it.each(CALLS)(
    '%s answers what its outputSchema declares',
    async (name, args) => {
      const listed = (await (await postJson(t.toolsUrl, {})).json()) as { tools: any[] };
      const schema = listed.tools.find((x) => x.name === name).outputSchema;
      expect(schema).toEqual(tools.find((x) => x.name === name)!.outputSchema);
      let body = (await (await postJson(t.rpcUrl, callMessage(name, args))).json()) as any;
      const token = body.result._meta.promise_token;
      if (token) {
        body = (await (
          await postJson(t.rpcUrl, callMessage('redeem', { promise: token, wait_ms: 20_000 }))
        ).json()) as any;
      }
      expect(body.result._meta.response_type).toBe('answer');
      const validate = ajv.compile(schema);
      expect(validate(body.result.content), JSON.stringify(validate.errors)).toBe(true);
    },
    30_000,
  );
});

/** The answers subscribe_digest asks for, given only a category. */
const SUBSCRIBER = { email: 'ada@example.com', frequency: 'weekly' };

/** The value of an answer, after answering an elicitation with SUBSCRIBER when one comes. */
async function answerOf(outcome: CallOutcome): Promise<unknown> {
  const settled = outcome.type === 'elicitation' ? await outcome.answer(SUBSCRIBER) : outcome;
  expect(settled.type, JSON.stringify(settled)).toBe('answer');
  return (settled as { value: unknown }).value;
}

describe('subscribe_digest declares its outputSchema on the tool', () => {
  it('over MCP-lite HTTP: the confirmation after an elicitation matches the listed outputSchema', async () => {
    const client = await connect(t.base);
    try {
      const schema = (await client.listTools()).find((x) => x.name === 'subscribe_digest')!.outputSchema;
      expect(schema).toMatchObject({ type: 'object', required: expect.arrayContaining(['subscription_id']) });
      const first = await client.call('subscribe_digest', { category: 'security' });
      expect(first.type).toBe('elicitation');
      const validate = ajv.compile(schema!);
      const value = await answerOf(first);
      expect(validate(value), JSON.stringify(validate.errors)).toBe(true);
    } finally {
      await client.close();
    }
  });

  it("over MCP: the official SDK client validates the structuredContent against the tool's outputSchema", async () => {
    const sdk = new SdkClient({ name: 'schemas', version: '1.0.0' }, { capabilities: { elicitation: {} } });
    sdk.setRequestHandler(ElicitRequestSchema, async () => ({ action: 'accept', content: SUBSCRIBER }));
    await sdk.connect(new StreamableHTTPClientTransport(new URL(`${t.running.url}/mcp`)));
    try {
      const listed = (await sdk.listTools()).tools.find((x) => x.name === 'subscribe_digest')!;
      expect(listed.outputSchema).toMatchObject({ type: 'object' });
      const result = (await sdk.callTool({
        name: 'subscribe_digest',
        arguments: { category: 'security' },
      })) as {
        structuredContent?: Record<string, unknown>;
        isError?: boolean;
      };
      expect(result.isError).toBeFalsy();
      expect(result.structuredContent).toMatchObject({ subscribed: true, category: 'security' });
      const validate = ajv.compile(listed.outputSchema!);
      expect(validate(result.structuredContent), JSON.stringify(validate.errors)).toBe(true);
    } finally {
      await sdk.close();
    }
  });
});

describe('over MCP: the three tools whose answers are not plain objects', () => {
  let sdk: SdkClient;
  let listed: Map<string, { outputSchema?: Record<string, unknown> }>;
  beforeAll(async () => {
    sdk = new SdkClient({ name: 'schemas', version: '1.0.0' });
    await sdk.connect(new StreamableHTTPClientTransport(new URL(`${t.running.url}/mcp`)));
    // listTools also gives the SDK client the output schemas it checks every callTool against.
    listed = new Map((await sdk.listTools()).tools.map((x) => [x.name, x]));
  });
  afterAll(async () => {
    await sdk.close();
  });

  it("lists a schema that is not an object's wrapped as {result}, and none for a long-running tool", () => {
    for (const name of ['search_documents', 'generate_report']) {
      expect(listed.get(name)!.outputSchema, name).toEqual({
        type: 'object',
        properties: { result: tools.find((x) => x.name === name)!.outputSchema },
        required: ['result'],
      });
    }
    expect(listed.get('analyze_dataset')!.outputSchema).toBeUndefined();
    // Object schemas are listed as they are.
    expect(listed.get('get_document')!.outputSchema).toEqual(
      tools.find((x) => x.name === 'get_document')!.outputSchema,
    );
  });

  it('search_documents: the SDK client accepts {result: hits}, which matches the listed schema', async () => {
    const result = (await sdk.callTool({
      name: 'search_documents',
      arguments: { query: 'replication latency', limit: 3 },
    })) as { structuredContent?: { result?: unknown[] }; isError?: boolean };
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent!.result!.length).toBeGreaterThan(0);
    const validate = ajv.compile(listed.get('search_documents')!.outputSchema!);
    expect(validate(result.structuredContent), JSON.stringify(validate.errors)).toBe(true);
  });

  it('generate_report streamed over SSE (progress notifications): the SDK client accepts {result: text}', async () => {
    const progress: unknown[] = [];
    const result = (await sdk.callTool(
      { name: 'generate_report', arguments: { topic: 'quarterly results' } },
      undefined,
      { onprogress: (p) => progress.push(p), timeout: 25_000 },
    )) as { structuredContent?: { result?: unknown }; isError?: boolean; content: Array<{ text: string }> };
    expect(progress.length).toBeGreaterThan(1);
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent!.result).toEqual(result.content[0]!.text);
    expect(result.structuredContent!.result).toMatch(/^Quarterly Results Report/);
    const validate = ajv.compile(listed.get('generate_report')!.outputSchema!);
    expect(validate(result.structuredContent), JSON.stringify(validate.errors)).toBe(true);
  }, 120_000);

  it('analyze_dataset: the promise keeps its structuredContent, and redeem answers what the tool declares', async () => {
    const started = (await sdk.callTool({
      name: 'analyze_dataset',
      arguments: { dataset_id: 'security', analysis_type: 'summary' },
    })) as { structuredContent?: { promise_token?: string }; isError?: boolean };
    expect(started.isError).toBeFalsy();
    const token = started.structuredContent!.promise_token!;
    expect(token).toEqual(expect.any(String));
    const redeemed = (await sdk.callTool(
      { name: 'redeem', arguments: { promise: token, wait_ms: 20_000 } },
      undefined,
      { timeout: 25_000 },
    )) as { structuredContent?: Record<string, unknown>; isError?: boolean };
    expect(redeemed.isError).toBeFalsy();
    const validate = ajv.compile(tools.find((x) => x.name === 'analyze_dataset')!.outputSchema!);
    expect(validate(redeemed.structuredContent), JSON.stringify(validate.errors)).toBe(true);
  }, 120_000);
});

/** One call per action of the `documents` webtool (1.1.0). */
const ACTION_CALLS: Array<[string, Record<string, unknown>]> = [
  ['search_documents', { query: 'replication latency', limit: 3 }],
  ['get_document', { document_id: 'doc_002' }],
  ['analyze_dataset', { dataset_id: 'security', analysis_type: 'summary' }],
  ['generate_report', { topic: 'quarterly results' }],
  ['export_documents', { category: 'security', max_rows: 1000 }],
  ['subscribe_digest', { category: 'security' }],
];

describe('the documents webtool over Webtools', () => {
  let client: Client;
  let metadata: { actions: Array<{ name: string; responseSchema: Record<string, unknown> }> };
  beforeAll(async () => {
    client = await connect(`${t.running.url}/webtools/documents/`);
    metadata = (await (await fetch(`${t.running.url}/webtools/documents/`)).json()) as typeof metadata;
  });
  afterAll(async () => {
    await client.close();
  });

  it("lists every action with a responseSchema: its tool's outputSchema", () => {
    const own = metadata.actions.filter((a) => a.name !== 'redeem' && a.name !== 'cancel');
    expect(own.map((a) => a.name).sort()).toEqual(ACTION_CALLS.map(([n]) => n).sort());
    for (const action of own) {
      expect(Object.keys(action.responseSchema).length, action.name).toBeGreaterThan(0);
      const tool = tools.find((x) => x.name === action.name)!;
      expect(tool.outputSchema, action.name).toBeDefined();
      expect(action.responseSchema, action.name).toEqual(tool.outputSchema);
    }
  });

  it.each(ACTION_CALLS)(
    '%s answers what its responseSchema declares',
    async (name, args) => {
      const schema = metadata.actions.find((a) => a.name === name)!.responseSchema;
      const value = await answerOf(await client.call(name, args, { timeout: 25_000 }));
      const validate = ajv.compile(schema);
      expect(validate(value), JSON.stringify(validate.errors)).toBe(true);
    },
    30_000,
  );

  it('a lock made over Webtools matches MCP-lite but for the annotations Webtools does not list', async () => {
    const lock = createLock(await client.listTools(), 'webtools');
    const lite = await connect(t.base);
    try {
      const listed = await lite.listTools();
      for (const name of ['search_documents', 'analyze_dataset', 'generate_report']) {
        expect(listed.find((x) => x.name === name)?.outputSchema, name).toBeDefined();
      }
      // Every tool, the system tools included (their empty responseSchema is no schema), is the same but for the
      // annotations, which a lock pins and Webtools actions do not carry (docs/pinning.md, "One lock, one face").
      const withoutHints = listed.map(({ annotations: _a, ...tool }) => tool);
      expect(checkLock(lock, withoutHints).changes).toEqual([]);
      // And a call under that lock goes through, on the face it was made over.
      const pinned = await connect(`${t.running.url}/webtools/documents/`, { lock });
      try {
        const outcome = await pinned.call('search_documents', { query: 'replication latency', limit: 2 });
        expect(outcome.type).toBe('answer');
      } finally {
        await pinned.close();
      }
    } finally {
      await lite.close();
    }
  });
});
