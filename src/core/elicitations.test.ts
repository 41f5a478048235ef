import { describe, expect, it } from 'vitest';
import type { ElicitationNonceStore } from './elicitation-nonces.js';
import { Elicitations } from './elicitations.js';
import { type ElicitationOutcome, elicit, type HandlerOutcome } from './outcomes.js';

const NAME = { type: 'object', required: ['name'], properties: { name: { type: 'string' } } };
const AGE = { type: 'object', required: ['age'], properties: { age: { type: 'integer' } } };

/** The request a handler's `elicit(...)` carries (the brand stripped by the type). */
const request = (outcome: HandlerOutcome) => outcome as Extract<HandlerOutcome, { type: 'elicit' }>;

/** The smallest store that keeps the contract: core may not import the stores (the real ones are tested there). */
function nonceSet(): ElicitationNonceStore {
  const used = new Set<string>();
  return { use: (nonce) => !used.has(nonce) && Boolean(used.add(nonce)) };
}

/** The call that asks and answers in these tests. */
const call = { arguments: { id: 'n9' }, principal: undefined };

describe('elicitation rounds', () => {
  const rounds = new Elicitations('secret', 60_000, nonceSet());
  const ask = (r: HandlerOutcome, c: typeof call = call) =>
    rounds.outcome('t', request(r), c) as ElicitationOutcome;

  it('keeps the single form as it was: one schema, answers as one object', async () => {
    const asked = ask(elicit({ message: 'Name?', schema: NAME, context: 7 }));
    expect(asked).toEqual({
      type: 'elicitation',
      message: 'Name?',
      requestedSchema: NAME,
      state: asked.state,
    });
    expect(await rounds.check('t', { state: asked.state, answers: { name: 'Ada' } }, call, 'c')).toEqual({
      complete: { action: 'accept', answers: { name: 'Ada' }, context: 7 },
    });
  });

  it('takes the one answer of a single form when a wire keys it by request name', async () => {
    const asked = ask(elicit({ message: 'Name?', schema: NAME }));
    const checked = await rounds.check(
      't',
      { state: asked.state, answers: { user_name: { name: 'Ada' } }, keyed: true },
      call,
      'c',
    );
    expect(checked.complete?.answers).toEqual({ name: 'Ada' });
  });

  it('signs the answers so far into the state of the next round, and completes with all of them', async () => {
    const asked = ask(
      elicit({
        requests: { name: { message: 'Name?', schema: NAME }, age: { message: 'Age?', schema: AGE } },
      }),
    );
    const partial = await rounds.check('t', { state: asked.state, answers: { age: { age: 36 } } }, call, 'c');
    expect(partial.reask?.requests).toEqual({ name: { message: 'Name?', requestedSchema: NAME } });
    const done = await rounds.check(
      't',
      { state: partial.reask!.state, answers: { name: { name: 'Ada' } } },
      call,
      'c',
    );
    expect(done.complete).toEqual({
      action: 'accept',
      answers: { age: { age: 36 }, name: { name: 'Ada' } },
      context: null,
    });
    // A state is good for its own tool only, and another replica needs the same secret.
    const again = ask(elicit({ message: 'Name?', schema: NAME }));
    await expect(rounds.check('other', { state: again.state, answers: {} }, call, 'c')).rejects.toThrow(
      /wrong tool/,
    );
    await expect(
      new Elicitations('another', 60_000, nonceSet()).check(
        't',
        { state: again.state, answers: {} },
        call,
        'c',
      ),
    ).rejects.toThrow(/forged/);
  });

  it('binds a state to the arguments in any key order, and to the principal', async () => {
    const ada = { id: 'ada' };
    const asked = ask(elicit({ message: 'Name?', schema: NAME }), {
      arguments: { a: 1, b: { c: 2, d: 3 } },
      principal: ada,
    } as never);
    const reply = { state: asked.state, answers: { name: 'x' } };
    await expect(
      rounds.check('t', reply, { arguments: { a: 1, b: { c: 2, d: 4 } }, principal: ada }, 'c'),
    ).rejects.toMatchObject({ code: 'invalid_params', data: { reason: 'wrong_arguments' } });
    await expect(
      rounds.check('t', reply, { arguments: { a: 1, b: { c: 2, d: 3 } }, principal: undefined }, 'c'),
    ).rejects.toMatchObject({ code: 'invalid_params', data: { reason: 'wrong_caller' } });
    const same = { arguments: { b: { d: 3, c: 2 }, a: 1 }, principal: ada };
    expect((await rounds.check('t', reply, same, 'c')).complete?.answers).toEqual({ name: 'x' });
    await expect(rounds.check('t', reply, same, 'c')).rejects.toMatchObject({
      code: 'invalid_params',
      data: { reason: 'already_used' },
    });
  });

  it('completes a decline with no answers, and ends a handler that asks again after it as declined', async () => {
    const asked = ask(elicit({ message: 'Name?', schema: NAME, context: 'ctx' }));
    const declined = await rounds.check(
      't',
      { state: asked.state, action: 'decline', answers: undefined },
      call,
      'c',
    );
    expect(declined.complete).toMatchObject({ action: 'decline', context: 'ctx' });
    // Answers the user never gave cannot be read (core ends such a call as declined); they never travel.
    expect(() => declined.complete!.answers).toThrow(/did not provide the input \(decline\)/);
    expect(JSON.parse(JSON.stringify(declined.complete))).toEqual({ action: 'decline', context: 'ctx' });
    const again = rounds.outcome('t', request(elicit({ message: 'Name?', schema: NAME })), {
      ...call,
      elicitation: declined.complete,
    });
    expect(again).toMatchObject({ type: 'failure', code: 'declined' });
  });

  it('takes no answer without a store of used states', async () => {
    const storeless = new Elicitations('secret', 60_000, undefined);
    const asked = storeless.outcome('t', request(elicit({ message: 'Name?', schema: NAME })), call);
    await expect(
      storeless.check('t', { state: (asked as ElicitationOutcome).state, answers: { name: 'x' } }, call, 'c'),
    ).rejects.toMatchObject({ data: { reason: 'no_nonce_store' } });
  });
});
