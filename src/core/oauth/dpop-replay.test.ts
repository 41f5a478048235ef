import { describe, expect, it } from 'vitest';
import { McpLiteError } from '../errors.js';
import { DpopReplayCache } from './dpop-replay.js';

/** The replay cache's bounds, on a clock the test moves (entries live a fixed time after they are recorded). */
function cache(limits: { maxEntries: number; maxEntriesPerCaller: number }) {
  const clock = { now: 1_000_000 };
  return { clock, replay: new DpopReplayCache({ ...limits, ttlMs: 1000 }, () => clock.now) };
}

function codeOf(f: () => unknown): string | undefined {
  try {
    f();
  } catch (err) {
    return err instanceof McpLiteError ? err.code : 'other';
  }
  return undefined;
}

describe('DpopReplayCache', () => {
  it('takes a jti once per caller, and again once its time has passed', () => {
    const { clock, replay } = cache({ maxEntries: 10, maxEntriesPerCaller: 10 });
    expect(replay.record('alice', 'j1')).toBe(true);
    expect(replay.record('alice', 'j1')).toBe(false);
    // Another caller's jti is another entry.
    expect(replay.record('bob', 'j1')).toBe(true);
    clock.now += 999;
    expect(replay.record('alice', 'j1')).toBe(false);
    clock.now += 1;
    expect(replay.record('alice', 'j1')).toBe(true);
    expect(replay.size).toBe(1);
  });

  it("answers a caller's full bound to that caller alone, evicting no one", () => {
    const { clock, replay } = cache({ maxEntries: 100, maxEntriesPerCaller: 3 });
    for (const jti of ['a', 'b', 'c']) replay.record('alice', jti);
    replay.record('bob', 'x');
    expect(codeOf(() => replay.record('alice', 'd'))).toBe('resource_exhausted');
    // Bob is not affected, and Alice's entries are all still there.
    expect(replay.record('bob', 'y')).toBe(true);
    for (const jti of ['a', 'b', 'c']) expect(replay.record('alice', jti)).toBe(false);
    clock.now += 1000;
    expect(replay.record('alice', 'd')).toBe(true);
  });

  it('answers a full cache with unavailable, keeping every live entry', () => {
    const { clock, replay } = cache({ maxEntries: 4, maxEntriesPerCaller: 4 });
    for (const caller of ['a', 'b', 'c', 'd']) replay.record(caller, 'j');
    expect(codeOf(() => replay.record('e', 'j'))).toBe('unavailable');
    for (const caller of ['a', 'b', 'c', 'd']) expect(replay.record(caller, 'j')).toBe(false);
    clock.now += 1000;
    expect(replay.record('e', 'j')).toBe(true);
    expect(replay.size).toBe(1);
  });

  it('drops expired entries in order however many pass through', () => {
    const { clock, replay } = cache({ maxEntries: 50, maxEntriesPerCaller: 50 });
    for (let i = 0; i < 5000; i++) {
      expect(replay.record(`c${i % 7}`, `j${i}`)).toBe(true);
      clock.now += 25;
    }
    // 1000 ms of entries at one per 25 ms.
    expect(replay.size).toBe(40);
  });
});
