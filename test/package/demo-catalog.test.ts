/**
 * `mcplite serve --demo` has something besides tools for a client to show: a resource (the collection's index),
 * a resource template (a document by id, with completion) and a prompt (summarize a document), seen through the
 * official MCP SDK's client over Streamable HTTP, and through mcplite's own client over MCP-lite HTTP.
 */
import { Client as SdkClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect } from '../../src/client/index.js';
import { children, type ListeningCli, start } from '../support/cli-process.js';

let demo: ListeningCli;
let sdk: SdkClient;

/** The text of a read's first contents (the demo's resources are text). */
function textOf(read: { contents: object[] }): string {
  const first = read.contents[0]!;
  expect(first).toHaveProperty('text');
  return String((first as { text: unknown }).text);
}

beforeAll(async () => {
  demo = await start(['--demo']);
  sdk = new SdkClient({ name: 'demo-catalog-test', version: '1.0.0' });
  await sdk.connect(new StreamableHTTPClientTransport(new URL(new URL('/mcp', demo.base))));
}, 120_000);

afterAll(async () => {
  await sdk?.close();
  for (const child of children) child.kill('SIGKILL');
});

describe('serve --demo: resources and prompts', () => {
  it('declares resources and prompts, and lists the index, the template and the prompt', async () => {
    expect(sdk.getServerCapabilities()).toMatchObject({ resources: {}, prompts: {} });
    const { resources } = await sdk.listResources();
    expect(resources).toEqual([
      expect.objectContaining({ uri: 'demo://documents', name: 'documents', mimeType: 'application/json' }),
    ]);
    const { resourceTemplates } = await sdk.listResourceTemplates();
    expect(resourceTemplates).toEqual([
      expect.objectContaining({ uriTemplate: 'demo://documents/{document_id}', mimeType: 'text/markdown' }),
    ]);
    const { prompts } = await sdk.listPrompts();
    expect(prompts).toEqual([
      expect.objectContaining({
        name: 'summarize_document',
        arguments: [expect.objectContaining({ name: 'document_id', required: true })],
      }),
    ]);
  });

  it('reads the index and a document through the template; an unknown id is resource-not-found', async () => {
    const index = await sdk.readResource({ uri: 'demo://documents' });
    const counts = JSON.parse(textOf(index)) as {
      documents: number;
      categories: Array<{ name: string; documents: number }>;
    };
    expect(counts.documents).toBeGreaterThan(100);
    expect(counts.categories.reduce((sum, c) => sum + c.documents, 0)).toBe(counts.documents);

    const doc = await sdk.readResource({ uri: 'demo://documents/doc_001' });
    expect(doc.contents[0]).toMatchObject({ uri: 'demo://documents/doc_001', mimeType: 'text/markdown' });
    expect(textOf(doc)).toMatch(/^# \S/);

    const missing = await sdk.readResource({ uri: 'demo://documents/doc_999999' }).catch((e: unknown) => e);
    expect(missing).toMatchObject({ message: expect.stringContaining('demo://documents/doc_999999') });
  });

  it("completes the template's and the prompt's document_id", async () => {
    const byTemplate = await sdk.complete({
      ref: { type: 'ref/resource', uri: 'demo://documents/{document_id}' },
      argument: { name: 'document_id', value: 'doc_00' },
    });
    expect(byTemplate.completion.values).toContain('doc_001');
    expect(byTemplate.completion.values.every((id) => id.startsWith('doc_00'))).toBe(true);
    const byPrompt = await sdk.complete({
      ref: { type: 'ref/prompt', name: 'summarize_document' },
      argument: { name: 'document_id', value: 'doc_01' },
    });
    expect(byPrompt.completion.values).toContain('doc_010');
  });

  it('renders the prompt with the document, and refuses an unknown id', async () => {
    const rendered = await sdk.getPrompt({
      name: 'summarize_document',
      arguments: { document_id: 'doc_001' },
    });
    expect(rendered.messages).toHaveLength(1);
    expect(rendered.messages[0]).toMatchObject({ role: 'user', content: { type: 'text' } });
    const doc = await sdk.readResource({ uri: 'demo://documents/doc_001' });
    expect((rendered.messages[0]!.content as { text: string }).text).toContain(textOf(doc));
    const refused = await sdk
      .getPrompt({ name: 'summarize_document', arguments: { document_id: 'nope' } })
      .catch((e: unknown) => e);
    expect(refused).toMatchObject({ code: -32602 });
  });

  it("mcplite's client over MCP-lite HTTP renders the same prompt", async () => {
    const client = await connect(demo.base);
    try {
      expect(client.binding).toBe('mcp-lite-http');
      const rendered = await client.getPrompt('summarize_document', { document_id: 'doc_002' });
      expect(JSON.stringify(rendered.messages)).toContain('Summarize this document');
    } finally {
      await client.close();
    }
  });
});
