/**
 * Elicitation over the MCP-lite HTTP binding: the question, the signed state and the round trip with the
 * answers, checked against the requested schema; altered, forged and foreign states are refused.
 */
import { describe, expect, it } from 'vitest';
import { callTool } from '../support/http-harness.js';
import { t, useSharedServer } from './http-binding.fixtures.js';

useSharedServer();

describe('elicitation', () => {
  it('asks, then accepts the signed state with the answers (round trip)', async () => {
    const first = await callTool(t.rpcUrl, 'subscribe', { topic: 'security' });
    expect(first.result._meta.response_type).toBe('elicitation');
    const { message, requested_schema, state } = first.result.elicitation;
    expect(message).toBe('Which email should get the digest?');
    expect(requested_schema.required).toEqual(['email']);
    expect(typeof state).toBe('string');

    const second = await callTool(
      t.rpcUrl,
      'subscribe',
      { topic: 'security' },
      {
        elicitation: { state, answers: { email: 'a@b.example' } },
      },
    );
    expect(second.result._meta.response_type).toBe('answer');
    expect(second.result.content).toEqual({
      subscribed: 'a@b.example',
      topic: 'security',
      context: { step: 1 },
    });
  });

  it('checks the answers against the requested schema', async () => {
    const first = await callTool(t.rpcUrl, 'subscribe', {});
    const second = await callTool(
      t.rpcUrl,
      'subscribe',
      {},
      {
        elicitation: { state: first.result.elicitation.state, answers: { email: 'not an email' } },
      },
    );
    expect(second.error!.code).toBe(-32602);
    expect(second.error!.data.errors[0].field).toBe('email');
  });

  it('rejects an altered state', async () => {
    const first = await callTool(t.rpcUrl, 'subscribe', {});
    const state: string = first.result.elicitation.state;
    const [body, mac] = state.split('.') as [string, string];
    const payload = JSON.parse(Buffer.from(body, 'base64url').toString());
    payload.schema = { type: 'object' };
    const altered = `${Buffer.from(JSON.stringify(payload)).toString('base64url')}.${mac}`;
    const second = await callTool(
      t.rpcUrl,
      'subscribe',
      {},
      { elicitation: { state: altered, answers: {} } },
    );
    expect(second.error).toMatchObject({ code: -32602, data: { reason: 'forged' } });
  });

  it('rejects a forged state', async () => {
    const forged = `${Buffer.from(JSON.stringify({ tool: 'subscribe', schema: {}, context: null, exp: Date.now() + 60_000 })).toString('base64url')}.${Buffer.alloc(32).toString('base64url')}`;
    const res = await callTool(t.rpcUrl, 'subscribe', {}, { elicitation: { state: forged, answers: {} } });
    expect(res.error).toMatchObject({ code: -32602, data: { reason: 'forged' } });
  });

  it('rejects a state made for another tool', async () => {
    const first = await callTool(t.rpcUrl, 'subscribe', {});
    const res = await callTool(
      t.rpcUrl,
      'echo',
      { text: 'x' },
      {
        elicitation: { state: first.result.elicitation.state, answers: { email: 'a@b.example' } },
      },
    );
    expect(res.error).toMatchObject({ code: -32602, data: { reason: 'wrong_tool' } });
  });
});
