/**
 * MCP-lite prompts (spec 8.1) on every MCP-lite wire give what MCP gives: the demo's prompt listed and rendered
 * through POST {base}/prompts, JSON-RPC prompts/list and prompts/get over HTTP, WebSocket and stdio, and gRPC
 * mcplite.MCPLite GetPrompts/GetPrompt (with a client generated from the shipped proto), each compared with the
 * official MCP SDK client's answer over Streamable HTTP. Composed prompts (one embedding a resource, one embedding
 * another prompt's messages) render the same too.
 */
import { PassThrough } from 'node:stream';
import { credentials, loadPackageDefinition, type ServiceError, status } from '@grpc/grpc-js';
import { loadSync } from '@grpc/proto-loader';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serverOptions, tools } from '../../examples/demo/index.js';
import { defaultProtoPath } from '../../src/bindings/grpc/proto.js';
import { fromStruct } from '../../src/bindings/grpc/struct.js';
import { serveMcpLiteStdio } from '../../src/bindings/mcp-lite/stdio/index.js';
import { createServer, type PromptDefinition, type ToolServer } from '../../src/index.js';
import { type RunningServer, serve } from '../../src/node.js';
import { jsonLines } from '../support/json-lines.js';
import { post, rpc } from '../support/mcp-lite-http.js';
import { connectWs } from '../support/ws-client.js';

/** A composed prompt: a user message with the collection's index embedded as a resource. */
const withIndex: PromptDefinition = {
  name: 'plan_reading',
  description: 'Plans what to read, given the collection index',
  arguments: [{ name: 'goal', description: 'What the reader wants', required: true }],
  handler: async ({ goal }, ctx) => {
    const [index] = await server.resources.read('demo://documents', ctx);
    return [
      { role: 'user', content: { type: 'text', text: `Plan my reading to ${goal}.` } },
      { role: 'user', content: { type: 'resource', resource: index! } },
    ];
  },
};

/** A composed prompt: another prompt's messages, then an assistant turn of its own. */
const review: PromptDefinition = {
  name: 'review_document',
  description: 'Summarizes a document, then asks what to read next',
  arguments: [{ name: 'document_id', required: true }],
  handler: async ({ document_id }, ctx) => {
    const summary = await server.prompts.get('summarize_document', { document_id: document_id! }, ctx);
    return [
      ...summary.messages,
      { role: 'assistant', content: { type: 'text', text: 'What should I read next?' } },
    ];
  },
};

let server: ToolServer;
let running: RunningServer;
let mcp: Client;
const base = () => `${running.url}/mcp-lite/v1`;

beforeAll(async () => {
  server = createServer({ tools, ...serverOptions, prompts: [...serverOptions.prompts, withIndex, review] });
  running = await serve(server, { port: 0, grpcPort: 0 });
  mcp = new Client({ name: 'prompts-test', version: '1.0.0' });
  await mcp.connect(new StreamableHTTPClientTransport(new URL(`${running.url}/mcp`)));
});
afterAll(async () => {
  await mcp?.close();
  await running?.close(1000);
});

/** Every wire's answers: the listing and each rendering, by wire name. */
type Answers = { prompts: unknown; rendered: unknown[] };
const CASES: Array<{ name: string; arguments: Record<string, string> }> = [
  { name: 'summarize_document', arguments: { document_id: 'doc_001' } },
  { name: 'plan_reading', arguments: { goal: 'learn about MCP' } },
  { name: 'review_document', arguments: { document_id: 'doc_002' } },
];

/** A JSON-RPC channel (WebSocket or stdio): the listing and renderings as its results. */
async function overChannel(request: (method: string, params: unknown) => Promise<any>): Promise<Answers> {
  const listed = await request('prompts/list', {});
  const rendered = [];
  for (const c of CASES) rendered.push((await request('prompts/get', c)).result);
  return { prompts: listed.result.prompts, rendered };
}

