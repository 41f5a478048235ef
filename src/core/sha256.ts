/**
 * Synchronous SHA-256 and HMAC-SHA256 on every runtime. Web Crypto's digests are asynchronous, and signing an
 * elicitation state sits on a synchronous path. Where `node:crypto` is at hand without importing it
 * (`process.getBuiltinModule`: Node, Bun, Deno, Workers with `nodejs_compat`) the digests come from it; elsewhere
 * (Workers without `nodejs_compat`, browsers) from `@noble/hashes` (audited, pure JavaScript), which is then loaded
 * as this module loads and awaited by `createHandler` before its first request (`deferred-modules.ts`), so runtimes
 * that have `node:crypto` never load it.
 */
import { trackLoading } from './deferred-modules.js';

type NodeCrypto = typeof import('node:crypto');
type Noble = {
  sha256: typeof import('@noble/hashes/sha2.js').sha256;
  hmac: typeof import('@noble/hashes/hmac.js').hmac;
};

const nodeCrypto = (
  globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }
).process?.getBuiltinModule?.('node:crypto') as NodeCrypto | undefined;

let noble: Noble | undefined;
if (!nodeCrypto) {
  trackLoading(
    Promise.all([import('@noble/hashes/sha2.js'), import('@noble/hashes/hmac.js')]).then(([sha2, mac]) => {
      noble = { sha256: sha2.sha256, hmac: mac.hmac };
    }),
  );
}

const encoder = new TextEncoder();

function bytesOf(data: Uint8Array | string): Uint8Array {
  return typeof data === 'string' ? encoder.encode(data) : data;
}

/** The fallback hashes, loaded a moment after this module (only code run in the same turn can come too early). */
function loadedNoble(): Noble {
  if (!noble) throw new Error('SHA-256 is still loading (@noble/hashes): call again after an await');
  return noble;
}

/** A Node Buffer as a plain Uint8Array (the same bytes), so every runtime hands callers the same type. */
function plain(bytes: Uint8Array): Uint8Array {
  return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** The SHA-256 digest of `data` (a string is hashed as UTF-8). */
export function sha256(data: Uint8Array | string): Uint8Array {
  if (nodeCrypto) return plain(nodeCrypto.createHash('sha256').update(bytesOf(data)).digest());
  return loadedNoble().sha256(bytesOf(data));
}

/** The HMAC-SHA256 of `data` under `key` (RFC 2104). */
export function hmacSha256(key: Uint8Array, data: Uint8Array | string): Uint8Array {
  if (nodeCrypto) return plain(nodeCrypto.createHmac('sha256', key).update(bytesOf(data)).digest());
  const n = loadedNoble();
  return n.hmac(n.sha256, key, bytesOf(data));
}

/** Compares two byte strings in time that depends only on their lengths (for secrets and signatures). */
export function equalInConstantTime(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a[i]! ^ b[i]!;
  return diff === 0;
}
