/**
 * Cross-binding cases: streamed calls: partials, then the final answer, a failure or an internal error,
 * and a protocol error before any partial. Each case runs over every binding, which must all give its expected
 * transcript (the harness and the adapters: test/support/cross-binding.ts).
 */
import { answer, type Case, describeCases, META } from '../support/cross-binding.js';

const CASES: Case[] = [
  {
    name: 'stream: partials, then the final answer with meta',
    run: (s) => s.stream('report', {}),
    expected: { partials: ['part one', { part: 2 }], final: answer({ pages: 2 }) },
  },
  {
    name: 'stream: partials, then a failure',
    run: (s) => s.stream('report_fail', {}),
    expected: {
      partials: ['begun'],
      final: {
        kind: 'result',
        response_type: 'failure',
        fields: { failure: { message: 'Printer jammed' } },
        meta: META,
      },
    },
  },
  {
    name: 'stream: partials, then an internal error',
    run: (s) => s.stream('report_boom', {}),
    expected: { partials: ['begun'], final: { kind: 'error', class: 'internal', detail: {} } },
  },
  {
    name: 'stream: a protocol error before anything',
    run: (s) => s.stream('echo', {}),
    expected: {
      partials: [],
      final: { kind: 'error', class: 'invalid_params', detail: { fields: ['message'] } },
    },
  },
];

describeCases(CASES);
