import { randomId } from '../random-id.js';

const PREFIX = 'prom_';
/** 24 random bytes = 192 bits from the CSPRNG; base64url gives 32 characters. */
const RANDOM_BYTES = 24;
const TOKEN_PATTERN = /^prom_[A-Za-z0-9_-]{32}$/;

/** A fresh, unguessable, opaque promise token. */
export function newPromiseToken(): string {
  return PREFIX + randomId(RANDOM_BYTES, 'base64url');
}

/** Whether a string has the shape of a token (checked before any store lookup). */
export function isWellFormedToken(token: unknown): token is string {
  return typeof token === 'string' && TOKEN_PATTERN.test(token);
}
