/**
 * Spec Appendix A, end to end: the demo served on a real socket, every HTTP example message sent as the spec
 * writes it, and each answer checked against the documented shape. Then the response types Appendix A does not
 * show (elicitation, failure, request-for-more-resource) and cancelling a promise.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serverOptions, tools } from '../examples/demo/index.js';
import { SEARCH_RESULTS_SCHEMA } from '../examples/demo/search-documents.js';
import { createServer, type RunningServer, serve, type ToolServer } from '../src/index.js';
import { callMessage, isIsoTime, post, readSse, rpc } from './support/mcp-lite-http.js';

let server: ToolServer;
let running: RunningServer;
let base: string;

beforeAll(async () => {
  server = createServer({ tools, ...serverOptions });
  running = await serve(server, { port: 0 });
  base = `${running.url}/mcp-lite/v1/`;
});

afterAll(async () => {
  await running?.close(1000);
});

/** The A.1 schema of search_documents, plus the query's maxLength (an unbounded query stalled the loop). */
const SEARCH_SCHEMA = {
  type: 'object',
  required: ['query'],
  properties: {
    query: { type: 'string', description: 'Search query', maxLength: 1000 },
    limit: { type: 'integer', default: 10, minimum: 1, maximum: 100 },
  },
};

/** Checks the `_meta` every result carries (spec 3.3). */
function expectMeta(meta: any, responseType: string): void {
  expect(meta.response_type).toBe(responseType);
  expect(isIsoTime(meta.timestamp)).toBe(true);
  expect(meta.processing_time_ms).toEqual(expect.any(Number));
  expect(meta.server_version).toBe(serverOptions.version);
}

describe('A.1 tool discovery', () => {
  it.each(['tools', 'listtools'])(
    'POST /mcp-lite/v1/%s with {} lists the tools as in A.1',
    async (endpoint) => {
      const res = await post(`${base}${endpoint}`, '{}');
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      const body = (await res.json()) as { tools: any[] };
      expect(Object.keys(body)).toEqual(['tools']);
      const byName = new Map(body.tools.map((t) => [t.name, t]));
      expect(byName.get('redeem')).toMatchObject({
        name: 'redeem',
        '@type': 'system',
        description: expect.stringContaining(
          'Redeem a promise token to get the result of a long-running operation',
        ),
        inputSchema: {
          type: 'object',
          required: ['promise'],
          properties: {
            promise: { type: 'string', description: 'The promise token received from a previous operation' },
          },
        },
      });
      // A.1's listing exactly, plus the output schema the tool declares (issue 11: every action's responseSchema
      // is its tool's outputSchema).
      expect(byName.get('search_documents')).toEqual({
        name: 'search_documents',
        '@type': 'query',
        description: 'Search through available documents',
        inputSchema: SEARCH_SCHEMA,
        outputSchema: SEARCH_RESULTS_SCHEMA,
        annotations: { readOnlyHint: true },
      });
      for (const tool of body.tools) {
        expect(tool.name).toEqual(expect.any(String));
        expect(tool.description).toEqual(expect.any(String));
        expect(tool.inputSchema.type).toBe('object');
      }
      expect([...byName.keys()]).toEqual(
        expect.arrayContaining([
          'analyze_dataset',
          'generate_report',
          'get_document',
          'export_documents',
          'echo',
        ]),
      );
    },
  );
});

