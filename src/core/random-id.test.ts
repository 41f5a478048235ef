import { describe, expect, it } from 'vitest';
import { isWellFormedToken, newPromiseToken } from './promises/token.js';
import { randomId } from './random-id.js';

describe('randomId (the pooled CSPRNG bytes behind tokens and ids)', () => {
  it('never hands out the same bytes twice, across many refills of its pool', () => {
    // 24-byte ids: about 170 to a 4 KiB pool, so 20,000 of them refill it over a hundred times.
    const ids = Array.from({ length: 20_000 }, () => randomId(24, 'base64url'));
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids.slice(0, 500)) expect(id).toMatch(/^[A-Za-z0-9_-]{32}$/);
  });

  it('encodes exactly the bytes asked for, in hex or base64url, also past the pool size', () => {
    expect(randomId(16, 'hex')).toMatch(/^[0-9a-f]{32}$/);
    expect(randomId(6, 'hex')).toMatch(/^[0-9a-f]{12}$/);
    expect(Buffer.from(randomId(5000, 'base64url'), 'base64url')).toHaveLength(5000);
  });

  it('spreads its bits evenly (each hex digit about 1/16 of 160,000)', () => {
    const digits = Array.from({ length: 10_000 }, () => randomId(8, 'hex')).join('');
    const counts = new Map<string, number>();
    for (const d of digits) counts.set(d, (counts.get(d) ?? 0) + 1);
    expect(counts.size).toBe(16);
    for (const n of counts.values()) expect(Math.abs(n - 10_000)).toBeLessThan(600);
  });

  it('makes promise tokens of the documented shape', () => {
    const token = newPromiseToken();
    expect(isWellFormedToken(token)).toBe(true);
    expect(token).not.toBe(newPromiseToken());
  });
});
