import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isoTime } from './iso-time.js';

describe('isoTime', () => {
  it('writes exactly what toISOString writes, for any time a Date can hold, cached or not', () => {
    fc.assert(
      fc.property(fc.integer({ min: -8.64e15, max: 8.64e15 }), (ms) => {
        expect(isoTime(ms)).toBe(new Date(ms).toISOString());
        expect(isoTime(ms)).toBe(new Date(ms).toISOString());
      }),
    );
  });

  it('follows consecutive milliseconds across a second (the cached prefix changes)', () => {
    const start = Date.parse('2026-11-23T19:00:00.995Z');
    for (let ms = start; ms < start + 12; ms++) expect(isoTime(ms)).toBe(new Date(ms).toISOString());
  });
});
