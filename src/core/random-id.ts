import { randomBytes, randomFillSync } from 'node:crypto';

// Every promise, session and server request gets a fresh unguessable id. One CSPRNG call per id costs a call into
// OpenSSL each time (several µs, a visible share of a promise's cost); this draws the bytes from a pool filled
// by one call per POOL_BYTES, as node's own randomUUID does. Each byte is handed out once.
const POOL_BYTES = 4096;
const pool = Buffer.allocUnsafeSlow(POOL_BYTES);
let used = POOL_BYTES;

/**
 * `bytes` bytes from the CSPRNG, encoded as `encoding`: `randomId(24, 'base64url')` is 192 bits in
 * 32 URL-safe characters, `randomId(16, 'hex')` 128 bits in 32 hex digits.
 */
export function randomId(bytes: number, encoding: 'base64url' | 'hex'): string {
  if (bytes > POOL_BYTES) return randomBytes(bytes).toString(encoding);
  if (used + bytes > POOL_BYTES) {
    randomFillSync(pool);
    used = 0;
  }
  const id = pool.toString(encoding, used, used + bytes);
  used += bytes;
  return id;
}