describe('A.2 simple tool call', () => {
  it('search_documents "MCP specification" answers { content: [...], _meta } with ranked MCP documents', async () => {
    const body = await rpc(`${base}calltools`, {
      jsonrpc: '2.0',
      id: 'call-001',
      method: 'tools/call',
      params: { name: 'search_documents', arguments: { query: 'MCP specification', limit: 5 } },
    });
    expect(body).toMatchObject({ jsonrpc: '2.0', id: 'call-001' });
    expect(body.error).toBeUndefined();
    const { content, _meta } = body.result!;
    expectMeta(_meta, 'answer');
    expect(content).toHaveLength(5);
    for (const hit of content) {
      expect(hit).toEqual({
        document_id: expect.stringMatching(/^doc_\d{3}$/),
        title: expect.any(String),
        excerpt: expect.any(String),
        score: expect.any(Number),
      });
      expect(`${hit.title} ${hit.excerpt}`).toMatch(/MCP|Model Context Protocol/);
    }
    const scores = content.map((h: { score: number }) => h.score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
  });

  it('applies the schema default: without limit, at most 10 hits', async () => {
    const body = await rpc(
      `${base}calltools`,
      callMessage('call-002', 'search_documents', { query: 'replication latency' }),
    );
    expect(body.result!.content).toHaveLength(10);
  });
});

describe('A.3 promise flow', () => {
  it('analyze_dataset answers a promise; redeem gives a fresh promise while running, then the analysis', async () => {
    const initial = await rpc(`${base}calltools`, {
      jsonrpc: '2.0',
      id: 'analysis-001',
      method: 'tools/call',
      params: {
        name: 'analyze_dataset',
        arguments: { dataset_id: 'large_dataset_001', analysis_type: 'comprehensive' },
      },
    });
    expect(initial.id).toBe('analysis-001');
    expect(Object.keys(initial.result!)).toEqual(['_meta']);
    const meta = initial.result!._meta;
    expectMeta(meta, 'promise');
    expect(meta.promise_token).toMatch(/^prom_[A-Za-z0-9_-]{20,}$/);
    expect(isIsoTime(meta.estimated_completion)).toBe(true);
    expect(Date.parse(meta.estimated_completion)).toBeGreaterThan(Date.parse(meta.timestamp));

    // The redeem message exactly as A.3 writes it: the work takes seconds, so this is another promise.
    const early = await rpc(`${base}calltools`, {
      jsonrpc: '2.0',
      id: 'redeem-001',
      method: 'tools/call',
      params: { name: 'redeem', arguments: { promise: meta.promise_token } },
    });
    expect(early.id).toBe('redeem-001');
    expectMeta(early.result!._meta, 'promise');
    expect(early.result!._meta.promise_token).toBe(meta.promise_token);

    // Then wait on the server for the result instead of polling.
    const final = await rpc(
      `${base}calltools`,
      callMessage('redeem-002', 'redeem', { promise: meta.promise_token, wait_ms: 15_000 }),
    );
    expectMeta(final.result!._meta, 'answer');
    const analysis = final.result!.content;
    expect(analysis).toMatchObject({
      dataset_id: 'large_dataset_001',
      analysis_type: 'comprehensive',
      authors: expect.any(Number),
    });
    expect(analysis.documents).toBeGreaterThanOrEqual(300);
    expect(Object.values(analysis.categories as Record<string, number>).reduce((a, b) => a + b, 0)).toBe(
      analysis.documents,
    );
    expect(Object.keys(analysis.per_category)).toHaveLength(8);
    expect(analysis.top_terms.length).toBeGreaterThan(5);
    expect(analysis.top_terms[0]).toEqual({ term: expect.any(String), count: expect.any(Number) });
    expect(analysis.top_bigrams[0]).toEqual({
      bigram: expect.stringMatching(/^\S+ \S+$/),
      count: expect.any(Number),
    });
    expect(analysis.length.min).toBeLessThanOrEqual(analysis.length.median);
    expect(analysis.length.median).toBeLessThanOrEqual(analysis.length.max);
    const histogramTotal = analysis.length_histogram.reduce(
      (a: number, b: { count: number }) => a + b.count,
      0,
    );
    expect(histogramTotal).toBe(analysis.documents);
  });

  it('an unknown dataset settles as a failure outcome', async () => {
    const initial = await rpc(
      `${base}calltools`,
      callMessage(1, 'analyze_dataset', { dataset_id: 'no_such_dataset', analysis_type: 'summary' }),
    );
    const token = initial.result!._meta.promise_token;
    const final = await rpc(
      `${base}calltools`,
      callMessage(2, 'redeem', { promise: token, wait_ms: 10_000 }),
    );
    expectMeta(final.result!._meta, 'failure');
    expect(final.result!.failure).toMatchObject({
      message: 'No dataset named "no_such_dataset"',
      code: 'unknown_dataset',
      details: { available: expect.arrayContaining(['all', 'protocols', 'finance']) },
    });
  });

  it('cancel aborts a running analysis, and redeem then says it was cancelled', async () => {
    const initial = await rpc(
      `${base}calltools`,
      callMessage(1, 'analyze_dataset', { dataset_id: 'all', analysis_type: 'comprehensive' }),
    );
    const token = initial.result!._meta.promise_token;
    const cancelled = await rpc(`${base}calltools`, callMessage(2, 'cancel', { promise: token }));
    expectMeta(cancelled.result!._meta, 'answer');
    expect(cancelled.result!.content).toEqual({ promise: token, cancelled: true, status: 'cancelled' });
    const redeemed = await rpc(
      `${base}calltools`,
      callMessage(3, 'redeem', { promise: token, wait_ms: 5000 }),
    );
    expectMeta(redeemed.result!._meta, 'failure');
    expect(redeemed.result!.failure).toMatchObject({ code: 'cancelled' });
    // Cancelling again is harmless and reports the state.
    const again = await rpc(`${base}calltools`, callMessage(4, 'cancel', { promise: token }));
    expect(again.result!.content).toEqual({ promise: token, cancelled: false, status: 'cancelled' });
  });
});

describe('A.4 streaming', () => {
  it('generate_report with Accept: text/event-stream sends message partials, then one done with _meta', async () => {
    const res = await post(
      `${base}rpc`,
      {
        jsonrpc: '2.0',
        id: 'stream-001',
        method: 'tools/call',
        params: { name: 'generate_report', arguments: { topic: 'quarterly results' } },
      },
      { accept: 'text/event-stream' },
    );
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const events = (await readSse(res)).filter((e) => e.event !== 'heartbeat');
    const messages = events.filter((e) => e.event === 'message');
    expect(messages.length).toBeGreaterThanOrEqual(3);
    for (const m of messages) expect(m.data).toEqual({ partial: expect.any(String) });
    expect(messages[0]!.data.partial).toBe('Quarterly Results Report\n\nExecutive Summary');
    expect(messages[1]!.data.partial).toMatch(/^\n\n\d+ documents from .*finance/);

    expect(events.filter((e) => e.event === 'done')).toHaveLength(1);
    const done = events.at(-1)!;
    expect(done.event).toBe('done');
    expectMeta(done.data._meta, 'answer');
    const report = messages.map((m) => m.data.partial).join('');
    expect(done.data.content).toBe(report);
    expect(report).toContain('Key Findings');
    expect(report).toMatch(/Sources\n\n- doc_\d{3} /);
  });

  it('without Accept: text/event-stream the same call is one JSON answer with the whole report', async () => {
    const body = await rpc(`${base}rpc`, callMessage('r', 'generate_report', { topic: 'quarterly results' }));
    expectMeta(body.result!._meta, 'answer');
    expect(body.result!.content).toMatch(/^Quarterly Results Report\n\nExecutive Summary\n\n/);
  });
});

describe('A.5 error handling', () => {
  it('an unknown tool is -32601 "Tool not found" with the requested tool, the available tools and a suggestion', async () => {
    const body = await rpc(`${base}calltools`, callMessage('error-example', 'nonexistent_tool', {}));
    expect(body.result).toBeUndefined();
    expect(body).toMatchObject({ jsonrpc: '2.0', id: 'error-example' });
    expect(body.error).toMatchObject({ code: -32601, message: 'Tool not found' });
    expect(body.error!.data).toEqual({
      requested_tool: 'nonexistent_tool',
      available_tools: expect.arrayContaining(['redeem', 'search_documents', 'analyze_dataset']),
      suggestion: expect.any(String),
    });
  });

  it('a near miss gets a did-you-mean suggestion', async () => {
    const body = await rpc(`${base}calltools`, callMessage(1, 'search_document', { query: 'x' }));
    expect(body.error!.data.suggestion).toBe("Did you mean 'search_documents'?");
  });

  it('invalid arguments are -32602 naming the field', async () => {
    const body = await rpc(
      `${base}calltools`,
      callMessage(1, 'search_documents', { query: 'x', limit: 500 }),
    );
    expect(body.error!.code).toBe(-32602);
    expect(JSON.stringify(body.error!.data)).toContain('limit');
  });
});

describe('the other response types', () => {
  it('subscribe_digest elicits what is missing, then confirms with the answers and the signed state', async () => {
    const first = await rpc(`${base}calltools`, callMessage(1, 'subscribe_digest', { category: 'security' }));
    expectMeta(first.result!._meta, 'elicitation');
    const { elicitation } = first.result!;
    expect(elicitation.message).toMatch(/email/);
    expect(elicitation.requested_schema).toEqual({
      type: 'object',
      properties: {
        email: expect.objectContaining({ type: 'string', format: 'email' }),
        frequency: expect.objectContaining({ enum: ['daily', 'weekly'] }),
      },
      required: ['email', 'frequency'],
    });
    expect(elicitation.state).toEqual(expect.any(String));

    // An answer that does not satisfy the requested schema is refused.
    const bad = await rpc(
      `${base}calltools`,
      callMessage(
        2,
        'subscribe_digest',
        {},
        {
          elicitation: { state: elicitation.state, answers: { email: 'not an email', frequency: 'weekly' } },
        },
      ),
    );
    expect(bad.error!.code).toBe(-32602);

    // The second round carries only the answers: the category comes back from the signed context.
    const second = await rpc(
      `${base}calltools`,
      callMessage(
        3,
        'subscribe_digest',
        {},
        {
          elicitation: {
            state: elicitation.state,
            answers: { email: 'ada@example.com', frequency: 'weekly' },
          },
        },
      ),
    );
    expectMeta(second.result!._meta, 'answer');
    expect(second.result!.content).toMatchObject({
      subscribed: true,
      subscription_id: expect.stringMatching(/^sub_[0-9a-f]{12}$/),
      email: 'ada@example.com',
      category: 'security',
      frequency: 'weekly',
    });
  });

  it('subscribe_digest asks for the category too when it is missing', async () => {
    const first = await rpc(
      `${base}calltools`,
      callMessage(1, 'subscribe_digest', { email: 'ada@example.com' }),
    );
    expect(first.result!.elicitation.requested_schema.required).toEqual(['frequency', 'category']);
  });

  it('a forged elicitation state is refused', async () => {
    const body = await rpc(
      `${base}calltools`,
      callMessage(
        1,
        'subscribe_digest',
        {},
        {
          elicitation: {
            state: 'eyJ0b29sIjoic3Vic2NyaWJlX2RpZ2VzdCJ9.AAAA',
            answers: { email: 'a@b.co', frequency: 'daily' },
          },
        },
      ),
    );
    expect(body.error!.code).toBe(-32602);
  });

  it('get_document answers a document, and an unknown id is a failure outcome (not a protocol error)', async () => {
    const found = await rpc(`${base}calltools`, callMessage(1, 'get_document', { document_id: 'doc_001' }));
    expectMeta(found.result!._meta, 'answer');
    expect(found.result!.content).toMatchObject({ document_id: 'doc_001', title: expect.any(String) });

    const missing = await rpc(`${base}calltools`, callMessage(2, 'get_document', { document_id: 'doc_999' }));
    expect(missing.error).toBeUndefined();
    expectMeta(missing.result!._meta, 'failure');
    expect(missing.result!.failure).toMatchObject({
      message: expect.stringContaining('doc_999'),
      code: 'not_found',
    });
  });

  it('export_documents asks for more rows when the category does not fit, and answers when it does', async () => {
    const tooMany = await rpc(`${base}calltools`, callMessage(1, 'export_documents', { category: 'all' }));
    expectMeta(tooMany.result!._meta, 'request-for-more-resource');
    const request = tooMany.result!.resource_request;
    expect(request).toEqual({
      resource: 'rows',
      requested: expect.any(Number),
      granted: 50,
      unit: 'documents',
      message: expect.stringContaining('max_rows'),
    });
    expect(request.requested).toBeGreaterThan(50);

    const enough = await rpc(
      `${base}calltools`,
      callMessage(2, 'export_documents', { category: 'all', max_rows: request.requested }),
    );
    expectMeta(enough.result!._meta, 'answer');
    expect(enough.result!.content.rows).toHaveLength(request.requested);

    const small = await rpc(`${base}calltools`, callMessage(3, 'export_documents', { category: 'finance' }));
    expect(small.result!.content.count).toBe(small.result!.content.rows.length);
  });

  it('echo returns its input', async () => {
    const body = await rpc(`${base}calltools`, callMessage(1, 'echo', { message: 'hello', repeat: 3 }));
    expect(body.result!.content).toEqual({ message: 'hello', repeat: 3 });
  });
});
