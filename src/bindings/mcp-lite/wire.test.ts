import { describe, expect, it } from 'vitest';
import type { CallResult, Outcome, ResponseMeta } from '../../core/outcomes.js';
import { toWireResult, wireResultJson } from './wire.js';

const meta = (extra: Partial<ResponseMeta> = {}): ResponseMeta => ({
  response_type: 'answer',
  timestamp: Date.parse('2026-11-22T21:28:25.154Z'),
  processing_time_ms: 3,
  server_version: '1.0.0',
  ...extra,
});

const results: Array<[string, CallResult]> = [
  [
    'an object answer',
    { outcome: { type: 'answer', result: { message: 'hé "quoted"\n', n: [1, 2.5, null] } }, meta: meta() },
  ],
  ['a string answer', { outcome: { type: 'answer', result: 'plain \u2028 text' }, meta: meta() }],
  ['a null answer', { outcome: { type: 'answer', result: null }, meta: meta({ processing_time_ms: 0 }) }],
  ['an answer of undefined', { outcome: { type: 'answer', result: undefined }, meta: meta() }],
  ['an answer with toJSON', { outcome: { type: 'answer', result: new Date(0) }, meta: meta() }],
  [
    'a version that needs escaping',
    { outcome: { type: 'answer', result: 1 }, meta: meta({ server_version: '2.0 "beta"\\' }) },
  ],
  [
    'a failure',
    {
      outcome: { type: 'failure', message: 'nope', code: 'E1' } as Outcome,
      meta: meta({ response_type: 'failure' }),
    },
  ],
  [
    'a promise',
    {
      outcome: {
        type: 'promise',
        token: 'prom_abc',
        estimatedCompletion: '2026-11-22T22:00:00.000Z',
      } as Outcome,
      meta: meta({
        response_type: 'promise',
        promise_token: 'prom_abc',
        estimated_completion: Date.parse('2026-11-22T22:00:00.000Z'),
      }),
    },
  ],
];

describe('wireResultJson', () => {
  it.each(results)('writes %s exactly as JSON.stringify(toWireResult(…)) does', (_name, result) => {
    expect(wireResultJson(result)).toBe(JSON.stringify(toWireResult(result)));
  });

  it('follows a change of server version', () => {
    const a: CallResult = { outcome: { type: 'answer', result: 1 }, meta: meta({ server_version: 'a' }) };
    const b: CallResult = { outcome: { type: 'answer', result: 1 }, meta: meta({ server_version: 'b' }) };
    expect(JSON.parse(wireResultJson(a))._meta.server_version).toBe('a');
    expect(JSON.parse(wireResultJson(b))._meta.server_version).toBe('b');
  });
});
