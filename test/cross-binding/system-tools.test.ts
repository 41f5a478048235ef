/**
 * `redeem` and `cancel` are listed only when a tool can return a promise, over real sockets and real clients (the
 * official MCP SDK, the mcplite client): absent on a server of quick tools, there once a long-running tool joins.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterEach, describe, expect, it } from 'vitest';
import { connect } from '../../src/client/index.js';
import { createServer } from '../../src/create-server.js';
import { type RunningServer, serve } from '../../src/serve.js';

let running: RunningServer | undefined;

afterEach(async () => {
  await running?.close(100);
  running = undefined;
});

async function mcpToolNames(url: string): Promise<string[]> {
  const sdk = new Client({ name: 'system-tools', version: '1.0.0' });
  await sdk.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`)));
  try {
    return (await sdk.listTools()).tools.map((t) => t.name);
  } finally {
    await sdk.close();
  }
}

describe('the system tools', () => {
  it('appear once a long-running tool joins the catalog, and then redeem its promises', async () => {
    const server = createServer({ tools: [{ name: 'quick', handler: async () => 'fast' }] });
    running = await serve(server, { port: 0 });
    expect(await mcpToolNames(running.url)).toEqual(['quick']);

    server.catalog.add({ name: 'later', longRunning: { estimatedMs: 20 }, handler: async () => 'slow' });
    expect(await mcpToolNames(running.url)).toEqual(
      expect.arrayContaining(['quick', 'later', 'redeem', 'cancel']),
    );
    const client = await connect(`${running.url}/mcp-lite/v1/`);
    try {
      expect(await client.call('later')).toMatchObject({ type: 'answer', value: 'slow' });
    } finally {
      await client.close();
    }
  });

  it('are listed with an answer budget, past which a slow call becomes a promise that redeem settles', async () => {
    const server = createServer({
      answerBudgetMs: 50,
      tools: [{ name: 'slowish', handler: () => new Promise((r) => setTimeout(() => r('late'), 300)) }],
    });
    running = await serve(server, { port: 0 });
    expect((await mcpToolNames(running.url)).sort()).toEqual(['cancel', 'redeem', 'slowish']);
    const res = await fetch(`${running.url}/mcp-lite/v1/calltools`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'slowish' } }),
    });
    const body = (await res.json()) as {
      result: { _meta: { response_type: string; promise_token: string } };
    };
    expect(body.result._meta.response_type).toBe('promise');
    const client = await connect(`${running.url}/mcp-lite/v1/`);
    try {
      expect(await client.redeem(body.result._meta.promise_token)).toMatchObject({
        type: 'answer',
        value: 'late',
      });
    } finally {
      await client.close();
    }
  });
});
