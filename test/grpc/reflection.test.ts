/**
 * gRPC server reflection serves descriptors strict tooling accepts (issue 9; grpc/grpc-node#3034): a client that
 * knows only the address resolves mcplite.MCPLite purely from reflection into a strict registry, then calls it
 * with the grpcurl requests of docs/bindings.md, typed as protobuf JSON. Before the fix, mcplite.proto came back with no
 * dependencies and the Struct types in a made-up `google_protobuf.proto`, and the registry refused it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serverOptions, tools } from '../../examples/demo/index.js';
import { createServer } from '../../src/index.js';
import { type RunningServer, serve } from '../../src/node.js';
import { callJson, type Reflected, reflect } from '../support/reflection-client.js';

let running: RunningServer;
let address: string;
let reflected: Reflected;

beforeAll(async () => {
  running = await serve(createServer({ tools, ...serverOptions }), { port: 0, grpcPort: 0 });
  address = running.grpc!.address;
  reflected = await reflect(address, 'mcplite.MCPLite');
});
afterAll(() => running.close(1000));

describe('gRPC reflection, as grpcurl uses it', () => {
  it('lists the services and serves mcplite.proto with its real import', () => {
    expect(reflected.services).toEqual(expect.arrayContaining(['mcplite.MCPLite', 'grpc.health.v1.Health']));
    expect(reflected.files).toEqual(
      expect.arrayContaining(['mcplite.proto', 'google/protobuf/struct.proto']),
    );
    expect(reflected.files).not.toContain('google_protobuf.proto');
    const file = reflected.registry.getFile('mcplite.proto')!;
    expect(file.dependencies.map((d) => d.proto.name)).toEqual(['google/protobuf/struct.proto']);
    expect(reflected.service.methods.map((m) => m.name)).toEqual([
      'GetTools',
      'CallTool',
      'CallToolStream',
      'GetPrompts',
      'GetPrompt',
    ]);
  });

  it('grpcurl ... mcplite.MCPLite/GetTools', async () => {
    const { reply, error } = await callJson(address, reflected, 'GetTools', {});
    expect(error).toBeUndefined();
    const names = (reply as { tools: Array<{ name: string }> }).tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['search_documents', 'redeem']));
  });

  it(`grpcurl -d '{"name":"search_documents","arguments":{...}}' ... mcplite.MCPLite/CallTool`, async () => {
    const { reply, error } = await callJson(address, reflected, 'CallTool', {
      name: 'search_documents',
      arguments: { query: 'MCP specification', limit: 3 },
    });
    expect(error).toBeUndefined();
    const r = reply as { result: { content: Array<{ title: string }> }; meta: { responseType?: string } };
    expect(r.result.content).toHaveLength(3);
    expect(r.result.content[0]!.title).toMatch(/MCP/);
    // ANSWER is the enum's zero value, which protobuf JSON leaves out.
    expect(r.meta.responseType ?? 'ANSWER').toBe('ANSWER');
  });

  it(`grpcurl -d '{"name":"echo","arguments":{"message":"hi"}}' ... mcplite.MCPLite/CallTool (docs/grpc.md)`, async () => {
    const { reply } = await callJson(address, reflected, 'CallTool', {
      name: 'echo',
      arguments: { message: 'hi' },
    });
    expect((reply as { result: { content: unknown } }).result.content).toMatchObject({ message: 'hi' });
  });
});
