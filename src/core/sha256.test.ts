import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { equalInConstantTime, hmacSha256, sha256 } from './sha256.js';

/**
 * The one SHA-256 and HMAC every runtime uses (Workers without nodejs_compat included) sign elicitation states and
 * digest arguments: each must give node:crypto's bytes exactly, across the block boundaries.
 */

const LENGTHS = [0, 1, 31, 55, 56, 63, 64, 65, 119, 128, 1000, 100_000];

function bytes(length: number, seed: number): Uint8Array {
  return Uint8Array.from({ length }, (_, i) => (i * 31 + seed * 7 + (i >> 8)) & 255);
}

describe('sha256 and hmacSha256 on every runtime', () => {
  it('digests as node:crypto does, for every length around the 64-byte blocks', () => {
    for (const length of LENGTHS) {
      const data = bytes(length, length);
      const expected = createHash('sha256').update(data).digest('hex');
      expect(Buffer.from(sha256(data)).toString('hex'), `length ${length}`).toBe(expected);
      expect(Buffer.from(sha256(data)).toString('hex')).toBe(expected);
    }
    expect(Buffer.from(sha256(new TextEncoder().encode('héllo ✓'))).toString('hex')).toBe(
      createHash('sha256').update('héllo ✓').digest('hex'),
    );
  });

  it('makes the HMACs node:crypto makes, with short, block-sized and long keys', () => {
    for (const keyLength of [0, 16, 32, 64, 65, 200]) {
      const key = bytes(keyLength, 3);
      for (const length of [0, 10, 64, 1000]) {
        const data = bytes(length, 5);
        const expected = createHmac('sha256', key).update(data).digest('hex');
        expect(Buffer.from(hmacSha256(key, data)).toString('hex'), `key ${keyLength}`).toBe(expected);
        expect(Buffer.from(hmacSha256(key, data)).toString('hex')).toBe(expected);
      }
    }
    expect(Buffer.from(hmacSha256(bytes(32, 1), 'state.body')).toString('hex')).toBe(
      createHmac('sha256', bytes(32, 1)).update('state.body').digest('hex'),
    );
  });

  it('compares bytes as timingSafeEqual does', () => {
    const a = bytes(32, 1);
    const b = bytes(32, 1);
    const c = bytes(32, 2);
    expect(equalInConstantTime(a, b)).toBe(timingSafeEqual(a, b));
    expect(equalInConstantTime(a, c)).toBe(timingSafeEqual(a, c));
    expect(equalInConstantTime(a, bytes(31, 1))).toBe(false);
  });
});
