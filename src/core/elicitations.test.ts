import { describe, expect, it } from 'vitest';
import { Elicitations } from './elicitations.js';
import { elicit, type HandlerOutcome } from './outcomes.js';

const NAME = { type: 'object', required: ['name'], properties: { name: { type: 'string' } } };
const AGE = { type: 'object', required: ['age'], properties: { age: { type: 'integer' } } };

/** The request a handler's `elicit(...)` carries (the brand stripped by the type). */
const request = (outcome: HandlerOutcome) => outcome as Extract<HandlerOutcome, { type: 'elicit' }>;

describe('elicitation rounds', () => {
  const rounds = new Elicitations('secret', 60_000);

  it('keeps the single form as it was: one schema, answers as one object', () => {
    const asked = rounds.outcome('t', request(elicit({ message: 'Name?', schema: NAME, context: 7 })));
    expect(asked).toEqual({
      type: 'elicitation',
      message: 'Name?',
      requestedSchema: NAME,
      state: asked.state,
    });
    expect(rounds.check('t', { state: asked.state, answers: { name: 'Ada' } })).toEqual({
      complete: { answers: { name: 'Ada' }, context: 7 },
    });
  });

  it('takes the one answer of a single form when a wire keys it by request name', () => {
    const asked = rounds.outcome('t', request(elicit({ message: 'Name?', schema: NAME })));
    const checked = rounds.check('t', {
      state: asked.state,
      answers: { user_name: { name: 'Ada' } },
      keyed: true,
    });
    expect(checked.complete?.answers).toEqual({ name: 'Ada' });
  });

  it('signs the answers so far into the state of the next round, and completes with all of them', () => {
    const asked = rounds.outcome(
      't',
      request(
        elicit({
          requests: { name: { message: 'Name?', schema: NAME }, age: { message: 'Age?', schema: AGE } },
        }),
      ),
    );
    const partial = rounds.check('t', { state: asked.state, answers: { age: { age: 36 } } });
    expect(partial.reask?.requests).toEqual({ name: { message: 'Name?', requestedSchema: NAME } });
    const done = rounds.check('t', { state: partial.reask!.state, answers: { name: { name: 'Ada' } } });
    expect(done.complete).toEqual({ answers: { age: { age: 36 }, name: { name: 'Ada' } }, context: null });
    // A state is good for its own tool only, and another replica needs the same secret.
    expect(() => rounds.check('other', { state: asked.state, answers: {} })).toThrow(/wrong tool/);
    expect(() => new Elicitations('another', 60_000).check('t', { state: asked.state, answers: {} })).toThrow(
      /forged/,
    );
  });
});
