/**
 * Synchronous SHA-256 and HMAC-SHA256 on every runtime. Web Crypto's digests are asynchronous, and signing an
 * elicitation state sits on a synchronous path, so the digests come from `@noble/hashes` (audited, pure
 * JavaScript, no `node:*` import): the same code on Node, Bun, Deno and Workers with or without `nodejs_compat`.
 */
import { hmac } from '@noble/hashes/hmac.js';
import { sha256 as nobleSha256 } from '@noble/hashes/sha2.js';

const encoder = new TextEncoder();

function bytesOf(data: Uint8Array | string): Uint8Array {
  return typeof data === 'string' ? encoder.encode(data) : data;
}

/** The SHA-256 digest of `data` (a string is hashed as UTF-8). */
export function sha256(data: Uint8Array | string): Uint8Array {
  return nobleSha256(bytesOf(data));
}

/** The HMAC-SHA256 of `data` under `key` (RFC 2104). */
export function hmacSha256(key: Uint8Array, data: Uint8Array | string): Uint8Array {
  return hmac(nobleSha256, key, bytesOf(data));
}

/** Compares two byte strings in time that depends only on their lengths (for secrets and signatures). */
export function equalInConstantTime(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a[i]! ^ b[i]!;
  return diff === 0;
}
