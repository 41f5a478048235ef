import { toBase64Url } from './base64.js';

// Every promise, session and server request gets a fresh unguessable id. One CSPRNG call per id costs a call into
// the runtime's CSPRNG each time (several µs, a visible share of a promise's cost); this draws the bytes from a
// pool filled by one call per POOL_BYTES, as node's own randomUUID does. Each byte is handed out once. The pool is
// made and filled on first use, never at import: Workers forbid random values outside a request.
const POOL_BYTES = 4096;
/** Web Crypto fills at most this many bytes per call. */
const MAX_FILL_BYTES = 65_536;
let pool: Uint8Array<ArrayBuffer> | undefined;
/** Node's Buffer encodes a slice of the pool without copying it; where there is none, `encode` does. */
const nodeBuffer = (globalThis as { Buffer?: { allocUnsafeSlow(size: number): Uint8Array<ArrayBuffer> } })
  .Buffer;
type Encodable = Uint8Array & { toString(encoding: string, start: number, end: number): string };
let used = POOL_BYTES;

const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

/**
 * `bytes` bytes from the CSPRNG, encoded as `encoding`: `randomId(24, 'base64url')` is 192 bits in
 * 32 URL-safe characters, `randomId(16, 'hex')` 128 bits in 32 hex digits.
 */
export function randomId(bytes: number, encoding: 'base64url' | 'hex'): string {
  if (bytes > POOL_BYTES) return encode(randomBytes(bytes), encoding);
  if (used + bytes > POOL_BYTES) {
    pool ??= nodeBuffer ? nodeBuffer.allocUnsafeSlow(POOL_BYTES) : new Uint8Array(POOL_BYTES);
    crypto.getRandomValues(pool);
    used = 0;
  }
  const id = nodeBuffer
    ? (pool as Encodable).toString(encoding, used, used + bytes)
    : encode((pool as Uint8Array).subarray(used, used + bytes), encoding);
  used += bytes;
  return id;
}

/** `count` fresh bytes from the CSPRNG (Web Crypto, present on every runtime mcplite runs on). */
export function randomBytes(count: number): Uint8Array {
  const out = new Uint8Array(count);
  for (let i = 0; i < count; i += MAX_FILL_BYTES)
    crypto.getRandomValues(out.subarray(i, Math.min(count, i + MAX_FILL_BYTES)));
  return out;
}

function encode(bytes: Uint8Array, encoding: 'base64url' | 'hex'): string {
  if (encoding === 'base64url') return toBase64Url(bytes);
  let text = '';
  for (const b of bytes) text += HEX[b];
  return text;
}
