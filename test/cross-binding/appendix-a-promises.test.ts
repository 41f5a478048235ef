/**
 * Spec Appendix A.3, end to end: the demo served on a real socket, the promise flow sent as the spec writes it
 * (a promise, redeemed while running and then for the analysis), a promise that settles as a failure, and
 * cancelling a promise.
 */
import { describe, expect, it } from 'vitest';
import { base, expectMeta, serveDemo } from '../support/appendix-a.js';
import { callMessage, isIsoTime, rpc } from '../support/mcp-lite-http.js';

serveDemo();

describe('A.3 promise flow', () => {
  it('analyze_dataset answers a promise; redeem gives a fresh promise while running, then the analysis', async () => {
    const initial = await rpc(`${base}calltools`, {
      jsonrpc: '2.0',
      id: 'analysis-001',
      method: 'tools/call',
      params: {
        name: 'analyze_dataset',
        arguments: { dataset_id: 'large_dataset_001', analysis_type: 'comprehensive' },
      },
    });
    expect(initial.id).toBe('analysis-001');
    expect(Object.keys(initial.result!)).toEqual(['_meta']);
    const meta = initial.result!._meta;
    expectMeta(meta, 'promise');
    expect(meta.promise_token).toMatch(/^prom_[A-Za-z0-9_-]{20,}$/);
    expect(isIsoTime(meta.estimated_completion)).toBe(true);
    expect(Date.parse(meta.estimated_completion)).toBeGreaterThan(Date.parse(meta.timestamp));

    // The redeem message exactly as A.3 writes it: the work takes seconds, so this is another promise.
    const early = await rpc(`${base}calltools`, {
      jsonrpc: '2.0',
      id: 'redeem-001',
      method: 'tools/call',
      params: { name: 'redeem', arguments: { promise: meta.promise_token } },
    });
    expect(early.id).toBe('redeem-001');
    expectMeta(early.result!._meta, 'promise');
    expect(early.result!._meta.promise_token).toBe(meta.promise_token);

    // Then wait on the server for the result instead of polling.
    const final = await rpc(
      `${base}calltools`,
      callMessage('redeem-002', 'redeem', { promise: meta.promise_token, wait_ms: 15_000 }),
    );
    expectMeta(final.result!._meta, 'answer');
    const analysis = final.result!.content;
    expect(analysis).toMatchObject({
      dataset_id: 'large_dataset_001',
      analysis_type: 'comprehensive',
      authors: expect.any(Number),
    });
    expect(analysis.documents).toBeGreaterThanOrEqual(300);
    expect(Object.values(analysis.categories as Record<string, number>).reduce((a, b) => a + b, 0)).toBe(
      analysis.documents,
    );
    expect(Object.keys(analysis.per_category)).toHaveLength(8);
    expect(analysis.top_terms.length).toBeGreaterThan(5);
    expect(analysis.top_terms[0]).toEqual({ term: expect.any(String), count: expect.any(Number) });
    expect(analysis.top_bigrams[0]).toEqual({
      bigram: expect.stringMatching(/^\S+ \S+$/),
      count: expect.any(Number),
    });
    expect(analysis.length.min).toBeLessThanOrEqual(analysis.length.median);
    expect(analysis.length.median).toBeLessThanOrEqual(analysis.length.max);
    const histogramTotal = analysis.length_histogram.reduce(
      (a: number, b: { count: number }) => a + b.count,
      0,
    );
    expect(histogramTotal).toBe(analysis.documents);
  });

  it('an unknown dataset settles as a failure outcome', async () => {
    const initial = await rpc(
      `${base}calltools`,
      callMessage(1, 'analyze_dataset', { dataset_id: 'no_such_dataset', analysis_type: 'summary' }),
    );
    const token = initial.result!._meta.promise_token;
    const final = await rpc(
      `${base}calltools`,
      callMessage(2, 'redeem', { promise: token, wait_ms: 10_000 }),
    );
    expectMeta(final.result!._meta, 'failure');
    expect(final.result!.failure).toMatchObject({
      message: 'No dataset named "no_such_dataset"',
      code: 'unknown_dataset',
      details: { available: expect.arrayContaining(['all', 'protocols', 'finance']) },
    });
  });

  it('cancel aborts a running analysis, and redeem then says it was cancelled', async () => {
    const initial = await rpc(
      `${base}calltools`,
      callMessage(1, 'analyze_dataset', { dataset_id: 'all', analysis_type: 'comprehensive' }),
    );
    const token = initial.result!._meta.promise_token;
    const cancelled = await rpc(`${base}calltools`, callMessage(2, 'cancel', { promise: token }));
    expectMeta(cancelled.result!._meta, 'answer');
    expect(cancelled.result!.content).toEqual({ promise: token, cancelled: true, status: 'cancelled' });
    const redeemed = await rpc(
      `${base}calltools`,
      callMessage(3, 'redeem', { promise: token, wait_ms: 5000 }),
    );
    expectMeta(redeemed.result!._meta, 'failure');
    expect(redeemed.result!.failure).toMatchObject({ code: 'cancelled' });
    // Cancelling again is harmless and reports the state.
    const again = await rpc(`${base}calltools`, callMessage(4, 'cancel', { promise: token }));
    expect(again.result!.content).toEqual({ promise: token, cancelled: false, status: 'cancelled' });
  });
});
