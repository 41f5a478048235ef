/**
 * The promise manager over the embedded memory store (through `createServer`, which wires them): work turned into
 * a promise, redeemed pending, waited for and settled; cancelled work is aborted; malformed, unknown and expired
 * tokens get their own errors; a stored error comes back as the error it was.
 */
import { describe, expect, it } from 'vitest';
import { createServer } from '../../create-server.js';
import { McpLiteError } from '../errors.js';
import { LazyAbort } from '../lazy-abort.js';
import type { Settlement } from './store.js';

function manager(promiseTtlMs = 60_000) {
  const server = createServer({ tools: [], promiseTtlMs });
  return server.promises!;
}

describe('PromiseManager', () => {
  it('hands out a promise for running work, pending until it settles, then its outcome', async () => {
    const promises = manager();
    let settle!: (s: Settlement) => void;
    const work = new Promise<Settlement>((r) => {
      settle = r;
    });
    const promise = await promises.register('job', 1_000, new LazyAbort(), () => work);
    expect(promise.type).toBe('promise');
    expect(Date.parse(promise.estimatedCompletion)).toBeGreaterThan(Date.now());
    const pending = await promises.redeem(promise.token, {}, 0);
    expect(pending.outcome).toMatchObject({ type: 'promise', token: promise.token });
    const waited = promises.redeem(promise.token, {}, 5_000);
    settle({ outcome: { type: 'answer', result: 42 }, processingTimeMs: 7 });
    expect(await waited).toEqual({ outcome: { type: 'answer', result: 42 }, processingTimeMs: 7 });
  });

  it('cancels pending work (aborting it) and says so on redeem; a settled promise is not cancelled', async () => {
    const promises = manager();
    const controller = new LazyAbort();
    const promise = await promises.register(
      'job',
      1_000,
      controller,
      () => new Promise<Settlement>(() => {}),
    );
    expect(await promises.cancel(promise.token, {})).toEqual({ cancelled: true, status: 'cancelled' });
    expect(controller.aborted).toBe(true);
    expect((await promises.redeem(promise.token, {}, 0)).outcome).toMatchObject({
      type: 'failure',
      code: 'cancelled',
    });
    const done = await promises.settled('job', {
      outcome: { type: 'answer', result: 1 },
      processingTimeMs: 0,
    });
    expect(await promises.cancel(done.token, {})).toEqual({ cancelled: false, status: 'settled' });
  });

  it('refuses malformed, unknown and expired tokens with distinct errors', async () => {
    const promises = manager(30);
    await expect(promises.redeem('not a token', {}, 0)).rejects.toMatchObject({
      code: 'invalid_params',
      data: { reason: 'malformed' },
    });
    const known = await promises.settled('job', {
      outcome: { type: 'answer', result: 1 },
      processingTimeMs: 0,
    });
    const unknown = `${known.token.slice(0, -4)}${known.token.slice(-4) === 'AAAA' ? 'BBBB' : 'AAAA'}`;
    await expect(promises.redeem(unknown, {}, 0)).rejects.toMatchObject({ code: 'promise_not_found' });
    await new Promise((r) => setTimeout(r, 60));
    await expect(promises.redeem(known.token, {}, 0)).rejects.toMatchObject({ code: 'promise_expired' });
  });

  it('gives back a stored error as that error, and an unknown stored code as internal', async () => {
    const promises = manager();
    const failed = await promises.settled('job', {
      error: { code: 'deadline_exceeded', message: 'too slow' },
      processingTimeMs: 1,
    });
    await expect(promises.redeem(failed.token, {}, 0)).rejects.toMatchObject({
      code: 'deadline_exceeded',
      message: 'too slow',
    });
    const foreign = await promises.settled('job', {
      error: { code: 'from_a_newer_version', message: 'odd' },
      processingTimeMs: 1,
    });
    const err = await promises.redeem(foreign.token, {}, 0).catch((e) => e);
    expect(err).toBeInstanceOf(McpLiteError);
    expect(err.code).toBe('internal');
  });

  it('reports the TTL it was configured with', () => {
    expect(manager(12_345).ttlMs).toBe(12_345);
  });
});
