/**
 * Interop with the official MCP TypeScript SDK client (`@modelcontextprotocol/sdk`) against the demo, over
 * Streamable HTTP and over stdio: listing, calling, a stream with progress, a promise redeemed purely through
 * tools/call, and a cancel that reaches the handler. Plus resources, prompts and completion on the
 * conformance fixture.
 */
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createConformanceFixture } from '../../examples/conformance/fixture.js';
import { serverOptions, tools } from '../../examples/demo/index.js';
import { createServer, type ToolServer } from '../../src/index.js';
import { type RunningServer, serve } from '../../src/node.js';

type ToolResult = {
  content: Array<{ type: string; text?: string }>;
  structuredContent?: any;
  isError?: boolean;
};

function textOf(result: ToolResult): string {
  return result.content.map((c) => c.text ?? '').join('');
}

describe('official SDK client over Streamable HTTP (demo)', () => {
  let server: ToolServer;
  let running: RunningServer;
  let client: Client;
  let transport: StreamableHTTPClientTransport;

  beforeAll(async () => {
    // The promise tests here redeem it: the call answers with the promise at once (no inline wait).
    server = createServer({ ...serverOptions, tools, mcpInlineWaitMs: 0 });
    running = await serve(server, { port: 0 });
    client = new Client({ name: 'interop-test', version: '1.0.0' });
    transport = new StreamableHTTPClientTransport(new URL(`${running.url}/mcp`));
    await client.connect(transport);
  });
  afterAll(async () => {
    await client.close();
    await running.close(1000);
  });

  it('negotiates a revision and gets a session', () => {
    expect(client.getServerVersion()).toMatchObject({ name: 'mcplite-demo' });
    expect(client.getServerCapabilities()?.tools).toBeDefined();
    expect(transport.sessionId).toMatch(/^[\x21-\x7e]+$/);
  });

  it('lists the tools, with the system tools', async () => {
    const { tools: listed } = await client.listTools();
    const names = listed.map((t) => t.name);
    expect(names).toEqual(
      expect.arrayContaining(['search_documents', 'echo', 'generate_report', 'redeem', 'cancel']),
    );
    for (const t of listed) expect(t.inputSchema.type).toBe('object');
  });

  it('calls a tool: text content plus structuredContent', async () => {
    const result = (await client.callTool({
      name: 'echo',
      arguments: { message: 'hi', repeat: 2 },
    })) as ToolResult;
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual({ message: 'hi', repeat: 2 });
    expect(JSON.parse(textOf(result))).toEqual({ message: 'hi', repeat: 2 });
  });

  it('reports an unknown tool as a JSON-RPC error', async () => {
    await expect(client.callTool({ name: 'nope', arguments: {} })).rejects.toThrow(/Tool not found/);
  });

  it('streams partials as progress notifications', async () => {
    const progress: Array<{ progress: number; message?: string }> = [];
    const result = (await client.callTool(
      { name: 'generate_report', arguments: { topic: 'climate' } },
      undefined,
      {
        onprogress: (p) => progress.push(p),
      },
    )) as ToolResult;
    expect(progress.length).toBeGreaterThan(1);
    expect(progress.map((p) => p.progress)).toEqual(progress.map((_, i) => i + 1));
    expect(textOf(result)).toContain('Report');
    expect(progress.map((p) => p.message).join('')).toBe(result.structuredContent.result);
  });

  it('redeems a promise purely through tools/call', async () => {
    const started = (await client.callTool({
      name: 'analyze_dataset',
      arguments: { dataset_id: 'all', analysis_type: 'summary' },
    })) as ToolResult;
    expect(started.isError).toBeFalsy();
    const token = started.structuredContent.promise_token as string;
    expect(textOf(started)).toContain('redeem');
    expect(textOf(started)).toContain(token);
    let redeemed = (await client.callTool({
      name: 'redeem',
      arguments: { promise: token, wait_ms: 15_000 },
    })) as ToolResult;
    for (let i = 0; i < 5 && redeemed.structuredContent?.status === 'pending'; i++) {
      redeemed = (await client.callTool({
        name: 'redeem',
        arguments: { promise: token, wait_ms: 15_000 },
      })) as ToolResult;
    }
    expect(redeemed.isError).toBeFalsy();
    expect(redeemed.structuredContent).toHaveProperty('documents');
  });

  it('cancels a call: the handler is aborted', async () => {
    const controller = new AbortController();
    let sawProgress!: () => void;
    const progressed = new Promise<void>((resolve) => {
      sawProgress = resolve;
    });
    const call = client.callTool({ name: 'generate_report', arguments: { topic: 'climate' } }, undefined, {
      signal: controller.signal,
      onprogress: () => sawProgress(),
    });
    await progressed;
    expect(server.inFlight).toBe(1);
    controller.abort('user cancelled');
    await expect(call).rejects.toThrow();
    await vi.waitFor(() => expect(server.inFlight).toBe(0), { timeout: 60_000 });
  });
});

