import { InvalidArgumentError } from './commander.js';

/** A commander option parser for a whole number in [min, max]. */
export function integer(min: number, max = Number.MAX_SAFE_INTEGER): (value: string) => number {
  return (value) => {
    const n = Number(value);
    if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(n) || n < min || n > max) {
      throw new InvalidArgumentError(`expected a whole number from ${min} to ${max}, got "${value}"`);
    }
    return n;
  };
}

/**
 * A commander parser that collects a repeatable option (`--token a --token b`) into a list. Not variadic
 * (`<token...>`): a variadic option would swallow the module argument that follows it.
 */
export function repeatable(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

/** Tokens from `--token` and from MCPLITE_TOKENS (comma separated), blanks dropped, duplicates removed. */
export function collectTokens(flag: readonly string[] | undefined, env: string | undefined): string[] {
  const all = [...(flag ?? []), ...(env ?? '').split(',')].map((t) => t.trim()).filter((t) => t.length > 0);
  return [...new Set(all)];
}

/** The base path as the HTTP binding uses it: a leading and a trailing slash. */
export function normaliseBase(base: string): string {
  let b = base.startsWith('/') ? base : `/${base}`;
  if (!b.endsWith('/')) b += '/';
  return b;
}

/** A port number, or `off`/`false` for "do not listen" (commander parser). */
export function portOrOff(value: string): number | false {
  if (/^(off|false|no)$/i.test(value.trim())) return false;
  return integer(0, 65535)(value);
}
