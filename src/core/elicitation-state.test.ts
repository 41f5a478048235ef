import { describe, expect, it } from 'vitest';
import { ElicitationSigner } from './elicitation-state.js';

const payload = { tool: 'book', schema: { type: 'object' }, context: { step: 1 } };

describe('signed elicitation state', () => {
  it('round-trips a genuine state', () => {
    const signer = new ElicitationSigner('secret', 60_000);
    const state = signer.sign(payload);
    expect(signer.verify(state, 'book')).toMatchObject(payload);
  });

  it('is accepted by another replica with the same secret only', () => {
    const state = new ElicitationSigner('shared', 60_000).sign(payload);
    expect(new ElicitationSigner('shared', 60_000).verify(state, 'book').context).toEqual({ step: 1 });
    expect(() => new ElicitationSigner('other', 60_000).verify(state, 'book')).toThrow(/forged/);
  });

  it('rejects altered, malformed, expired and wrong-tool states', () => {
    const signer = new ElicitationSigner('secret', 60_000);
    const state = signer.sign(payload);
    const [body, mac] = state.split('.') as [string, string];
    const altered = Buffer.from(
      JSON.stringify({ ...payload, context: { step: 99 }, exp: Date.now() + 1e6 }),
    ).toString('base64url');
    expect(() => signer.verify(`${altered}.${mac}`, 'book')).toThrow(/forged/);
    expect(() => signer.verify(`${body}.AAAA`, 'book')).toThrow(/forged/);
    expect(() => signer.verify('no-dot', 'book')).toThrow(/malformed/);
    expect(() => signer.verify(42, 'book')).toThrow(/malformed/);
    expect(() => signer.verify(state, 'other_tool')).toThrow(/wrong tool/);
    const expired = new ElicitationSigner('secret', -1).sign(payload);
    expect(() => signer.verify(expired, 'book')).toThrow(/expired/);
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
      expect(() => signer.verify(`${body}.${bad}`, 'book'), bad).toThrow(/forged/);
    }
    expect(() => signer.verify(`${body}=.${mac}`, 'book')).toThrow(/forged|malformed/);
    expect(signer.verify(state, 'book').tool).toBe('book');
  });
});
