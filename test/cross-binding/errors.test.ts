/**
 * Cross-binding cases: protocol errors (invalid params, unknown tool, unknown and malformed promise
 * tokens, internal, deadline exceeded) and authentication (refused without the token, accepted with it). Each case runs over every binding, which must all give its expected
 * transcript (the harness and the adapters: test/support/cross-binding.ts).
 */
import { answer, type Case, describeCases, tools } from '../support/cross-binding.js';

const CASES: Case[] = [
  {
    name: 'error: invalid params (missing required, wrong type)',
    run: async (s) => [
      (await s.call('echo', { times: 2 })).reply,
      (await s.call('echo', { message: 'x', times: 'two' })).reply,
      (await s.call('echo')).reply,
    ],
    expected: [
      { kind: 'error', class: 'invalid_params', detail: { fields: ['message'] } },
      { kind: 'error', class: 'invalid_params', detail: { fields: ['times'] } },
      { kind: 'error', class: 'invalid_params', detail: { fields: ['message'] } },
    ],
  },
  {
    name: 'error: unknown tool, with the available tools and a suggestion',
    run: async (s) => (await s.call('ecko', { message: 'hi' })).reply,
    expected: {
      kind: 'error',
      class: 'tool_not_found',
      detail: {
        requested_tool: 'ecko',
        available_tools: ['redeem', 'cancel', ...tools.map((t) => t.name)],
        suggestion: "Did you mean 'echo'?",
      },
    },
  },
  {
    name: 'error: unknown and malformed promise tokens',
    run: async (s) => [
      (await s.call('redeem', { promise: `prom_${'Q'.repeat(32)}` })).reply,
      (await s.call('redeem', { promise: '!' })).reply,
    ],
    expected: [
      { kind: 'error', class: 'promise_not_found', detail: {} },
      { kind: 'error', class: 'invalid_params', detail: {} },
    ],
  },
  {
    name: 'error: internal, without leaked detail',
    run: async (s) => (await s.call('boom', {})).reply,
    expected: { kind: 'error', class: 'internal', detail: {} },
  },
  {
    name: 'error: deadline exceeded (reported by the tool)',
    run: async (s) => (await s.call('upstream', {})).reply,
    expected: { kind: 'error', class: 'deadline_exceeded', detail: {} },
  },
  {
    name: 'error: unauthenticated without a token',
    fixture: 'guarded',
    run: async (s) => [(await s.call('echo', { message: 'hi' })).reply, (await s.stream('report', {})).final],
    expected: [
      { kind: 'error', class: 'unauthenticated', detail: {} },
      { kind: 'error', class: 'unauthenticated', detail: {} },
    ],
  },
  {
    name: 'auth: the same call with the token',
    fixture: 'guarded-with-token',
    run: async (s) => (await s.call('echo', { message: 'hi' })).reply,
    expected: answer({ echo: 'hi', times: 1 }),
  },
];

describeCases(CASES);
