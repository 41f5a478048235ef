/**
 * One error model over every binding, through real sockets: a tool that reports the server unavailable or a
 * bound reached gets the same answer class on MCP-lite HTTP, /mcp (both kinds of revision) and gRPC, and a
 * handler that throws is logged exactly once, whichever binding ran it.
 */
import { status } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, McpLiteError } from '../../src/index.js';
import { type RunningServer, serve } from '../../src/node.js';
import { makeClient, toolRequest, unary } from '../support/grpc-client.js';

const logged: Array<{ obj: unknown; msg: string | undefined }> = [];
const logger = {
  debug() {},
  info() {},
  warn() {},
  error(obj: unknown, msg?: string) {
    logged.push({ obj, msg });
  },
  child() {
    return logger;
  },
};

let running: RunningServer;

beforeAll(async () => {
  const server = createServer({
    logger,
    tools: [
      {
        name: 'down',
        handler: () => {
          throw new McpLiteError('unavailable', 'The store is unreachable');
        },
      },
      {
        name: 'full',
        handler: () => {
          throw new McpLiteError('resource_exhausted', 'Too many outstanding promises');
        },
      },
      {
        name: 'broken',
        handler: () => {
          throw new Error('secret detail');
        },
      },
    ],
  });
  running = await serve(server, { port: 0, grpcPort: 0 });
});
afterAll(() => running.close(1000));

const call = (name: string) => ({
  jsonrpc: '2.0',
  id: 7,
  method: 'tools/call',
  params: { name, arguments: {} },
});
const STATELESS = {
  'mcp-protocol-version': '2026-07-28',
  'mcp-method': 'tools/call',
};
const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
};

async function post(path: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${running.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  return { status: res.status, json: await res.json() };
}

describe.each([
  ['down', 503, -32603, status.UNAVAILABLE],
  ['full', 429, -32004, status.RESOURCE_EXHAUSTED],
] as const)('a tool that throws as %s', (tool, httpStatus, rpcCode, grpcStatus) => {
  it('gets the same status on MCP-lite HTTP, on /mcp (handshake and stateless) and on gRPC', async () => {
    const lite = await post('/mcp-lite/v1/rpc', call(tool));
    expect([lite.status, lite.json.error.code]).toEqual([httpStatus, rpcCode]);
    const handshake = await post('/mcp', call(tool), { 'mcp-protocol-version': '2025-06-18' });
    expect([handshake.status, handshake.json.error.code]).toEqual([httpStatus, rpcCode]);
    const stateless = await post(
      '/mcp',
      { ...call(tool), params: { name: tool, arguments: {}, _meta: META } },
      { ...STATELESS, 'mcp-name': tool },
    );
    expect([stateless.status, stateless.json.error.code]).toEqual([httpStatus, rpcCode]);
    const client = makeClient(running.grpc!.address, 'full');
    try {
      const { error } = await unary(client, 'CallTool', toolRequest(tool, {}));
      expect(error?.code).toBe(grpcStatus);
    } finally {
      client.close();
    }
  });

  it('is answered in place (200) inside a batch', async () => {
    const lite = await post('/mcp-lite/v1/rpc', [call(tool)]);
    expect(lite.status).toBe(200);
    expect(lite.json[0].error.code).toBe(rpcCode);
  });
});

describe('a handler that throws', () => {
  it('is logged once per call on every binding, and its detail is never sent', async () => {
    logged.length = 0;
    const lite = await post('/mcp-lite/v1/rpc', call('broken'));
    const mcp = await post('/mcp', call('broken'));
    const client = makeClient(running.grpc!.address, 'full');
    try {
      const { error } = await unary(client, 'CallTool', toolRequest('broken', {}));
      expect(error?.code).toBe(status.INTERNAL);
      expect(error?.details).not.toContain('secret');
    } finally {
      client.close();
    }
    expect(lite.json.error.code).toBe(-32603);
    // MCP answers a failing handler as a tool result the model reads (SEP-1303), with nothing of the cause.
    expect(mcp.json.result).toMatchObject({
      isError: true,
      _meta: { 'mcplite/error': { code: 'internal' } },
    });
    for (const r of [lite, mcp]) expect(JSON.stringify(r.json)).not.toContain('secret');
    expect(logged.map((l) => l.msg)).toEqual([
      'tool handler failed',
      'tool handler failed',
      'tool handler failed',
    ]);
  });
});
