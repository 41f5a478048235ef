/**
 * Cross-binding cases: the outcomes of a call (answers of every kind, failure, a promise redeemed,
 * request-for-more-resource) and tool discovery. Each case runs over every binding, which must all give its expected
 * transcript (the harness and the adapters: test/support/cross-binding.ts).
 */
import { expect } from 'vitest';
import { answer, type Case, coreListing, describeCases, META } from '../support/cross-binding.js';

const CASES: Case[] = [
  {
    name: 'answer (object)',
    run: async (s) => (await s.call('echo', { message: 'hi', times: 2 })).reply,
    expected: answer({ echo: 'hi', times: 2 }),
  },
  {
    name: 'answer (list)',
    run: async (s) => (await s.call('list', {})).reply,
    expected: answer(['a', 1, null, { b: [true, 2.5] }]),
  },
  { name: 'answer (string)', run: async (s) => (await s.call('text')).reply, expected: answer('plain text') },
  {
    name: 'failure',
    run: async (s) => (await s.call('fail', {})).reply,
    expected: {
      kind: 'result',
      response_type: 'failure',
      fields: { failure: { message: 'Out of stock', code: 'OOS', details: { sku: 'x1' } } },
      meta: META,
    },
  },
  {
    name: 'promise, then redeem',
    async run(s) {
      const promised = await s.call('slow', {});
      expect(promised.token).toBeTypeOf('string');
      const redeemed = await s.call('redeem', { promise: promised.token, wait_ms: 5000 });
      return [promised.reply, redeemed.reply];
    },
    expected: [
      {
        kind: 'result',
        response_type: 'promise',
        fields: {},
        meta: { ...META, promise_token: true, estimated_completion: true },
      },
      answer({ done: true }),
    ],
  },
  {
    name: 'request-for-more-resource',
    run: async (s) => (await s.call('more', {})).reply,
    expected: {
      kind: 'result',
      response_type: 'request-for-more-resource',
      fields: {
        resource_request: { resource: 'cost', requested: 5, granted: 1, unit: 'usd', message: 'Costs 5 USD' },
      },
      meta: META,
    },
  },
  {
    name: 'tool discovery: every tool, with its type, description and input schema',
    run: (s) => s.listTools(),
    // What core lists is the truth each binding must carry faithfully.
    expected: coreListing(),
  },
];

describeCases(CASES);
