/**
 * Spec Appendix A, end to end: the demo served on a real socket, every HTTP example message of A.1 (tool
 * discovery), A.2 (simple tool call), A.4 (streaming) and A.5 (error handling) sent as the spec writes it, and each
 * answer checked against the documented shape. A.3: `test/cross-binding/appendix-a-promises.test.ts`; the response types
 * Appendix A does not show: `test/cross-binding/appendix-a-response-types.test.ts`.
 */
import { describe, expect, it } from 'vitest';
import { SEARCH_RESULTS_SCHEMA } from '../../examples/demo/search-documents.js';
import { base, expectMeta, serveDemo } from '../support/appendix-a.js';
import { callMessage, post, readSse, rpc } from '../support/mcp-lite-http.js';

serveDemo();

/** The A.1 schema of search_documents, plus the query's maxLength (an unbounded query stalled the loop). */
const SEARCH_SCHEMA = {
  type: 'object',
  required: ['query'],
  properties: {
    query: { type: 'string', description: 'Search query', maxLength: 1000 },
    limit: { type: 'integer', default: 10, minimum: 1, maximum: 100 },
  },
};

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
  it('an unknown tool is -32601 "Tool not found: <name>. <suggestion>" with the requested tool, the available tools and a suggestion', async () => {
    const body = await rpc(`${base}calltools`, callMessage('error-example', 'nonexistent_tool', {}));
    expect(body.result).toBeUndefined();
    expect(body).toMatchObject({ jsonrpc: '2.0', id: 'error-example' });
    expect(body.error).toMatchObject({
      code: -32601,
      message: 'Tool not found: nonexistent_tool. No tool has a similar name: list the tools to pick one.',
    });
    expect(body.error!.data).toEqual({
      requested_tool: 'nonexistent_tool',
      available_tools: expect.arrayContaining(['redeem', 'search_documents', 'analyze_dataset']),
      suggestion: expect.any(String),
    });
  });

  it('a near miss gets a did-you-mean suggestion', async () => {
    const body = await rpc(`${base}calltools`, callMessage(1, 'search_document', { query: 'x' }));
    expect(body.error!.data.suggestion).toBe("Did you mean 'search_documents'?");
    expect(body.error!.message).toBe("Tool not found: search_document. Did you mean 'search_documents'?");
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
