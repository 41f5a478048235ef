import { describe, expect, it } from 'vitest';
import { CallerSessions } from './caller-session.js';
import { ElicitationSigner } from './elicitation-state.js';
import { silentLogger } from './logger.js';
import { TokenSigner } from './signed-token.js';

describe('the one signed token format', () => {
  it('opens a token only for the purpose it was sealed for', () => {
    const tokens = new TokenSigner('shared');
    const token = tokens.seal('session', { v: 1 });
    expect(tokens.open(token, 'session')).toEqual({ ok: true, payload: { v: 1, purpose: 'session' } });
    expect(tokens.open(token, 'elicitation')).toEqual({ ok: false, reason: 'wrong_purpose' });
    expect(new TokenSigner('other').open(token, 'session')).toEqual({ ok: false, reason: 'forged' });
  });

  it('never lets an elicitation state pass as a session, nor a session as an elicitation state', () => {
    const state = new ElicitationSigner('shared', 60_000).sign({
      tool: 'count',
      context: null,
      args: 'digest',
      principal: null,
    });
    const sessions = new CallerSessions('shared', 'mcplite', 60_000, silentLogger);
    expect(sessions.read(state, 'anonymous')).toBeUndefined();
    const session = sessions.seal({ n: 1 }, 'anonymous');
    expect(sessions.read(session, 'anonymous')).toEqual({ n: 1 });
    expect(() =>
      new ElicitationSigner('shared', 60_000).verify(session, 'count', { args: 'digest', principal: null }),
    ).toThrow(/malformed/);
  });
});
