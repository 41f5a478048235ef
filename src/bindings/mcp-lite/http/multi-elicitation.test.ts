/**
 * Several inputs asked in one elicitation round (`elicit({ requests })`), through the MCP-lite HTTP binding with
 * real fetch: partial fulfilment (core asks again for what is missing, carrying the answers so far in the signed
 * state), per-request validation, and states that were forged or altered.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callTool, startServer, type TestServer } from '../../../../test/support/http-harness.js';
import { defineTool, elicit } from '../../../index.js';

let handlerCalls = 0;

const REQUESTS = {
  contact: {
    message: 'Which email should we use?',
    schema: {
      type: 'object',
      required: ['email'],
      properties: { email: { type: 'string', format: 'email' } },
    },
  },
  plan: {
    message: 'Which plan?',
    schema: {
      type: 'object',
      required: ['tier'],
      properties: { tier: { type: 'string', enum: ['free', 'pro'] } },
    },
  },
};

const tools = [
  defineTool({
    name: 'signup',
    description: 'Asks for a contact and a plan in one round, then signs up',
    inputSchema: { type: 'object', properties: { team: { type: 'string' } } },
    handler: ({ team }: { team?: string }, ctx) => {
      if (!ctx.elicitation) return elicit({ requests: REQUESTS, context: { team } });
      handlerCalls++;
      return { answers: ctx.elicitation.answers, context: ctx.elicitation.context };
    },
  }),
  defineTool({
    name: 'signup_later',
    description: 'The same, as long-running work',
    longRunning: { estimatedMs: 50 },
    handler: (_args, ctx) => {
      if (!ctx.elicitation) return elicit({ requests: REQUESTS, message: 'Two questions' });
      return ctx.elicitation.answers;
    },
  }),
  defineTool({
    name: 'bad_name',
    description: 'Elicits with a request name that cannot be a key on every wire',
    handler: () => elicit({ requests: { 'not a name': { message: 'x', schema: { type: 'object' } } } }),
  }),
];

let t: TestServer;

beforeAll(async () => {
  t = await startServer({ tools });
});
afterAll(() => t.close());

const call = (name: string, answers?: { state: unknown; answers: unknown }) =>
  callTool(t.rpcUrl, name, { team: 'core' }, answers ? { elicitation: answers } : {});

describe('multi-request elicitation over MCP-lite HTTP', () => {
  it('asks every request at once; answered in two rounds, the handler runs once with all answers', async () => {
    handlerCalls = 0;
    const first = await call('signup');
    expect(first.result._meta.response_type).toBe('elicitation');
    const asked = first.result.elicitation;
    expect(asked.requests).toEqual({
      contact: { message: REQUESTS.contact.message, requested_schema: REQUESTS.contact.schema },
      plan: { message: REQUESTS.plan.message, requested_schema: REQUESTS.plan.schema },
    });
    // The single-form view of the same round, for clients that only know `requested_schema`.
    expect(asked.message).toBe('Which email should we use? Which plan?');
    expect(asked.requested_schema).toEqual({
      type: 'object',
      properties: { contact: REQUESTS.contact.schema, plan: REQUESTS.plan.schema },
    });

    const partial = await call('signup', {
      state: asked.state,
      answers: { contact: { email: 'a@b.example' } },
    });
    expect(partial.result._meta.response_type).toBe('elicitation');
    expect(Object.keys(partial.result.elicitation.requests)).toEqual(['plan']);
    expect(partial.result.elicitation.requested_schema.properties).toEqual({ plan: REQUESTS.plan.schema });
    expect(partial.result.elicitation.state).not.toBe(asked.state);
    expect(handlerCalls).toBe(0);

    const done = await call('signup', {
      state: partial.result.elicitation.state,
      answers: { plan: { tier: 'pro' } },
    });
    expect(done.result._meta.response_type).toBe('answer');
    expect(done.result.content).toEqual({
      answers: { contact: { email: 'a@b.example' }, plan: { tier: 'pro' } },
      context: { team: 'core' },
    });
    expect(handlerCalls).toBe(1);
  });

  it('runs the handler at once when every request is answered in the first reply', async () => {
    const first = await call('signup');
    const done = await call('signup', {
      state: first.result.elicitation.state,
      answers: { contact: { email: 'c@d.example' }, plan: { tier: 'free' } },
    });
    expect(done.result.content.answers).toEqual({
      contact: { email: 'c@d.example' },
      plan: { tier: 'free' },
    });
  });

  it('validates each answer against its own request, naming the request in the field', async () => {
    const first = await call('signup');
    const state = first.result.elicitation.state;
    const bad = await call('signup', {
      state,
      answers: { contact: { email: 'not an email' }, plan: { tier: 'gold' } },
    });
    expect(bad.error!.code).toBe(-32602);
    expect(bad.error!.data.errors.map((e: { field: string }) => e.field)).toEqual([
      'contact.email',
      'plan.tier',
    ]);

    const unknown = await call('signup', { state, answers: { shoe_size: { eu: 44 } } });
    expect(unknown.error!.code).toBe(-32602);
    expect(unknown.error!.data.errors).toEqual([{ field: 'shoe_size', message: 'is not a requested input' }]);

    const missingField = await call('signup', { state, answers: { plan: {} } });
    expect(missingField.error!.data.errors).toEqual([{ field: 'plan.tier', message: 'is required' }]);

    const notAnObject = await call('signup', { state, answers: [{ tier: 'pro' }] });
    expect(notAnObject.error!.code).toBe(-32602);
  });

  it('rejects a forged state, and a partial state whose carried answers were altered', async () => {
    const first = await call('signup');
    const partial = await call('signup', {
      state: first.result.elicitation.state,
      answers: { contact: { email: 'a@b.example' } },
    });
    const state: string = partial.result.elicitation.state;
    const [body, mac] = state.split('.') as [string, string];
    const payload = JSON.parse(Buffer.from(body, 'base64url').toString());
    expect(payload.answers).toEqual({ contact: { email: 'a@b.example' } });
    payload.answers.contact.email = 'attacker@evil.example';
    const altered = `${Buffer.from(JSON.stringify(payload)).toString('base64url')}.${mac}`;
    const rejected = await call('signup', { state: altered, answers: { plan: { tier: 'pro' } } });
    expect(rejected.error!.code).toBe(-32602);
    expect(rejected.error!.data.reason).toBe('forged');

    const forged = await call('signup', { state: `${state}x`, answers: { plan: { tier: 'pro' } } });
    expect(forged.error!.data.reason).toBe('forged');

    const wrongTool = await callTool(
      t.rpcUrl,
      'signup_later',
      {},
      {
        elicitation: { state, answers: { plan: { tier: 'pro' } } },
      },
    );
    expect(wrongTool.error!.data.reason).toBe('wrong_tool');
  });

  it('keeps a long-running tool on promises: a partial reply is a promise that redeems to the rest', async () => {
    const started = await callTool(t.rpcUrl, 'signup_later', {});
    const token = started.result._meta.promise_token;
    const asked = await callTool(t.rpcUrl, 'redeem', { promise: token, wait_ms: 5000 });
    expect(asked.result.elicitation.message).toBe('Two questions');
    const partial = await callTool(
      t.rpcUrl,
      'signup_later',
      {},
      {
        elicitation: { state: asked.result.elicitation.state, answers: { plan: { tier: 'free' } } },
      },
    );
    expect(partial.result._meta.response_type).toBe('promise');
    // Settled from the start: no waiting needed.
    const rest = await callTool(t.rpcUrl, 'redeem', { promise: partial.result._meta.promise_token });
    expect(rest.result._meta.response_type).toBe('elicitation');
    expect(Object.keys(rest.result.elicitation.requests)).toEqual(['contact']);
    const done = await callTool(
      t.rpcUrl,
      'signup_later',
      {},
      {
        elicitation: { state: rest.result.elicitation.state, answers: { contact: { email: 'e@f.example' } } },
      },
    );
    const result = await callTool(t.rpcUrl, 'redeem', {
      promise: done.result._meta.promise_token,
      wait_ms: 5000,
    });
    expect(result.result.content).toEqual({ plan: { tier: 'free' }, contact: { email: 'e@f.example' } });
  });

  it('treats a request name that cannot be a wire key as a bug in the tool (internal error)', async () => {
    const res = await callTool(t.rpcUrl, 'bad_name', {});
    expect(res.error!.code).toBe(-32603);
  });
});
