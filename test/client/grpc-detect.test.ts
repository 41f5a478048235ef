/**
 * A bare grpc://host:port names no service: the client asks the server which of the two it serves. mcplite's own
 * server (both services) is MCP-lite gRPC; a server of model_context_protocol.Mcp alone, as Google's reference
 * server is, is MCP over gRPC; a server of neither is MCP-lite, whose first call says what is wrong.
 */
import { Server, ServerCredentials } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createMcpGrpcService } from '../../src/bindings/grpc/index.js';
import { connect } from '../../src/client/index.js';
import { createServer, defineTool } from '../../src/index.js';
import { type RunningServer, serve } from '../../src/node.js';

const tools = [
  defineTool({
    name: 'add',
    description: 'Adds two numbers',
    inputSchema: z.object({ a: z.number(), b: z.number() }),
    handler: ({ a, b }) => a + b,
  }),
];

function listen(server: Server): Promise<number> {
  return new Promise((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', ServerCredentials.createInsecure(), (err, port) =>
      err ? reject(err) : resolve(port),
    ),
  );
}

let both: RunningServer;
const mcpOnly = new Server();
const neither = new Server();
let mcpOnlyPort: number;
let neitherPort: number;

beforeAll(async () => {
  both = await serve(createServer({ tools }), { port: 0, grpcPort: 0 });
  const service = createMcpGrpcService(createServer({ tools }));
  mcpOnly.addService(service.service, service.implementation);
  mcpOnlyPort = await listen(mcpOnly);
  neitherPort = await listen(neither);
});

afterAll(async () => {
  await both?.close();
  mcpOnly.forceShutdown();
  neither.forceShutdown();
});

describe('a bare grpc:// target', () => {
  it('is MCP-lite gRPC on a server of both services', async () => {
    const client = await connect(`grpc://127.0.0.1:${both.grpc!.port}`);
    try {
      expect(client.binding).toBe('grpc');
      expect((await client.call('add', { a: 2, b: 3 })).type).toBe('answer');
    } finally {
      await client.close();
    }
  });

  it('is MCP over gRPC on a server of model_context_protocol.Mcp alone', async () => {
    const client = await connect(`grpc://127.0.0.1:${mcpOnlyPort}/`);
    try {
      expect(client.binding).toBe('mcp-grpc');
      expect((await client.listTools()).map((t) => t.name)).toEqual(['add']);
      const outcome = await client.call('add', { a: 2, b: 3 });
      expect(outcome).toMatchObject({ type: 'answer' });
      expect(JSON.stringify(outcome)).toContain('5');
    } finally {
      await client.close();
    }
  });

  it('is MCP-lite on a server of neither, whose first call says method not found', async () => {
    const client = await connect(`grpc://127.0.0.1:${neitherPort}`);
    try {
      expect(client.binding).toBe('grpc');
      await expect(client.listTools()).rejects.toMatchObject({ code: 'method_not_found' });
    } finally {
      await client.close();
    }
  });

  it('keeps the binding a path or the option names, asking nothing', async () => {
    const client = await connect(`grpc://127.0.0.1:${mcpOnlyPort}`, { binding: 'grpc' });
    try {
      expect(client.binding).toBe('grpc');
    } finally {
      await client.close();
    }
  });
});
