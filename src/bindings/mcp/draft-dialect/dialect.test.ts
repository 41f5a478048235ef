/**
 * The draft-seed dialect's rewriting, message by message, with the draft's own examples
 * (mcp-detailed-draft-spec-2025-06-18.md).
 */
import { describe, expect, it } from 'vitest';
import { INITIALIZE } from '../../../../test/support/draft-dialect.js';
import { DraftDialect, isDraftInitialize } from './index.js';

function dialect(
  tools = [{ name: 'get_weather', description: 'Retrieve weather for a city' }],
  resources = ['user_files'],
) {
  const catalog = { tools: () => tools, resources: () => resources };
  return { d: new DraftDialect(catalog, 4), tools, resources };
}

describe('the draft-seed dialect', () => {
  it('recognises the draft initialize (mcpVersion and clientCapabilities, no protocolVersion)', () => {
    expect(isDraftInitialize(INITIALIZE)).toBe(true);
    expect(isDraftInitialize({ ...INITIALIZE, params: { mcpVersion: '2025-06-18' } })).toBe(false);
    expect(
      isDraftInitialize({ ...INITIALIZE, params: { ...INITIALIZE.params, protocolVersion: '2025-06-18' } }),
    ).toBe(false);
    expect(isDraftInitialize({ jsonrpc: '2.0', id: 1, method: 'tools/list' })).toBe(false);
  });

  it('shapes initialize, tools/list and tools/invoke answers as the draft shows them', () => {
    const { d } = dialect();
    expect(d.inbound(INITIALIZE).message).toEqual(INITIALIZE);
    const init = d.outbound(
      JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        result: {
          protocolVersion: '2025-06-18',
          capabilities: { tools: { listChanged: true }, resources: {} },
          serverInfo: { name: 'example-server', version: '1.0.0' },
        },
      }),
    );
    expect(JSON.parse(init).result).toEqual({
      server: { name: 'example-server', version: '1.0.0' },
      serverCapabilities: {
        supportsToolDiscovery: true,
        supportsResourceDiscovery: true,
        supportsNotifications: true,
        supportsProgress: true,
        supportsCancellation: true,
      },
    });
    d.inbound({ jsonrpc: '2.0', method: 'tools/list', id: 2 });
    const tool = {
      name: 'get_weather',
      description: 'Retrieve weather for a city',
      inputSchema: { type: 'object' },
    };
    expect(
      JSON.parse(d.outbound(JSON.stringify({ jsonrpc: '2.0', id: 2, result: { tools: [tool] } }))),
    ).toEqual({
      jsonrpc: '2.0',
      id: 2,
      result: [tool],
    });
    const invoke = {
      jsonrpc: '2.0',
      method: 'tools/invoke',
      params: { name: 'get_weather', arguments: { city: 'Phoenix' } },
      id: 10,
    };
    // The client declared supportsProgress: its request id becomes the progress token.
    expect(d.inbound(invoke).message).toEqual({
      ...invoke,
      params: { ...invoke.params, _meta: { progressToken: 10 } },
    });
    const output = { temperature: 89, condition: 'Sunny' };
    const answered = d.outbound(
      JSON.stringify({
        jsonrpc: '2.0',
        id: 10,
        result: { content: [{ type: 'text', text: JSON.stringify(output) }], structuredContent: output },
      }),
    );
    expect(JSON.parse(answered)).toEqual({ jsonrpc: '2.0', result: { status: 'success', output }, id: 10 });
  });

  it('answers a missing parameter with 4001, failures with status error, and shutdown with null', () => {
    const { d } = dialect();
    d.inbound({
      jsonrpc: '2.0',
      method: 'tools/invoke',
      params: { name: 'get_weather', arguments: {} },
      id: 10,
    });
    const error = d.outbound(
      JSON.stringify({
        jsonrpc: '2.0',
        id: 10,
        error: {
          code: -32602,
          message: 'Invalid params',
          data: { errors: [{ field: 'city', message: 'is required' }] },
        },
      }),
    );
    expect(JSON.parse(error).error).toMatchObject({
      code: 4001,
      message: "Missing required parameter 'city'",
    });
    d.inbound({ jsonrpc: '2.0', method: 'tools/invoke', params: { name: 'x' }, id: 11 });
    const failed = d.outbound(
      JSON.stringify({
        jsonrpc: '2.0',
        id: 11,
        result: {
          content: [{ type: 'text', text: 'Out of stock' }],
          isError: true,
          _meta: { 'mcplite/failure': { code: 'OOS' } },
        },
      }),
    );
    expect(JSON.parse(failed).result).toEqual({
      status: 'error',
      error: { message: 'Out of stock', code: 'OOS' },
    });
    d.inbound({ jsonrpc: '2.0', method: 'tools/invoke', params: { name: 'x' }, id: 12 });
    const plain = d.outbound(
      JSON.stringify({
        jsonrpc: '2.0',
        id: 12,
        result: { content: [{ type: 'text', text: 'hi' }], structuredContent: { result: 'hi' } },
      }),
    );
    expect(JSON.parse(plain).result).toEqual({ status: 'success', output: 'hi' });
    expect(d.inbound({ jsonrpc: '2.0', method: 'shutdown', id: 50 })).toEqual({
      reply: '{"jsonrpc":"2.0","id":50,"result":null}',
    });
    expect(d.inbound({ jsonrpc: '2.0', method: 'exit' })).toEqual({ exit: true });
  });

  it('turns progress, list_changed and resource notifications into the draft notifications', () => {
    const { d, tools, resources } = dialect();
    const progress = d.outbound(
      JSON.stringify({
        jsonrpc: '2.0',
        method: 'notifications/progress',
        params: { progressToken: 10, progress: 42, total: 100, message: 'Searching...' },
      }),
    );
    expect(JSON.parse(progress)).toEqual({
      jsonrpc: '2.0',
      method: 'progress',
      params: { id: 10, percent: 42, message: 'Searching...' },
    });
    tools.splice(0, 1, { name: 'new_tool', description: 'A new feature' });
    const changed = d.outbound('{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}');
    expect(JSON.parse(changed)).toEqual({
      jsonrpc: '2.0',
      method: 'tools/changed',
      params: { added: [{ name: 'new_tool', description: 'A new feature' }], removed: ['get_weather'] },
    });
    resources.push('more_files');
    expect(
      JSON.parse(d.outbound('{"jsonrpc":"2.0","method":"notifications/resources/list_changed"}')),
    ).toEqual({
      jsonrpc: '2.0',
      method: 'resources/changed',
      params: { updated: ['more_files'] },
    });
    expect(
      JSON.parse(
        d.outbound(
          '{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"user_files"}}',
        ),
      ),
    ).toEqual({ jsonrpc: '2.0', method: 'resources/changed', params: { updated: ['user_files'] } });
  });

  it('bounds the requests it remembers', () => {
    const { d } = dialect();
    for (let id = 0; id < 4; id++) d.inbound({ jsonrpc: '2.0', id, method: 'tools/list' });
    const refused = d.inbound({ jsonrpc: '2.0', id: 9, method: 'tools/list' });
    expect(JSON.parse(refused.reply!).error.code).toBe(-32004);
  });
});
