/**
 * Tool calls over the MCP-lite HTTP binding: answers with their _meta, request ids, business failures,
 * notifications, batches, and the protocol errors (invalid arguments, unknown tool, a crash that leaks nothing).
 */
import { describe, expect, it } from 'vitest';
import { callMessage, callTool, type JsonRpcResponse, postJson, waitFor } from '../support/http-harness.js';
import { logLines, notified, t, useSharedServer } from './http-binding.fixtures.js';

useSharedServer();

describe('tools/call', () => {
  it('answers with content and _meta (spec A.2)', async () => {
    const body = await callTool(t.rpcUrl, 'echo', { text: 'hello' });
    expect(body.jsonrpc).toBe('2.0');
    expect(body.result.content).toEqual({ text: 'hello' });
    expect(body.result._meta).toMatchObject({ response_type: 'answer', server_version: '1.2.3' });
    expect(new Date(body.result._meta.timestamp).toISOString()).toBe(body.result._meta.timestamp);
    expect(body.result._meta.processing_time_ms).toBeGreaterThanOrEqual(0);
  });

  it('keeps the request id, string or number', async () => {
    const res = await postJson(t.rpcUrl, {
      jsonrpc: '2.0',
      id: 'call-001',
      method: 'tools/call',
      params: { name: 'add', arguments: { a: 1, b: 2 } },
    });
    expect(await res.json()).toMatchObject({ id: 'call-001', result: { content: 3 } });
    const res2 = await postJson(t.rpcUrl, {
      jsonrpc: '2.0',
      id: 7,
      method: 'tools/call',
      params: { name: 'add', arguments: { a: 1, b: 2 } },
    });
    expect(await res2.json()).toMatchObject({ id: 7, result: { content: 3 } });
  });

  it('reports a business failure as a result with response_type failure', async () => {
    const body = await callTool(t.rpcUrl, 'refuse', {});
    expect(body.error).toBeUndefined();
    expect(body.result.failure).toEqual({
      message: 'Out of stock',
      code: 'OUT_OF_STOCK',
      details: { sku: 'x1' },
    });
    expect(body.result._meta.response_type).toBe('failure');
  });

  it('answers a notification with 202 and no body, and still runs it', async () => {
    const before = notified;
    const res = await postJson(t.rpcUrl, {
      jsonrpc: '2.0',
      method: 'tools/call',
      params: { name: 'notify' },
    });
    expect(res.status).toBe(202);
    expect(await res.text()).toBe('');
    expect(notified).toBe(before + 1);
  });
});

describe('batches', () => {
  it('answers a batch as a batch, in order, leaving out notifications', async () => {
    const res = await postJson(t.rpcUrl, [
      { jsonrpc: '2.0', id: 'a', method: 'tools/call', params: { name: 'add', arguments: { a: 2, b: 3 } } },
      { jsonrpc: '2.0', method: 'tools/call', params: { name: 'notify' } },
      { jsonrpc: '2.0', id: 'b', method: 'tools/list' },
      { jsonrpc: '2.0', id: 'c', method: 'tools/call', params: { name: 'nope' } },
      {
        jsonrpc: '2.0',
        id: 'd',
        method: 'tools/call',
        params: { name: 'echo', arguments: { text: 'last' } },
      },
    ]);
    expect(res.status).toBe(200);
    const body = (await res.json()) as JsonRpcResponse[];
    expect(body.map((r) => r.id)).toEqual(['a', 'b', 'c', 'd']);
    expect(body[0]!.result.content).toBe(5);
    expect(body[1]!.result.tools.length).toBeGreaterThan(0);
    expect(body[2]!.error!.code).toBe(-32601);
    expect(body[3]!.result.content).toEqual({ text: 'last' });
  });

  it('answers a batch of only notifications with 202 and an empty body', async () => {
    const before = notified;
    const res = await postJson(t.rpcUrl, [
      { jsonrpc: '2.0', method: 'tools/call', params: { name: 'notify' } },
      { jsonrpc: '2.0', method: 'tools/call', params: { name: 'notify' } },
    ]);
    expect(res.status).toBe(202);
    expect(await res.text()).toBe('');
    expect(notified).toBe(before + 2);
  });

  it('answers an invalid member of a batch in the batch', async () => {
    const res = await postJson(t.rpcUrl, [
      { jsonrpc: '1.0', id: 1, method: 'x' },
      { jsonrpc: '2.0', id: 2, method: 'tools/list' },
    ]);
    expect(res.status).toBe(200);
    const body = (await res.json()) as JsonRpcResponse[];
    expect(body[0]).toMatchObject({ id: 1, error: { code: -32600 } });
    expect(body[1]!.id).toBe(2);
  });
});

describe('protocol errors', () => {
  it('answers invalid arguments with -32602 and data.errors naming the field', async () => {
    const body = await callTool(t.rpcUrl, 'add', { a: 1, b: 'two' });
    expect(body.error!.code).toBe(-32602);
    expect(body.error!.message).toContain('b');
    expect(body.error!.data.errors).toEqual([
      expect.objectContaining({ field: 'b', message: 'must be of type number' }),
    ]);
  });

  it('names a missing required field', async () => {
    const body = await callTool(t.rpcUrl, 'echo', {});
    expect(body.error!.code).toBe(-32602);
    expect(body.error!.data.errors).toEqual([
      expect.objectContaining({ field: 'text', message: 'is required' }),
    ]);
  });

  it('answers an unknown tool with -32601, the requested tool, the available tools and a suggestion (spec A.5)', async () => {
    const body = await callTool(t.rpcUrl, 'ecoh', { text: 'x' });
    expect(body.error).toMatchObject({ code: -32601, message: "Tool not found: ecoh. Did you mean 'echo'?" });
    expect(body.error!.data.requested_tool).toBe('ecoh');
    expect(body.error!.data.available_tools).toEqual(expect.arrayContaining(['redeem', 'echo', 'add']));
    expect(body.error!.data.suggestion).toBe("Did you mean 'echo'?");
  });

  it('answers a crashing handler with -32603 "Internal error" and leaks nothing', async () => {
    const res = await postJson(t.rpcUrl, callMessage('boom', {}));
    expect(res.status).toBe(200);
    const text = await res.text();
    const body = JSON.parse(text) as JsonRpcResponse;
    expect(body.error).toEqual({ code: -32603, message: 'Internal error' });
    expect(text).not.toContain('hunter2');
    expect(text).not.toContain('/srv/app');
    expect(text).not.toMatch(/\bat\s.*\(/);
  });

  it('logs the crash (with its cause) on the server instead', async () => {
    await waitFor(() => logLines.some((l) => l.includes('hunter2')), 2000, 'the crash in the log');
    const line = JSON.parse(logLines.find((l) => l.includes('hunter2'))!);
    expect(line.level).toBe(50);
    expect(line.tool).toBe('boom');
  });
});
