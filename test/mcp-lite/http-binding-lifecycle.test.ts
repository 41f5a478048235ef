/**
 * Calls that outlive their request over the MCP-lite HTTP binding: a client hang-up aborts the handler, a slow
 * call becomes a promise that can be redeemed or cancelled, and bad promise tokens are refused.
 */
import { describe, expect, it } from 'vitest';
import { defineTool } from '../../src/index.js';
import { callMessage, callTool, startServer, waitFor } from '../support/http-harness.js';
import { t, useSharedServer } from './http-binding.fixtures.js';

useSharedServer();

describe('client hang-up', () => {
  it('aborts the handler of a plain JSON call when the client goes away', async () => {
    const probe = { started: false, aborted: false };
    const h = await startServer({
      tools: [
        defineTool({
          name: 'wait',
          description: 'Waits until aborted',
          handler: (_args, ctx) =>
            new Promise((resolve) => {
              probe.started = true;
              ctx.signal.addEventListener('abort', () => {
                probe.aborted = true;
                resolve('aborted');
              });
            }),
        }),
      ],
    });
    try {
      const controller = new AbortController();
      const pending = fetch(h.rpcUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(callMessage('wait', {})),
        signal: controller.signal,
      }).catch((err: Error) => err);
      await waitFor(() => probe.started, 5000, 'the handler to start');
      controller.abort();
      expect(await pending).toBeInstanceOf(Error);
      await waitFor(() => probe.aborted, 5000, 'the handler to be aborted');
      expect(h.server.inFlight).toBe(0);
    } finally {
      await h.close();
    }
  });
});

describe('promises', () => {
  /** A tool whose calls wait until the test releases them, and which records whether its signal fired. */
  function gatedTool() {
    const gates: Array<{ release: (v: unknown) => void; aborted: boolean; started: boolean }> = [];
    const tool = defineTool({
      name: 'gated',
      description: 'Waits for the test',
      handler: (_args, ctx) =>
        new Promise((resolve) => {
          const gate = { release: resolve, aborted: false, started: true };
          gates.push(gate);
          ctx.signal.addEventListener('abort', () => {
            gate.aborted = true;
            resolve('aborted');
          });
        }),
    });
    return { tool, gates };
  }

  it('turns a call that outlives the answer budget into a promise, then redeems it', async () => {
    const { tool, gates } = gatedTool();
    const p = await startServer({ tools: [tool], answerBudgetMs: 50 });
    try {
      const first = await callTool(p.rpcUrl, 'gated', {});
      expect(first.result._meta.response_type).toBe('promise');
      const token: string = first.result._meta.promise_token;
      expect(token).toMatch(/^prom_[A-Za-z0-9_-]{32}$/);
      expect(Number.isNaN(Date.parse(first.result._meta.estimated_completion))).toBe(false);

      const pending = await callTool(p.rpcUrl, 'redeem', { promise: token });
      expect(pending.result._meta).toMatchObject({ response_type: 'promise', promise_token: token });

      gates[0]!.release({ done: true });
      const settled = await callTool(p.rpcUrl, 'redeem', { promise: token, wait_ms: 5000 });
      expect(settled.result._meta.response_type).toBe('answer');
      expect(settled.result.content).toEqual({ done: true });
      expect(gates[0]!.aborted).toBe(false);
    } finally {
      await p.close();
    }
  });

  it('cancels a promise: the handler signal fires and redeeming says cancelled', async () => {
    const { tool, gates } = gatedTool();
    const p = await startServer({ tools: [tool], answerBudgetMs: 50 });
    try {
      const first = await callTool(p.rpcUrl, 'gated', {});
      const token: string = first.result._meta.promise_token;
      const cancelled = await callTool(p.rpcUrl, 'cancel', { promise: token });
      expect(cancelled.result.content).toEqual({ promise: token, cancelled: true, status: 'cancelled' });
      await waitFor(() => gates[0]?.aborted === true, 2000, 'the handler to be aborted');
      const redeemed = await callTool(p.rpcUrl, 'redeem', { promise: token });
      expect(redeemed.result._meta.response_type).toBe('failure');
      expect(redeemed.result.failure.code).toBe('cancelled');
    } finally {
      await p.close();
    }
  });

  it('answers a malformed or unknown token with -32602', async () => {
    const malformed = await callTool(t.rpcUrl, 'redeem', { promise: 'prom_nope' });
    expect(malformed.error).toMatchObject({ code: -32602, data: { reason: 'malformed' } });
    const unknown = await callTool(t.rpcUrl, 'redeem', { promise: `prom_${'A'.repeat(32)}` });
    expect(unknown.error).toMatchObject({ code: -32602, data: { reason: 'unknown' } });
  });
});
