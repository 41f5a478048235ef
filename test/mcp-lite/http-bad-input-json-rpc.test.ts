/**
 * Bad input to the MCP-lite HTTP binding, JSON-RPC level: parse errors (-32700), invalid requests and batches
 * (-32600), unknown methods and tools (-32601) and wrong-typed params (-32602).
 */
import { describe, expect, it } from 'vitest';
import {
  callMessage,
  expectStillServing,
  type JsonRpcResponse,
  postJson,
  startServer,
} from '../support/http-harness.js';
import { rpcError, t, tools, useBadInputServer } from './bad-input.fixtures.js';

useBadInputServer();

describe('parse errors', () => {
  it('answers invalid JSON with -32700 and HTTP 400', async () => {
    const error = await rpcError('{"jsonrpc": "2.0", "id": 1,', 400);
    expect(error!.code).toBe(-32700);
  });

  it('answers an empty body with -32700', async () => {
    expect((await rpcError('', 400))!.code).toBe(-32700);
  });

  it('answers invalid UTF-8 bytes with -32700', async () => {
    const bytes = Buffer.concat([
      Buffer.from('{"jsonrpc":"2.0","id":1,"method":"'),
      Buffer.from([0xc3, 0x28, 0xff]),
      Buffer.from('"}'),
    ]);
    const res = await fetch(t.rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: new Uint8Array(bytes),
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as JsonRpcResponse).error!.code).toBe(-32700);
  });

  it('refuses 100 000 nested brackets cleanly with -32700', async () => {
    const big = await startServer({ tools });
    try {
      const res = await postJson(big.rpcUrl, '['.repeat(100_000));
      expect(res.status).toBe(400);
      const body = (await res.json()) as JsonRpcResponse;
      expect(body.error!.code).toBe(-32700);
      expect(body.error!.message).toMatch(/nested/);
      await expectStillServing(big.rpcUrl);
    } finally {
      await big.close();
    }
  });

  it('refuses deep nesting inside the arguments with -32700', async () => {
    const deep = `${'{"a":'.repeat(100)}1${'}'.repeat(100)}`;
    const res = await postJson(
      t.rpcUrl,
      `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"inspect","arguments":${deep}}}`,
    );
    expect(res.status).toBe(400);
  });

  it('does not count brackets inside strings as nesting', async () => {
    const res = await postJson(
      t.rpcUrl,
      callMessage('echo', { text: `${'['.repeat(200)}"\\${'{'.repeat(200)}` }),
    );
    expect(res.status).toBe(200);
  });
});

describe('invalid requests (-32600, HTTP 400)', () => {
  const cases: Array<[string, unknown]> = [
    ['jsonrpc missing', { id: 1, method: 'tools/list' }],
    ['jsonrpc 1.0', { jsonrpc: '1.0', id: 1, method: 'tools/list' }],
    ['jsonrpc a number', { jsonrpc: 2, id: 1, method: 'tools/list' }],
    ['id an object', { jsonrpc: '2.0', id: { a: 1 }, method: 'tools/list' }],
    ['id an array', { jsonrpc: '2.0', id: [1], method: 'tools/list' }],
    ['id a boolean', { jsonrpc: '2.0', id: true, method: 'tools/list' }],
    ['method missing', { jsonrpc: '2.0', id: 1 }],
    ['method a number', { jsonrpc: '2.0', id: 1, method: 42 }],
    ['method empty', { jsonrpc: '2.0', id: 1, method: '' }],
    ['params a string', { jsonrpc: '2.0', id: 1, method: 'tools/call', params: 'echo' }],
    ['params a number', { jsonrpc: '2.0', id: 1, method: 'tools/call', params: 5 }],
    ['params null', { jsonrpc: '2.0', id: 1, method: 'tools/call', params: null }],
    ['a string', 'tools/list'],
    ['a number', 42],
    ['null', null],
    ['a response object', { jsonrpc: '2.0', id: 1, result: {} }],
  ];

  it.each(cases)('refuses a message with %s', async (_name, message) => {
    const error = await rpcError(JSON.stringify(message), 400);
    expect(error!.code).toBe(-32600);
  });

  it('answers with the id when it is valid, null when it is not', async () => {
    const withId = await postJson(t.rpcUrl, { jsonrpc: '1.0', id: 'keep', method: 'x' });
    expect(((await withId.json()) as JsonRpcResponse).id).toBe('keep');
    const badId = await postJson(t.rpcUrl, { jsonrpc: '2.0', id: { x: 1 }, method: 'x' });
    expect(((await badId.json()) as JsonRpcResponse).id).toBeNull();
  });

  it('refuses an empty batch', async () => {
    expect((await rpcError('[]', 400))!.code).toBe(-32600);
  });

  it('refuses a batch larger than 100', async () => {
    const batch = Array.from({ length: 101 }, (_, i) => ({ jsonrpc: '2.0', id: i, method: 'tools/list' }));
    const big = await startServer({ tools });
    try {
      const res = await postJson(big.rpcUrl, batch);
      expect(res.status).toBe(400);
      expect(((await res.json()) as JsonRpcResponse).error!.code).toBe(-32600);
    } finally {
      await big.close();
    }
  });

  it('refuses a listtools body that is not an object', async () => {
    const res = await postJson(t.toolsUrl, '[]');
    expect(res.status).toBe(400);
    expect(((await res.json()) as JsonRpcResponse).error!.code).toBe(-32600);
  });
});

describe('unknown methods and wrong-typed params', () => {
  it('answers an unknown method with -32601', async () => {
    const error = await rpcError({ jsonrpc: '2.0', id: 1, method: 'resources/list' }, 200);
    expect(error!.code).toBe(-32601);
    expect(error!.data.available_methods).toEqual([
      'tools/call',
      'tools/list',
      'prompts/list',
      'prompts/get',
    ]);
  });

  it('answers a method named like an Object.prototype member with -32601', async () => {
    for (const method of ['__proto__', 'constructor', 'toString', 'hasOwnProperty']) {
      expect((await rpcError({ jsonrpc: '2.0', id: 1, method }, 200))!.code).toBe(-32601);
    }
  });

  it.each([
    ['a string', 'text'],
    ['an array', ['text']],
    ['a number', 5],
    ['a boolean', true],
  ])('answers arguments that are %s with -32602 naming "arguments"', async (_name, args) => {
    const error = await rpcError(callMessage('echo', args), 200);
    expect(error!.code).toBe(-32602);
    expect(error!.data.errors[0].field).toBe('arguments');
  });

  it.each([
    ['a number', 5],
    ['missing', undefined],
    ['an object', { x: 1 }],
    ['null', null],
  ])('answers a tool name that is %s with -32602 naming "name"', async (_name, name) => {
    const error = await rpcError(
      { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: {} } },
      200,
    );
    expect(error!.code).toBe(-32602);
    expect(error!.data.errors[0].field).toBe('name');
  });

  it('answers params given as an array with -32602', async () => {
    const error = await rpcError({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: ['echo', {}] }, 200);
    expect(error!.code).toBe(-32602);
  });

  it('answers an elicitation member that is not an object with -32602', async () => {
    const error = await rpcError(callMessage('echo', { text: 'x' }, { elicitation: 'yes' }), 200);
    expect(error!.code).toBe(-32602);
  });

  it.each(['__proto__', 'constructor', 'toString', 'hasOwnProperty'])(
    'answers a tool named %s with -32601',
    async (name) => {
      const error = await rpcError(callMessage(name, {}), 200);
      expect(error!.code).toBe(-32601);
    },
  );
});
