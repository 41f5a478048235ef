/**
 * The inspector's local API through the universal client, against a live demo server over gRPC, MCP and stdio:
 * listing, calls with partials, protocol errors, elicitations and promises.
 */
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serverOptions, tools } from '../../examples/demo/index.js';
import { listenNode, type NodeListening } from '../../src/adapters/node.js';
import { createServer } from '../../src/create-server.js';
import { createInspector, type InspectorTarget } from '../../src/inspector/index.js';
import { inspectorTarget } from '../../src/inspector/targets/index.js';
import { type RunningServer, serve } from '../../src/serve.js';
import { events, send } from './inspector.fixtures.js';

describe.each(['grpc', 'mcp', 'stdio'] as const)(
  'inspector API through the universal client (%s)',
  (binding) => {
    let demo: RunningServer;
    let listening: NodeListening;
    let port: number;
    let token: string;
    let inspected: InspectorTarget;
    const post = async (route: string, body: unknown) =>
      events(
        (
          await send(
            port,
            'POST',
            `/inspector/api/${route}`,
            { 'x-mcplite-inspector': token, 'content-type': 'application/json' },
            JSON.stringify(body),
          )
        ).body,
      );

    beforeAll(async () => {
      demo = await serve(createServer({ ...serverOptions, tools, mcpInlineWaitMs: 0 }), {
        port: 0,
        grpcPort: 0,
      });
      const target =
        binding === 'grpc'
          ? `grpc://${demo.grpc!.address}`
          : binding === 'mcp'
            ? `${demo.url}/mcp`
            : `${process.execPath} --import tsx ${fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url))} serve --demo --stdio --mcp-inline-wait 0`;
      inspected = await inspectorTarget(target);
      const inspector = createInspector({ target: inspected });
      token = inspector.token;
      listening = await listenNode(inspector.handler, { port: 0 });
      port = (listening.server.address() as AddressInfo).port;
    });

    afterAll(async () => {
      await listening?.close();
      await inspected?.close();
      await demo?.close(500);
    });

    it('lists, calls with partials, shows protocol errors, and continues an elicitation', async () => {
      const listed = JSON.parse(
        (await send(port, 'GET', '/inspector/api/tools', { 'x-mcplite-inspector': token })).body,
      );
      expect(listed.binding).toBe(binding);
      expect(listed.tools.map((t: { name: string }) => t.name)).toContain('generate_report');

      const streamed = await post('call', { tool: 'generate_report', arguments: { topic: 'security' } });
      expect(streamed[0]!.data.request).toMatchObject({ via: 'mcplite/client', binding, operation: 'call' });
      expect(streamed.filter((e) => e.event === 'partial').length).toBeGreaterThan(2);
      expect(streamed.at(-1)!.data.outcome.type).toBe('answer');

      const invalid = (await post('call', { tool: 'echo', arguments: { message: 'x', repeat: 20 } })).at(
        -1,
      )!.data;
      expect(invalid.outcome.type).toBe('error');
      expect(JSON.stringify(invalid.outcome.error)).toContain('repeat');

      const asked = (
        await post('call', { tool: 'subscribe_digest', arguments: { category: 'security' } })
      ).at(-1)!.data;
      expect(asked.outcome.type).toBe('elicitation');
      const values = { email: 'b@example.com', frequency: 'weekly' };
      const done = (await post('answer', { id: asked.elicitationId, values })).at(-1)!.data;
      expect(done.outcome).toMatchObject({
        type: 'answer',
        result: { subscribed: true, email: 'b@example.com' },
      });
    });

    it('shows a promise and redeems it', async () => {
      const called = await post('call', {
        tool: 'analyze_dataset',
        arguments: { dataset_id: 'security', analysis_type: 'summary' },
      });
      const promise = called.at(-1)!.data.outcome;
      expect(promise.type).toBe('promise');
      expect(promise.token).toMatch(/prom_/);
      let outcome = promise;
      for (let i = 0; i < 20 && outcome.type === 'promise'; i++) {
        await new Promise((r) => setTimeout(r, 300));
        outcome = (await post('redeem', { token: promise.token })).at(-1)!.data.outcome;
      }
      expect(outcome).toMatchObject({ type: 'answer', result: { documents: expect.any(Number) } });
    });
  },
);

describe('inspector API through the universal client (mcp-grpc: MCP over gRPC)', () => {
  let demo: RunningServer;
  let listening: NodeListening;
  let port: number;
  let token: string;
  let inspected: InspectorTarget;
  const post = async (route: string, body: unknown) =>
    events(
      (
        await send(
          port,
          'POST',
          `/inspector/api/${route}`,
          { 'x-mcplite-inspector': token, 'content-type': 'application/json' },
          JSON.stringify(body),
        )
      ).body,
    );

  beforeAll(async () => {
    demo = await serve(createServer({ ...serverOptions, tools, mcpInlineWaitMs: 0 }), {
      port: 0,
      grpcPort: 0,
    });
    // The target names the service, as `mcplite inspect grpc://host:port/model_context_protocol.Mcp` does.
    inspected = await inspectorTarget(`grpc://${demo.grpc!.address}/model_context_protocol.Mcp`);
    const inspector = createInspector({ target: inspected });
    token = inspector.token;
    listening = await listenNode(inspector.handler, { port: 0 });
    port = (listening.server.address() as AddressInfo).port;
  });

  afterAll(async () => {
    await listening?.close();
    await inspected?.close();
    await demo?.close(500);
  });

  it('lists and calls the tools, and continues an elicitation', async () => {
    const listed = JSON.parse(
      (await send(port, 'GET', '/inspector/api/tools', { 'x-mcplite-inspector': token })).body,
    );
    expect(listed.binding).toBe('mcp-grpc');
    expect(listed.tools.map((t: { name: string }) => t.name)).toContain('echo');

    const called = await post('call', { tool: 'echo', arguments: { message: 'hi', repeat: 2 } });
    const echoed = called.at(-1)!.data;
    expect(called[0]!.data.request).toMatchObject({
      via: 'mcplite/client',
      binding: 'mcp-grpc',
      operation: 'call',
    });
    expect(echoed.outcome).toMatchObject({ type: 'answer', result: { message: 'hi', repeat: 2 } });

    const asked = (await post('call', { tool: 'subscribe_digest', arguments: { category: 'security' } })).at(
      -1,
    )!.data;
    expect(asked.outcome.type).toBe('elicitation');
    const values = { email: 'g@example.com', frequency: 'daily' };
    const done = (await post('answer', { id: asked.elicitationId, values })).at(-1)!.data;
    expect(done.outcome).toMatchObject({
      type: 'answer',
      result: { subscribed: true, email: 'g@example.com' },
    });
  });
});
