import { describe, expect, it } from 'vitest';
import { LazyAbort } from './lazy-abort.js';

describe('LazyAbort', () => {
  it('aborts once: the first reason is kept, listeners are called once each, in order', () => {
    const abort = new LazyAbort();
    const heard: string[] = [];
    abort.onAbort((reason) => heard.push(`a:${String(reason)}`));
    abort.onAbort((reason) => heard.push(`b:${String(reason)}`));
    expect(abort.aborted).toBe(false);
    expect(abort.reason).toBeUndefined();
    abort.abort('first');
    abort.abort('second');
    expect(abort.aborted).toBe(true);
    expect(abort.reason).toBe('first');
    expect(heard).toEqual(['a:first', 'b:first']);
  });

  it('gives an AbortError DOMException as the reason when none is given, as AbortController does', () => {
    const abort = new LazyAbort();
    abort.abort();
    const native = new AbortController();
    native.abort();
    expect(abort.reason).toBeInstanceOf(DOMException);
    expect((abort.reason as DOMException).name).toBe((native.signal.reason as DOMException).name);
  });

  it('calls a listener added after the abort at once, with the reason', () => {
    const abort = new LazyAbort();
    abort.abort('gone');
    let heard: unknown;
    abort.onAbort((reason) => {
      heard = reason;
    });
    expect(heard).toBe('gone');
  });

  it('does not call a listener that was removed', () => {
    const abort = new LazyAbort();
    const heard: string[] = [];
    const remove = abort.onAbort(() => heard.push('removed'));
    abort.onAbort(() => heard.push('kept'));
    remove();
    remove();
    abort.abort('x');
    expect(heard).toEqual(['kept']);
  });

  it('makes a real AbortSignal on first read, aborted with the same reason before or after it is made', async () => {
    const early = new LazyAbort();
    const signal = early.signal;
    expect(signal).toBeInstanceOf(AbortSignal);
    expect(early.signal).toBe(signal);
    const fired = new Promise((resolve) => signal.addEventListener('abort', () => resolve(signal.reason)));
    early.abort('after');
    expect(await fired).toBe('after');

    const late = new LazyAbort();
    late.abort('before');
    expect(late.signal.aborted).toBe(true);
    expect(late.signal.reason).toBe('before');
  });
});
