/**
 * Interop with the official MCP TypeScript SDK v2 client (`@modelcontextprotocol/client`) against the demo over
 * Streamable HTTP: listing (the SDK v2 validates results against the schemas it listed), an answer, a failure as
 * an `isError` result, progress, a long-running call, an elicitation the client answers, an elicitation on a client
 * that declared none (the text fallback, still a valid result for a tool with an output schema), resources,
 * templates and prompts.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serverOptions, tools } from '../../examples/demo/index.js';
import { createServer } from '../../src/index.js';
import { type RunningServer, serve } from '../../src/node.js';

type ToolResult = {
  content: Array<{ type: string; text?: string }>;
  structuredContent?: any;
  isError?: boolean;
};

const textOf = (result: ToolResult) => result.content.map((c) => c.text ?? '').join('');

let running: RunningServer;
beforeAll(async () => {
  running = await serve(createServer({ ...serverOptions, tools }), { port: 0 });
});
afterAll(() => running.close(1000));

async function connectV2(name: string, elicitation: boolean): Promise<Client> {
  const client = new Client(
    { name, version: '1.0.0' },
    { capabilities: elicitation ? { elicitation: { form: {} } } : {} },
  );
  if (elicitation) {
    client.setRequestHandler('elicitation/create', async () => ({
      action: 'accept',
      content: { email: 'ada@example.com', frequency: 'weekly', category: 'security' },
    }));
  }
  await client.connect(new StreamableHTTPClientTransport(new URL(`${running.url}/mcp`)));
  await client.listTools();
  return client;
}

describe('official SDK v2 client over Streamable HTTP (demo)', () => {
  let client: Client;
  beforeAll(async () => {
    client = await connectV2('sdk-v2-interop', true);
  });
  afterAll(() => client.close());

  it('connects and lists the tools with object input schemas', async () => {
    expect(client.getServerVersion()).toMatchObject({ name: 'mcplite-demo' });
    const { tools: listed } = await client.listTools();
    expect(listed.map((t) => t.name)).toEqual(
      expect.arrayContaining(['echo', 'search_documents', 'analyze_dataset', 'subscribe_digest']),
    );
    for (const t of listed) expect(t.inputSchema.type).toBe('object');
  });

  it('gets an answer as text plus structuredContent', async () => {
    const result = (await client.callTool({
      name: 'echo',
      arguments: { message: 'hi', repeat: 2 },
    })) as ToolResult;
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual({ message: 'hi', repeat: 2 });
  });

  it('gets a failure as an isError result the model can read', async () => {
    const result = (await client.callTool({
      name: 'get_document',
      arguments: { document_id: 'doc_does_not_exist' },
    })) as ToolResult;
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/doc_does_not_exist/);
  });

  it('receives progress while a streaming tool runs', async () => {
    const progress: number[] = [];
    const result = (await client.callTool(
      { name: 'generate_report', arguments: { topic: 'climate' } },
      { onprogress: (p: { progress: number }) => progress.push(p.progress) },
    )) as ToolResult;
    expect(progress.length).toBeGreaterThan(1);
    expect(textOf(result)).toContain('Report');
  });

  it('gets a long-running call answered within the inline wait', async () => {
    const result = (await client.callTool({
      name: 'analyze_dataset',
      arguments: { dataset_id: 'all', analysis_type: 'summary' },
    })) as ToolResult;
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toHaveProperty('documents');
  });

  it('answers an elicitation through its handler and gets the confirmation', async () => {
    const result = (await client.callTool({ name: 'subscribe_digest', arguments: {} })) as ToolResult;
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({
      subscribed: true,
      email: 'ada@example.com',
      frequency: 'weekly',
    });
  });

  it('lists and reads resources and templates, and gets a prompt', async () => {
    const { resources } = await client.listResources();
    expect(resources.map((r) => r.uri)).toContain('demo://documents');
    const listing = await client.readResource({ uri: 'demo://documents' });
    expect(listing.contents.length).toBeGreaterThan(0);
    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates.map((t) => t.uriTemplate)).toContain('demo://documents/{document_id}');
    const doc = await client.readResource({ uri: 'demo://documents/doc_001' });
    expect(doc.contents[0]).toMatchObject({ uri: 'demo://documents/doc_001' });
    const prompt = await client.getPrompt({
      name: 'summarize_document',
      arguments: { document_id: 'doc_001' },
    });
    expect(prompt.messages.length).toBeGreaterThan(0);
  });
});

describe('official SDK v2 client that declared no elicitation', () => {
  it('gets the fallback as an isError result carrying the instruction, not a schema error', async () => {
    const client = await connectV2('sdk-v2-no-elicitation', false);
    try {
      const result = (await client.callTool({ name: 'subscribe_digest', arguments: {} })) as ToolResult;
      expect(result.isError).toBe(true);
      expect(textOf(result)).toMatch(/email/);
    } finally {
      await client.close();
    }
  });
});