describe('official SDK client over stdio (demo)', () => {
  let client: Client;

  beforeAll(async () => {
    client = new Client({ name: 'interop-stdio', version: '1.0.0' });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: ['--import', 'tsx', fileURLToPath(new URL('../support/mcp-stdio-server.ts', import.meta.url))],
        stderr: 'pipe',
      }),
    );
  });
  afterAll(async () => {
    await client.close();
  });

  it('lists and calls', async () => {
    const { tools: listed } = await client.listTools();
    expect(listed.map((t) => t.name)).toContain('echo');
    const result = (await client.callTool({
      name: 'echo',
      arguments: { message: 'over stdio' },
    })) as ToolResult;
    expect(result.structuredContent).toEqual({ message: 'over stdio', repeat: 1 });
  });

  it('streams progress and redeems a promise', async () => {
    const progress: number[] = [];
    const report = (await client.callTool(
      { name: 'generate_report', arguments: { topic: 'energy' } },
      undefined,
      {
        onprogress: (p) => progress.push(p.progress),
      },
    )) as ToolResult;
    expect(progress.length).toBeGreaterThan(1);
    expect(textOf(report)).toContain('Report');
    const started = (await client.callTool({
      name: 'analyze_dataset',
      arguments: { dataset_id: 'all', analysis_type: 'summary' },
    })) as ToolResult;
    const token = started.structuredContent.promise_token as string;
    const redeemed = (await client.callTool({
      name: 'redeem',
      arguments: { promise: token, wait_ms: 15_000 },
    })) as ToolResult;
    expect(redeemed.structuredContent).toHaveProperty('documents');
  });

  it('cancels a call', async () => {
    const controller = new AbortController();
    const call = client.callTool({ name: 'generate_report', arguments: { topic: 'climate' } }, undefined, {
      signal: controller.signal,
      onprogress: () => controller.abort('stop'),
    });
    await expect(call).rejects.toThrow();
    // The connection still serves after the cancel.
    const result = (await client.callTool({ name: 'echo', arguments: { message: 'after' } })) as ToolResult;
    expect(result.structuredContent.message).toBe('after');
  });
});

describe('official SDK client: resources, prompts and completion (conformance fixture)', () => {
  let running: RunningServer;
  let client: Client;

  beforeAll(async () => {
    const { server, nativeTools } = createConformanceFixture();
    running = await serve(server, { port: 0, mcp: { nativeTools } });
    client = new Client({ name: 'interop-resources', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${running.url}/mcp`)));
  });
  afterAll(async () => {
    await client.close();
    await running.close(1000);
  });

  it('lists and reads resources and templates', async () => {
    const { resources } = await client.listResources();
    expect(resources.map((r) => r.uri)).toContain('test://static-text');
    const text = await client.readResource({ uri: 'test://static-text' });
    expect(text.contents[0]).toMatchObject({ uri: 'test://static-text', mimeType: 'text/plain' });
    const binary = await client.readResource({ uri: 'test://static-binary' });
    expect(binary.contents[0]).toHaveProperty('blob');
    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates[0]?.uriTemplate).toBe('test://template/{id}/data');
    const templated = await client.readResource({ uri: 'test://template/42/data' });
    expect(JSON.parse((templated.contents[0] as { text: string }).text)).toMatchObject({ id: '42' });
    await expect(client.readResource({ uri: 'test://missing' })).rejects.toThrow(/Resource not found/);
  });

  it('lists and gets prompts, and completes their arguments', async () => {
    const { prompts } = await client.listPrompts();
    expect(prompts.map((p) => p.name)).toContain('test_prompt_with_arguments');
    const got = await client.getPrompt({
      name: 'test_prompt_with_arguments',
      arguments: { arg1: 'a', arg2: 'b' },
    });
    expect(got.messages[0]?.content).toEqual({
      type: 'text',
      text: "Prompt with arguments: arg1='a', arg2='b'",
    });
    const completion = await client.complete({
      ref: { type: 'ref/prompt', name: 'test_prompt_with_arguments' },
      argument: { name: 'arg1', value: 'pa' },
    });
    expect(completion.completion.values).toEqual(['paris', 'park', 'party']);
  });

  it('returns rich content blocks unchanged', async () => {
    const result = (await client.callTool({ name: 'test_image_content', arguments: {} })) as ToolResult;
    expect(result.content[0]).toMatchObject({ type: 'image', mimeType: 'image/png' });
  });
});
