/**
 * Elicitation rounds link to the first round (issue 27), real SDK, real HTTP: each round of an elicitation is a
 * call of its own (here each in a trace of its own, as a client that does not propagate would send them); the
 * signed state carries the first round's span context, so the second and third rounds' spans link to it.
 */
import { SpanStatusCode } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, defineTool, elicit } from '../../src/index.js';
import { type RunningServer, serve } from '../../src/node.js';
import { callMessage, rpc } from '../support/mcp-lite-http.js';
import { registerTestSdk, remoteParent, type TestSdk, waitForSpans } from '../support/otel-sdk.js';

const plan = defineTool<Record<string, never>>({
  name: 'plan_trip',
  description: 'Asks for a city and a date, then plans',
  inputSchema: { type: 'object' },
  handler: (_args, ctx) =>
    ctx.elicitation
      ? { planned: ctx.elicitation.answers }
      : elicit({
          requests: {
            city: { message: 'Which city?', schema: { type: 'string' } },
            date: { message: 'Which date?', schema: { type: 'string' } },
          },
        }),
});

let sdk: TestSdk;
let running: RunningServer;
let url: string;

beforeAll(async () => {
  sdk = registerTestSdk();
  running = await serve(createServer({ tools: [plan], secret: 'otel-elicitation-secret' }), { port: 0 });
  url = `${running.url}/mcp-lite/v1/calltools`;
});

afterAll(async () => {
  await running?.close(500);
  await sdk?.shutdown();
});

async function roundSpan(traceId: string): Promise<ReadableSpan> {
  const spans = await waitForSpans(sdk, 'tools/call plan_trip', 1);
  for (let i = 0; i < 100; i++) {
    const found = sdk.spans
      .getFinishedSpans()
      .find((s) => s.name === 'tools/call plan_trip' && s.spanContext().traceId === traceId);
    if (found) return found;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`no round span in ${traceId} (${spans.length} others)`);
}

describe('elicitation rounds', () => {
  it('link the second and third rounds to the first', async () => {
    const round = (id: number, traceparent: string, elicitation?: unknown) =>
      rpc(
        url,
        callMessage(id, 'plan_trip', {}, { _meta: { traceparent }, ...(elicitation ? { elicitation } : {}) }),
      );
    const t1 = remoteParent();
    const first = await round(1, t1.traceparent);
    expect(first.result?.elicitation, JSON.stringify(first)).toBeDefined();
    const firstSpan = await roundSpan(t1.traceId);
    expect(firstSpan.attributes['mcplite.outcome']).toBe('elicitation');
    expect(firstSpan.status.code).not.toBe(SpanStatusCode.ERROR);
    expect(firstSpan.links).toEqual([]);

    const t2 = remoteParent();
    const second = await round(2, t2.traceparent, {
      state: first.result!.elicitation.state,
      answers: { city: 'Lisbon' },
    });
    expect(second.result?.elicitation, JSON.stringify(second)).toBeDefined();
    const t3 = remoteParent();
    const third = await round(3, t3.traceparent, {
      state: second.result!.elicitation.state,
      answers: { date: '2027-05-01' },
    });
    expect(third.result?.content).toEqual({ planned: { city: 'Lisbon', date: '2027-05-01' } });

    const firstRound = [firstSpan.spanContext().traceId, firstSpan.spanContext().spanId];
    for (const t of [t2, t3]) {
      const span = await roundSpan(t.traceId);
      expect(span.links.map((l) => [l.context.traceId, l.context.spanId])).toEqual([firstRound]);
      expect(span.links[0]?.attributes).toEqual({ 'mcplite.link': 'elicitation_first_round' });
    }
  });
});