describe('MCP-lite prompts agree with MCP on every wire', () => {
  it('lists and renders the same over HTTP, JSON-RPC, WebSocket, stdio and gRPC', async () => {
    const expected: Answers = {
      prompts: (await mcp.listPrompts()).prompts,
      rendered: await Promise.all(CASES.map((c) => mcp.getPrompt(c))),
    };
    expect((expected.rendered[1] as any).messages[1].content.resource.uri).toBe('demo://documents');
    // The composed prompt holds the other prompt's message, then its own.
    const reviewed = (expected.rendered[2] as any).messages;
    expect(reviewed.map((m: any) => m.role)).toEqual(['user', 'assistant']);
    const summary = await mcp.getPrompt({
      name: 'summarize_document',
      arguments: { document_id: 'doc_002' },
    });
    expect(reviewed[0]).toEqual(summary.messages[0]);

    // POST {base}/prompts
    const http: Answers = {
      prompts: (await (await post(`${base()}/prompts`, {})).json()).prompts,
      rendered: await Promise.all(CASES.map(async (c) => (await post(`${base()}/prompts`, c)).json())),
    };
    expect(http).toEqual(expected);

    // JSON-RPC on the MCP-lite endpoint
    let id = 0;
    const jsonRpc = await overChannel((method, params) =>
      rpc(`${base()}/rpc`, { jsonrpc: '2.0', id: ++id, method, params }),
    );
    expect(jsonRpc).toEqual(expected);

    // WebSocket
    const ws = await connectWs(`${base().replace('http', 'ws')}/ws`);
    try {
      expect(await overChannel((method, params) => ws.request(method, params))).toEqual(expected);
    } finally {
      ws.ws.close();
    }

    // stdio
    const input = new PassThrough();
    const output = new PassThrough();
    const stdio = serveMcpLiteStdio(server, { input, output });
    const lines = jsonLines(output);
    try {
      const viaStdio = await overChannel((method, params) => {
        const n = ++id;
        input.write(`${JSON.stringify({ jsonrpc: '2.0', id: n, method, params })}\n`);
        return lines.next((m) => m.id === n);
      });
      expect(viaStdio).toEqual(expected);
    } finally {
      input.end();
      stdio.close();
    }

    // gRPC mcplite.MCPLite, a client generated from the shipped proto
    const pkg = loadPackageDefinition(
      loadSync(defaultProtoPath(), { keepCase: true, longs: Number, enums: String, oneofs: true }),
    ) as any;
    const grpc = new pkg.mcplite.MCPLite(running.grpc!.address, credentials.createInsecure());
    const unary = (method: string, request: unknown): Promise<any> =>
      new Promise((resolve, reject) =>
        grpc[method](request, (err: ServiceError | null, reply: any) => (err ? reject(err) : resolve(reply))),
      );
    try {
      const listed = await unary('GetPrompts', {});
      const rendered = [];
      for (const c of CASES) {
        const r = await unary('GetPrompt', c);
        rendered.push({
          description: r.description,
          messages: r.messages.map((m: any) => ({ role: m.role, content: fromStruct(m.content) })),
        });
      }
      expect({ prompts: listed.prompts, rendered }).toEqual(expected);
      const missing = await unary('GetPrompt', { name: 'no_such_prompt' }).catch((e: ServiceError) => e);
      expect(missing.code).toBe(status.NOT_FOUND);
    } finally {
      grpc.close();
    }
  });

  it('an unknown prompt and missing arguments are errors in MCP-lite form', async () => {
    const unknown = await rpc(`${base()}/rpc`, {
      jsonrpc: '2.0',
      id: 1,
      method: 'prompts/get',
      params: { name: 'summarize_documents' },
    });
    expect(unknown.error).toMatchObject({ code: -32602, data: { reason: 'prompt_not_found' } });
    expect(unknown.error!.data.suggestion).toMatch(/summarize_document/);
    const missing = await rpc(`${base()}/rpc`, {
      jsonrpc: '2.0',
      id: 2,
      method: 'prompts/get',
      params: { name: 'summarize_document' },
    });
    expect(missing.error).toMatchObject({ code: -32602 });
    expect((await post(`${base()}/prompts`, { name: 'summarize_documents' })).status).toBe(400);
  });
});
