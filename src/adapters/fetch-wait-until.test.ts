import { describe, expect, it } from 'vitest';
import { createMcpLiteHttpBinding } from '../bindings/mcp-lite/http/index.js';
import { silentLogger } from '../core/logger.js';
import { defineTool } from '../core/tool.js';
import { createServer } from '../create-server.js';
import { toFetchHandler } from './fetch.js';

/**
 * Promised work outlives its response only where the platform is told (Workers' `ctx.waitUntil`): the fetch
 * handler hands it over when the response leaves, from the option or from the `ctx` Workers pass third.
 * (test/runtimes/runtimes.test.ts runs the same on workerd itself.)
 */

let finished = 0;
const server = createServer({
  tools: [
    defineTool({
      name: 'slow',
      description: 'Finishes after 150 ms, as a promise',
      longRunning: { estimatedMs: 150 },
      handler: async () => {
        await new Promise((resolve) => setTimeout(resolve, 150));
        finished++;
        return 'finished';
      },
    }),
    defineTool({ name: 'quick', description: 'Answers at once', handler: () => 'now' }),
  ],
  logger: silentLogger,
});
const binding = createMcpLiteHttpBinding(server);

function call(name: string): Request {
  return new Request('http://127.0.0.1/mcp-lite/v1/calltools', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: {} } }),
  });
}

describe('toFetchHandler and the platform waitUntil', () => {
  it('hands the promised work to the waitUntil option; it settles once the work is done', async () => {
    const handed: Promise<unknown>[] = [];
    const handler = toFetchHandler(binding, { waitUntil: (work) => handed.push(work) });
    const before = finished;
    const reply = (await (await handler(call('slow'))).json()) as {
      result: { _meta: Record<string, unknown> };
    };
    expect(reply.result._meta.response_type).toBe('promise');
    expect(handed).toHaveLength(1);
    expect(finished).toBe(before);
    await handed[0];
    expect(finished).toBe(before + 1);
    const token = reply.result._meta.promise_token as string;
    const redeem = new Request('http://127.0.0.1/mcp-lite/v1/calltools', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: { name: 'redeem', arguments: { promise: token, wait_ms: 0 } },
      }),
    });
    expect(await (await handler(redeem)).json()).toMatchObject({ result: { content: 'finished' } });
  });

  it('uses the Workers ctx (third argument) when no option is given, and only when work runs', async () => {
    const handed: Promise<unknown>[] = [];
    const ctx = { waitUntil: (work: Promise<unknown>) => void handed.push(work) };
    const handler = toFetchHandler(binding);
    await (await handler(call('quick'), {}, ctx)).json();
    expect(handed).toHaveLength(0);
    await (await handler(call('slow'), {}, ctx)).json();
    expect(handed).toHaveLength(1);
    await handed[0];
  });
});
