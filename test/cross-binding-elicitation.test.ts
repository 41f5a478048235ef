/**
 * Cross-binding cases: elicitation: one request answered (and a refused and a forged answer), and a
 * multi-request elicitation answered in two rounds. Each case runs over every binding, which must all give its expected
 * transcript (the harness and the adapters: test/support/cross-binding.ts).
 */
import { expect } from 'vitest';
import {
  answer,
  type Case,
  COLOUR_SCHEMA,
  describeCases,
  META,
  SIZE_SCHEMA,
} from './support/cross-binding.js';

const CASES: Case[] = [
  {
    name: 'elicitation, then the answer',
    async run(s) {
      const asked = await s.call('ask', {});
      expect(asked.state).toBeTypeOf('string');
      const answered = await s.call('ask', {}, { state: asked.state, answers: { size: 'M' } });
      const refused = await s.call('ask', {}, { state: asked.state, answers: { size: 'XXL' } });
      const forged = await s.call('ask', {}, { state: `${asked.state}x`, answers: { size: 'S' } });
      return [asked.reply, answered.reply, refused.reply, forged.reply];
    },
    expected: [
      {
        kind: 'result',
        response_type: 'elicitation',
        fields: {
          elicitation: {
            message: 'Which size?',
            requested_schema: {
              type: 'object',
              required: ['size'],
              properties: { size: { type: 'string', enum: ['S', 'M', 'L'] } },
            },
            state: '<state>',
          },
        },
        meta: META,
      },
      answer({ size: 'M', step: 1 }),
      { kind: 'error', class: 'invalid_params', detail: { fields: ['size'] } },
      { kind: 'error', class: 'invalid_params', detail: {} },
    ],
  },
  {
    name: 'multi-request elicitation: partial answer, the rest asked again, then the answer',
    async run(s) {
      const asked = await s.call('ask_two', {});
      const partial = await s.call('ask_two', {}, { state: asked.state, answers: { size: { size: 'M' } } });
      const done = await s.call(
        'ask_two',
        {},
        { state: partial.state, answers: { colour: { colour: 'red' } } },
      );
      const refused = await s.call('ask_two', {}, { state: asked.state, answers: { size: { size: 'XXL' } } });
      return [asked.reply, partial.reply, done.reply, refused.reply];
    },
    expected: [
      {
        kind: 'result',
        response_type: 'elicitation',
        fields: {
          elicitation: {
            message: 'Which size? Which colour?',
            requested_schema: { type: 'object', properties: { size: SIZE_SCHEMA, colour: COLOUR_SCHEMA } },
            state: '<state>',
            requests: {
              size: { message: 'Which size?', requested_schema: SIZE_SCHEMA },
              colour: { message: 'Which colour?', requested_schema: COLOUR_SCHEMA },
            },
          },
        },
        meta: META,
      },
      {
        kind: 'result',
        response_type: 'elicitation',
        fields: {
          elicitation: {
            message: 'Which colour?',
            requested_schema: { type: 'object', properties: { colour: COLOUR_SCHEMA } },
            state: '<state>',
            requests: { colour: { message: 'Which colour?', requested_schema: COLOUR_SCHEMA } },
          },
        },
        meta: META,
      },
      answer({ size: { size: 'M' }, colour: { colour: 'red' } }),
      { kind: 'error', class: 'invalid_params', detail: { fields: ['size.size'] } },
    ],
  },
];

describeCases(CASES);
