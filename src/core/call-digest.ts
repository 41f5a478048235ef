import { toBase64Url } from './base64.js';
import { sha256 } from './sha256.js';

/**
 * Digests that bind an elicitation's signed state to the call that asked (docs/architecture.md "Elicitation"):
 * the same arguments must digest the same whatever order their keys arrived in, so the JSON is canonical
 * (object keys sorted, recursively) before it is hashed.
 */

/** The SHA-256 of `value`'s canonical JSON, in unpadded base64url (43 characters). */
export function jsonDigest(value: unknown): string {
  return toBase64Url(sha256(canonicalJson(value)));
}

/**
 * `value` as JSON with every object's keys in sorted order. Values JSON cannot hold are written as
 * `JSON.stringify` writes them (dropped from objects, `null` in arrays), so two values that travel as the same
 * JSON digest alike.
 */
export function canonicalJson(value: unknown): string {
  if (typeof value !== 'object' || value === null) return JSON.stringify(value) ?? 'null';
  const json = (value as { toJSON?: () => unknown }).toJSON;
  if (typeof json === 'function') return canonicalJson(json.call(value));
  if (Array.isArray(value))
    return `[${value.map((v) => (isOmitted(v) ? 'null' : canonicalJson(v))).join(',')}]`;
  const parts: string[] = [];
  for (const key of Object.keys(value).sort()) {
    const v = (value as Record<string, unknown>)[key];
    if (!isOmitted(v)) parts.push(`${JSON.stringify(key)}:${canonicalJson(v)}`);
  }
  return `{${parts.join(',')}}`;
}

function isOmitted(v: unknown): boolean {
  return v === undefined || typeof v === 'function' || typeof v === 'symbol';
}
