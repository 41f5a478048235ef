/**
 * The Webtools binding over real sockets, on the demo's `documents` webtool: the outcome extension end to end
 * (promises, elicitation, request-for-more-resource, and streaming over Server-Sent Events).
 */
import { describe, expect, it } from 'vitest';
import { readSse } from '../support/http-harness.js';
import {
  type Envelope,
  expectError,
  expectMatches,
  post,
  responseValidator,
  url,
  useDemoServer,
} from './webtools-binding.fixtures.js';

useDemoServer();

describe('the outcome extension, end to end', () => {
  it('promise: 202 pending, redeemed by the redeem action and by GET promises/<token>', async () => {
    const started = await post({
      action: 'analyze_dataset',
      request: { dataset_id: 'all', analysis_type: 'summary' },
    });
    expect(started.status).toBe(202);
    expect(started.body).toMatchObject({
      status: 'pending',
      promise: expect.stringMatching(/^prom_/),
      redeem: { action: 'redeem', request: { promise: started.body.promise } },
    });
    expect(Date.parse(started.body.estimated_completion)).not.toBeNaN();
    const early = await fetch(`${url}promises/${started.body.promise}`);
    expect(early.status).toBe(202);
    const redeemed = await post({
      action: 'redeem',
      request: { promise: started.body.promise, wait_ms: 20_000 },
    });
    expect(redeemed.status).toBe(200);
    expectMatches(await responseValidator('analyze_dataset'), redeemed.body.data);
    expect(redeemed.body.data).toMatchObject({ dataset_id: 'all', analysis_type: 'summary' });
    const again = await fetch(`${url}promises/${started.body.promise}`);
    expect(again.status).toBe(200);
    expect(((await again.json()) as Envelope).data).toEqual(redeemed.body.data);
    const unknown = await fetch(`${url}promises/prom_${'Q'.repeat(32)}`);
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as Envelope).error!.code).toBe('PROMISE_NOT_FOUND');
  }, 120_000);

  it('elicitation: input_required with a signed state, answered by a POST with it', async () => {
    const asked = await post({ action: 'subscribe_digest', request: { category: 'security' } });
    expect(asked.status).toBe(200);
    expect(asked.body).toMatchObject({
      status: 'input_required',
      input: { message: expect.stringContaining('email'), requested_schema: { type: 'object' } },
    });
    const state = asked.body.input.state;
    expect(state).toEqual(expect.any(String));
    const answers = { email: 'a@example.com', frequency: 'weekly' };
    // The answer goes with the same request: the state is bound to it.
    const done = await post({
      action: 'subscribe_digest',
      request: { category: 'security' },
      elicitation: { state, answers },
    });
    expect(done.status).toBe(200);
    expectMatches(await responseValidator('subscribe_digest'), done.body.data);
    expect(done.body.data).toMatchObject({
      subscribed: true,
      category: 'security',
      email: 'a@example.com',
    });
    const forged = await post({
      action: 'subscribe_digest',
      request: { category: 'security' },
      elicitation: { state: `${state}x`, answers },
    });
    expectError(forged, 400, 'SCHEMA_ERROR');
  });

  it('request-for-more-resource: 422 RESOURCE_REQUIRED with what and how much; enough budget answers', async () => {
    const r = await post({ action: 'export_documents', request: { category: 'security', max_rows: 1 } });
    expectError(r, 422, 'RESOURCE_REQUIRED');
    expect(r.body.error!.details).toMatchObject({ resource: 'rows', granted: 1, unit: 'documents' });
    const needed = r.body.error!.details.requested;
    const ok = await post({
      action: 'export_documents',
      request: { category: 'security', max_rows: needed },
    });
    expect(ok.status).toBe(200);
    expectMatches(await responseValidator('export_documents'), ok.body.data);
  });

  it('streaming: Accept text/event-stream gives partials, then done with the envelope', async () => {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({ action: 'generate_report', request: { topic: 'MCP specification' } }),
    });
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    const events = (await readSse(res)).filter((e) => e.event !== 'heartbeat');
    const partials = events.filter((e) => e.event === 'message').map((e) => e.data.partial);
    expect(partials.length).toBeGreaterThan(1);
    const last = events.at(-1)!;
    expect(last.event).toBe('done');
    expect(last.data).toEqual({ status: 'ok', data: partials.join('') });
    expectMatches(await responseValidator('generate_report'), last.data.data);
    const bad = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({ action: 'generate_report', request: {} }),
    });
    // A stream has begun before the call is checked, so even a protocol error ends it as an `error` event.
    expect(bad.status).toBe(200);
    const [error] = await readSse(bad);
    expect(error).toMatchObject({
      event: 'error',
      data: { status: 'error', error: { code: 'SCHEMA_ERROR' } },
    });
  });
});
