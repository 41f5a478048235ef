/**
 * The MCP-lite gRPC binding over a real port: discovery through server reflection and the standard health
 * service, and serve() starting (or not) a gRPC listener next to HTTP.
 */
import { once } from 'node:events';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { credentials, loadPackageDefinition, status } from '@grpc/grpc-js';
import { loadSync } from '@grpc/proto-loader';
import { protoPath as healthProtoPath } from 'grpc-health-check';
import { describe, expect, it } from 'vitest';
import { createServer } from '../../src/create-server.js';
import { serve } from '../../src/serve.js';
import { makeClient, structToJson, toolRequest, unary } from '../support/grpc-client.js';
import { tools, useGrpcBinding } from './grpc-binding.fixtures.js';

const live = useGrpcBinding();

describe('discovery: reflection and health', () => {
  it('server reflection lists mcplite.MCPLite and serves its descriptor', async () => {
    const require = createRequire(import.meta.url);
    const reflectionRoot = join(dirname(require.resolve('@grpc/reflection')), '../proto');
    const def = loadSync(join(reflectionRoot, 'grpc/reflection/v1/reflection.proto'), {
      keepCase: true,
      oneofs: true,
    });
    const pkg = loadPackageDefinition(def) as any;
    const client = new pkg.grpc.reflection.v1.ServerReflection(
      live.grpc.address,
      credentials.createInsecure(),
    );
    const call = client.ServerReflectionInfo();
    const replies: any[] = [];
    call.on('data', (r: any) => replies.push(r));
    const ended = once(call, 'end');
    call.write({ list_services: '*' });
    call.write({ file_containing_symbol: 'mcplite.MCPLite' });
    call.end();
    await ended;
    client.close();
    const services = replies[0].list_services_response.service.map((s: any) => s.name);
    expect(services).toEqual(expect.arrayContaining(['mcplite.MCPLite', 'grpc.health.v1.Health']));
    const files: Buffer[] = replies[1].file_descriptor_response.file_descriptor_proto;
    expect(files.length).toBeGreaterThan(0);
    expect(Buffer.concat(files).toString('latin1')).toContain('CallToolStream');
  });

  it('the standard health service answers SERVING for the server and for mcplite.MCPLite', async () => {
    const def = loadSync(healthProtoPath, { keepCase: true, enums: String });
    const pkg = loadPackageDefinition(def) as any;
    const client = new pkg.grpc.health.v1.Health(live.grpc.address, credentials.createInsecure());
    for (const service of ['', 'mcplite.MCPLite']) {
      const reply = await new Promise<any>((resolve, reject) =>
        client.Check({ service }, (err: Error | null, r: any) => (err ? reject(err) : resolve(r))),
      );
      expect(reply.status).toBe('SERVING');
    }
    client.close();
  });
});

describe('serve() with grpcPort', () => {
  it('serves HTTP and gRPC together and closes both', async () => {
    const both = createServer({ tools });
    const running = await serve(both, { port: 0, grpcPort: 0 });
    try {
      expect(running.grpc?.port).toBeGreaterThan(0);
      const client = makeClient(running.grpc!.address, 'spec');
      const viaGrpc = await unary(client, 'CallTool', toolRequest('echo', { message: 'g' }));
      expect(structToJson(viaGrpc.response.result)).toEqual({ content: { echo: 'g' } });
      client.close();
      const res = await fetch(`${running.url}/mcp-lite/v1/rpc`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: { name: 'echo', arguments: { message: 'h' } },
        }),
      });
      expect(((await res.json()) as any).result.content).toEqual({ echo: 'h' });
    } finally {
      await running.close(1000);
    }
    const after = makeClient(running.grpc!.address, 'spec');
    const { error } = await unary(after, 'GetTools', {}, { deadlineMs: 2000 });
    expect(error?.code).toBe(status.UNAVAILABLE);
    after.close();
  });

  it('serves no gRPC unless asked', async () => {
    const plain = createServer({ tools });
    const running = await serve(plain, { port: 0 });
    expect(running.grpc).toBeUndefined();
    await running.close(1000);
  });
});
