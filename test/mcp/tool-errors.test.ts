/**
 * Issue 22, item 4: over MCP, a tools/call whose arguments fail the input schema or whose handler throws is a
 * tool execution error, answered as a `CallToolResult` with `isError: true` and a text the model can read
 * (SEP-1303, spec 2025-11-25, as both official SDKs do): the validation problems, or for a crash a generic text
 * that carries nothing of the cause. Protocol errors stay JSON-RPC errors: an unknown method, a malformed
 * request, an unknown tool (as the official TypeScript SDK answers it since its fix for unknown tools,
 * modelcontextprotocol/typescript-sdk#1389, -32602), whose message carries the "did you mean" suggestion. A
 * handler reporting the server unavailable keeps its status (test/cross-binding/error-statuses.test.ts).
 *
 * Through the official SDK client on every MCP transport (Streamable HTTP, stdio, WebSocket, legacy HTTP+SSE) and
 * with plain fetch on the stateless 2026-07-28 revision.
 */
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { WebSocketClientTransport } from '@modelcontextprotocol/sdk/client/websocket.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { CallToolResultSchema, EmptyResultSchema, McpError } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { createServer, silentLogger } from '../../src/index.js';
import { type RunningServer, serve } from '../../src/node.js';
import { SECRET, toolErrorTools } from '../support/tool-errors-fixture.js';

/** The SDK's WebSocket transport needs a global WebSocket (Node 20 has none): the `ws` package's, as browsers dispatch. */
class BrowserLikeWebSocket extends WebSocket {
  constructor(url: string | URL, protocols?: string | string[]) {
    super(url, protocols, { allowSynchronousEvents: false });
  }
}
(globalThis as { WebSocket?: unknown }).WebSocket = BrowserLikeWebSocket;

const STDIO_SERVER = fileURLToPath(new URL('../support/tool-errors-stdio-server.ts', import.meta.url));

let running: RunningServer;

beforeAll(async () => {
  // Silent: the crash is logged (with its cause) by design, which is no part of what is tested here.
  running = await serve(createServer({ name: 'tool-errors', tools: toolErrorTools, logger: silentLogger }), {
    port: 0,
  });
});
afterAll(() => running.close(1000));

type ToolResult = { content: Array<{ type: string; text?: string }>; isError?: boolean; _meta?: any };

const textOf = (r: ToolResult) => r.content.map((c) => c.text ?? '').join('\n');

const TRANSPORTS: Array<[string, () => Transport]> = [
  ['Streamable HTTP', () => new StreamableHTTPClientTransport(new URL(`${running.url}/mcp`))],
  [
    'stdio',
    () =>
      new StdioClientTransport({
        command: process.execPath,
        args: ['--import', 'tsx', STDIO_SERVER],
        stderr: 'pipe',
      }),
  ],
  ['WebSocket', () => new WebSocketClientTransport(new URL(`${running.url.replace('http', 'ws')}/mcp`))],
  ['legacy HTTP+SSE', () => new SSEClientTransport(new URL(`${running.url}/sse`))],
];

describe.each(TRANSPORTS)('tool errors through the official SDK client over %s', (_name, transportOf) => {
  let client: Client;

  beforeAll(async () => {
    client = new Client({ name: 'tool-errors-test', version: '1.0.0' });
    await client.connect(transportOf());
  }, 120_000);
  afterAll(() => client.close());

  it('answers arguments that fail the input schema with an isError result naming every problem', async () => {
    const missing = (await client.callTool({ name: 'echo', arguments: { times: 2 } })) as ToolResult;
    expect(missing.isError).toBe(true);
    expect(textOf(missing)).toBe("Invalid arguments: 'message' is required");
    const twice = (await client.callTool({
      name: 'echo',
      arguments: { message: 7, times: 0 },
    })) as ToolResult;
    expect(twice.isError).toBe(true);
    expect(textOf(twice)).toMatch(/'message' must be of type string/);
    expect(textOf(twice)).toMatch(/'times' must be >= 1/);
    expect(twice._meta?.['mcplite/error']).toMatchObject({ code: 'invalid_params' });
  });

  it('answers a crashing handler (synchronous or not) with an isError result that leaks nothing', async () => {
    for (const name of ['crash', 'crash_sync']) {
      const result = (await client.callTool({ name, arguments: {} })) as ToolResult;
      expect(result.isError).toBe(true);
      expect(textOf(result)).toBe('The tool failed with an internal error.');
      const wire = JSON.stringify(result);
      expect(wire).not.toContain('hunter2');
      expect(wire).not.toContain(SECRET);
      expect(wire).not.toMatch(/\bat .*\.ts:\d+/);
    }
    // The server goes on serving.
    const ok = (await client.callTool({ name: 'echo', arguments: { message: 'still here' } })) as ToolResult;
    expect(ok.isError).toBeFalsy();
  });

  it('keeps an unknown tool a JSON-RPC error (-32602) whose message suggests the closest tool', async () => {
    const err = await client.callTool({ name: 'ecko', arguments: {} }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(McpError);
    expect((err as McpError).code).toBe(-32602);
    expect((err as McpError).message).toContain("Tool not found: ecko. Did you mean 'echo'?");
    expect((err as McpError).data).toMatchObject({
      requested_tool: 'ecko',
      suggestion: "Did you mean 'echo'?",
    });
  });

  it('keeps protocol errors JSON-RPC errors: an unknown method, a tools/call without a name', async () => {
    await expect(client.request({ method: 'no/such', params: {} }, EmptyResultSchema)).rejects.toMatchObject({
      code: -32601,
    });
    await expect(
      client.request({ method: 'tools/call', params: { arguments: {} } } as never, CallToolResultSchema),
    ).rejects.toMatchObject({ code: -32602 });
  });
});

describe('tool errors on the stateless revision (2026-07-28)', () => {
  const META = {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientCapabilities': {},
  };
  async function statelessCall(name: string, args: unknown): Promise<{ status: number; body: any }> {
    const res = await fetch(`${running.url}/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'tools/call',
        'mcp-name': name,
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name, arguments: args, _meta: META },
      }),
    });
    return { status: res.status, body: await res.json() };
  }

  it('answers invalid arguments and a crash as isError results, an unknown tool as an error', async () => {
    const invalid = await statelessCall('echo', {});
    expect(invalid.status).toBe(200);
    expect(invalid.body.result).toMatchObject({
      isError: true,
      content: [{ type: 'text', text: "Invalid arguments: 'message' is required" }],
      resultType: 'complete',
    });
    const crash = await statelessCall('crash', {});
    expect(crash.body.result).toMatchObject({
      isError: true,
      content: [{ type: 'text', text: 'The tool failed with an internal error.' }],
    });
    expect(JSON.stringify(crash.body)).not.toContain('hunter2');
    const unknown = await statelessCall('ecko', {});
    expect(unknown.body.error).toMatchObject({
      code: -32602,
      message: "Tool not found: ecko. Did you mean 'echo'?",
    });
  });

  it('keeps a handler that reports the server unavailable a 503 error, not a tool result', async () => {
    const down = await statelessCall('down', {});
    expect(down.status).toBe(503);
    expect(down.body.error.data).toMatchObject({ reason: 'unavailable' });
  });
});
