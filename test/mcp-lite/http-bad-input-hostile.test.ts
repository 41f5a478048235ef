/**
 * Hostile input to the MCP-lite HTTP binding: prototype pollution attempts, huge strings and tool names, and
 * many concurrent connections.
 */
import { describe, expect, it } from 'vitest';
import { callMessage, type JsonRpcResponse, postJson, startServer } from '../support/http-harness.js';
import { rpcError, seenArgs, t, tools, useBadInputServer } from './bad-input.fixtures.js';

useBadInputServer();

describe('hostile input', () => {
  it('does not let __proto__ or constructor keys in arguments pollute Object.prototype', async () => {
    const body = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"inspect","arguments":{"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted2":true}},"ok":1}}}`;
    const res = await postJson(t.rpcUrl, body);
    expect(res.status).toBe(200);
    expect(({} as any).polluted).toBeUndefined();
    expect(({} as any).polluted2).toBeUndefined();
    expect(Object.getPrototypeOf(seenArgs)).toBe(Object.prototype);
    expect((seenArgs as any).ok).toBe(1);
  });

  it('does not let a __proto__ key in params change how the call is read', async () => {
    const body = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"__proto__":{"name":"inspect"}}}`;
    const error = await rpcError(body, 200);
    expect(error!.code).toBe(-32602);
    expect(({} as any).name).toBeUndefined();
  });

  it('handles a huge string within the limit', async () => {
    const big = await startServer({ tools });
    try {
      const text = 'é'.repeat(1_000_000);
      const res = await postJson(big.rpcUrl, callMessage('echo', { text }));
      expect(((await res.json()) as JsonRpcResponse).result.content).toEqual({ length: 1_000_000 });
    } finally {
      await big.close();
    }
  });

  it('answers a huge unknown tool name quickly and without echoing it all back', async () => {
    const big = await startServer({ tools });
    try {
      const name = 'q'.repeat(3_000_000);
      const res = await postJson(big.rpcUrl, callMessage(name, {}));
      const text = await res.text();
      expect(JSON.parse(text).error.code).toBe(-32601);
      expect(text.length).toBeLessThan(10_000);
    } finally {
      await big.close();
    }
  });

  it('answers many concurrent connections', async () => {
    const replies = await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        postJson(t.rpcUrl, { ...callMessage('echo', { text: `n${i}` }), id: i }),
      ),
    );
    const bodies = (await Promise.all(replies.map((r) => r.json()))) as JsonRpcResponse[];
    expect(bodies.map((b) => b.id)).toEqual(Array.from({ length: 200 }, (_, i) => i));
    expect(bodies.every((b) => b.result.content.length >= 2)).toBe(true);
  });
});
