/**
 * Base64 and UTF-8 byte counts on every runtime: Node's `Buffer` where it exists (Node, Bun, Deno, Workers with
 * `nodejs_compat`), because it is the fastest there; `btoa`/`atob` on Workers without it.
 */

interface BufferLike {
  from(data: Uint8Array | string, encoding?: string): Uint8Array & { toString(encoding: string): string };
  byteLength(text: string): number;
}

const nodeBuffer = (globalThis as { Buffer?: BufferLike }).Buffer;
const encoder = new TextEncoder();

/** `bytes` (or a string's UTF-8) in unpadded base64url. */
export function toBase64Url(bytes: Uint8Array | string): string {
  if (nodeBuffer) return nodeBuffer.from(bytes, 'utf8').toString('base64url');
  return toBase64(bytes).replace(/=+$/, '').replaceAll('+', '-').replaceAll('/', '_');
}

/** `bytes` (or a string's UTF-8) in padded base64. */
export function toBase64(bytes: Uint8Array | string): string {
  if (nodeBuffer) return nodeBuffer.from(bytes, 'utf8').toString('base64');
  const raw = typeof bytes === 'string' ? encoder.encode(bytes) : bytes;
  let binary = '';
  for (let i = 0; i < raw.length; i += 0x8000)
    binary += String.fromCharCode(...raw.subarray(i, Math.min(raw.length, i + 0x8000)));
  return btoa(binary);
}

/**
 * The bytes of base64 or base64url text, decoded leniently as Node's `Buffer` does (characters of neither
 * alphabet are skipped, padding is optional): callers that need the canonical text compare it after encoding.
 */
export function fromBase64(text: string): Uint8Array {
  if (nodeBuffer) return nodeBuffer.from(text, 'base64');
  let clean = text
    .replace(/[^A-Za-z0-9+/\-_]/g, '')
    .replaceAll('-', '+')
    .replaceAll('_', '/');
  // A lone trailing character carries no whole byte: Buffer drops it, atob would throw.
  if (clean.length % 4 === 1) clean = clean.slice(0, -1);
  const binary = atob(clean.padEnd(clean.length + ((4 - (clean.length % 4)) % 4), '='));
  const out = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) out[i] = binary.charCodeAt(i);
  return out;
}

/** How many bytes `text` takes in UTF-8, without encoding it where the runtime can count. */
export function utf8ByteLength(text: string): number {
  if (nodeBuffer) return nodeBuffer.byteLength(text);
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) bytes += 1;
    else if (c < 0x800) bytes += 2;
    else if (c >= 0xd800 && c < 0xdc00 && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next < 0xe000) {
        bytes += 4;
        i++;
      } else bytes += 3;
    } else bytes += 3;
  }
  return bytes;
}
