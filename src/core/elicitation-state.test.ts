import { describe, expect, it } from 'vitest';
import { ElicitationSigner } from './elicitation-state.js';

const binding = { args: 'digest-of-args', principal: null };
const payload = { tool: 'book', schema: { type: 'object' }, context: { step: 1 }, ...binding };

describe('signed elicitation state', () => {
  it('round-trips a genuine state', () => {
    const signer = new ElicitationSigner('secret', 60_000);
    const state = signer.sign(payload);
    expect(signer.verify(state, 'book', binding)).toMatchObject(payload);
  });

  it('is accepted by another replica with the same secret only', () => {
    const state = new ElicitationSigner('shared', 60_000).sign(payload);
    expect(new ElicitationSigner('shared', 60_000).verify(state, 'book', binding).context).toEqual({
      step: 1,
    });
    expect(() => new ElicitationSigner('other', 60_000).verify(state, 'book', binding)).toThrow(/forged/);
  });

  it('rejects altered, malformed, expired and wrong-tool states', () => {
    const signer = new ElicitationSigner('secret', 60_000);
    const state = signer.sign(payload);
    const [body, mac] = state.split('.') as [string, string];
    const altered = Buffer.from(
      JSON.stringify({ ...payload, context: { step: 99 }, exp: Date.now() + 1e6 }),
    ).toString('base64url');
    expect(() => signer.verify(`${altered}.${mac}`, 'book', binding)).toThrow(/forged/);
    expect(() => signer.verify(`${body}.AAAA`, 'book', binding)).toThrow(/forged/);
    expect(() => signer.verify('no-dot', 'book', binding)).toThrow(/malformed/);
    expect(() => signer.verify(42, 'book', binding)).toThrow(/malformed/);
    expect(() => signer.verify(state, 'other_tool', binding)).toThrow(/wrong tool/);
    const expired = new ElicitationSigner('secret', -1).sign(payload);
    expect(() => signer.verify(expired, 'book', binding)).toThrow(/expired/);
  });

  it('is good only for the arguments and the principal it was signed for', () => {
    const signer = new ElicitationSigner('secret', 60_000);
    const state = signer.sign(payload);
    expect(() => signer.verify(state, 'book', { ...binding, args: 'other' })).toThrow(
      /not for these arguments/,
    );
    expect(() => signer.verify(state, 'book', { ...binding, principal: 'someone' })).toThrow(
      /not for this caller/,
    );
    const [first, second] = [signer.sign(payload), signer.sign(payload)];
    expect(signer.verify(first, 'book', binding).nonce).not.toBe(
      signer.verify(second, 'book', binding).nonce,
    );
  });

  it('accepts only the canonical base64url text of the MAC', () => {
    const signer = new ElicitationSigner('secret', 60_000);
    // A MAC with '-' or '_' in it, so that the standard alphabet spells it differently.
    let state = signer.sign(payload);
    for (let i = 0; !/[-_]/.test(state.split('.')[1]!); i++) state = signer.sign({ ...payload, context: i });
    const [body, mac] = state.split('.') as [string, string];
    const standard = Buffer.from(mac, 'base64url').toString('base64');
    for (const bad of [
      `${mac}=`,
      `${mac}==`,
      `${mac}AA`,
      `${mac}!`,
      ` ${mac}`,
      standard,
      standard.replace(/=+$/, ''),
    ]) {
      expect(() => signer.verify(`${body}.${bad}`, 'book', binding), bad).toThrow(/forged/);
    }
    expect(() => signer.verify(`${body}=.${mac}`, 'book', binding)).toThrow(/forged|malformed/);
    expect(signer.verify(state, 'book', binding).tool).toBe('book');
  });
});
