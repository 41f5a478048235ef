/**
 * The client's resources and prompts API against a real mcplite server on real sockets: the stateless and the
 * handshake MCP revisions, MCP-lite HTTP and gRPC (prompts; resources `method_not_found`), and the listing bound.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, McpLiteError } from '../../src/client/index.js';
import { createServer } from '../../src/create-server.js';
import { type RunningServer, serve } from '../../src/serve.js';

let running: RunningServer;

beforeAll(async () => {
  running = await serve(
    createServer({
      name: 'catalog',
      tools: [{ name: 'noop', handler: () => null }],
      resources: Array.from({ length: 50 }, (_, i) => ({
        uri: `note://n/${i}`,
        name: `note-${i}`,
        description: 'x'.repeat(100),
        read: () => `note ${i}`,
      })),
      resourceTemplates: [{ uriTemplate: 'note://t/{id}', name: 'by-id', read: (uri) => `template ${uri}` }],
      prompts: [
        { name: 'greet', arguments: [{ name: 'who', required: true }], handler: ({ who }) => `hi ${who}` },
      ],
    }),
    { port: 0, host: '127.0.0.1', grpcPort: 0 },
  );
});
afterAll(() => running.close(500));

describe('client resources and prompts', () => {
  for (const mcpRevision of ['stateless', 'handshake'] as const) {
    it(`lists, reads and renders on MCP (${mcpRevision})`, async () => {
      const client = await connect(`${running.url}/mcp`, { mcpRevision });
      try {
        expect(await client.listResources()).toHaveLength(50);
        expect(await client.listResourceTemplates()).toEqual([
          { uriTemplate: 'note://t/{id}', name: 'by-id' },
        ]);
        expect(await client.readResource('note://n/3')).toEqual([{ uri: 'note://n/3', text: 'note 3' }]);
        expect(await client.readResource('note://t/9')).toEqual([
          { uri: 'note://t/9', text: 'template note://t/9' },
        ]);
        await expect(client.readResource('note://none')).rejects.toMatchObject({
          code: 'resource_not_found',
        });
        expect(await client.getPrompt('greet', { who: 'Ada' })).toEqual({
          messages: [{ role: 'user', content: { type: 'text', text: 'hi Ada' } }],
        });
        await expect(client.getPrompt('greet')).rejects.toMatchObject({ code: 'invalid_params' });
      } finally {
        await client.close();
      }
    });
  }

  it('bounds a listing by maxStreamBytes in all', async () => {
    const client = await connect(`${running.url}/mcp`, { maxStreamBytes: 2_000 });
    try {
      const err = await client.listResources().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(McpLiteError);
      expect(err).toMatchObject({ code: 'payload_too_large', data: { bound: 'maxStreamBytes' } });
    } finally {
      await client.close();
    }
  });

  it('serves prompts on MCP-lite HTTP and gRPC, and says method_not_found where the wire has none', async () => {
    const lite = await connect(`${running.url}/mcp-lite/v1/`);
    const grpc = await connect(`grpc://${running.grpc!.address}`);
    try {
      expect((await lite.listPrompts()).map((p) => p.name)).toEqual(['greet']);
      expect((await lite.getPrompt('greet', { who: 'Bo' })).messages[0]?.content).toEqual({
        type: 'text',
        text: 'hi Bo',
      });
      await expect(lite.getPrompt('gret', { who: 'x' })).rejects.toMatchObject({ code: 'prompt_not_found' });
      await expect(lite.readResource('note://n/1')).rejects.toMatchObject({
        code: 'method_not_found',
        data: { binding: 'mcp-lite-http' },
      });
      expect(await grpc.listPrompts()).toEqual(await lite.listPrompts());
      expect(await grpc.getPrompt('greet', { who: 'Bo' })).toEqual(
        await lite.getPrompt('greet', { who: 'Bo' }),
      );
      await expect(grpc.getPrompt('gret', { who: 'x' })).rejects.toMatchObject({ code: 'prompt_not_found' });
      await expect(grpc.readResource('note://n/1')).rejects.toMatchObject({ code: 'method_not_found' });
    } finally {
      await lite.close();
      await grpc.close();
    }
  });
});
