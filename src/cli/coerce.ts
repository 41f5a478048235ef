import type { JsonSchema } from '../core/schema.js';
import { CliError } from './errors.js';

/**
 * `key=value` words as tool arguments, each value typed by the tool's input schema: `limit=2` is the number 2
 * when `limit` is an integer, `flag=true` a boolean, `tags=["a"]` an array. A key the schema does not type is a
 * string, unless the value is a JSON object or array. `--args` JSON is the base the pairs are laid over.
 */
export function coerceArguments(
  pairs: readonly string[],
  schema: JsonSchema | undefined,
  base: Record<string, unknown> = {},
): Record<string, unknown> {
  const props = (isObject(schema) && isObject(schema.properties) ? schema.properties : {}) as Record<
    string,
    unknown
  >;
  const out: Record<string, unknown> = { ...base };
  for (const pair of pairs) {
    const eq = pair.indexOf('=');
    if (eq <= 0) throw new CliError(`expected key=value, got "${pair}"`);
    const key = pair.slice(0, eq);
    out[key] = coerceValue(key, pair.slice(eq + 1), props[key]);
  }
  return out;
}

/** `key=value` words as prompt arguments, which are strings whatever they look like (`n=2` is "2"). */
export function stringArguments(pairs: readonly string[]): Record<string, string> {
  const keys = pairs.map((pair) => pair.slice(0, Math.max(0, pair.indexOf('='))));
  const properties = Object.fromEntries(keys.map((key) => [key, { type: 'string' }]));
  return coerceArguments(pairs, { type: 'object', properties }) as Record<string, string>;
}

/** One value typed by its property schema (also used for answers typed at a prompt). */
export function coerceValue(key: string, raw: string, schema: unknown): unknown {
  const types = typesOf(schema);
  for (const type of types) {
    if ((type === 'integer' || type === 'number') && raw.trim() !== '' && Number.isFinite(Number(raw))) {
      const n = Number(raw);
      if (type === 'integer' && !Number.isInteger(n)) continue;
      return n;
    }
    if (type === 'boolean' && /^(true|false|yes|no|y|n|1|0)$/i.test(raw))
      return /^(true|yes|y|1)$/i.test(raw);
    if (type === 'null' && raw === 'null') return null;
    if (type === 'object' || type === 'array') {
      try {
        const v = JSON.parse(raw) as unknown;
        if (type === 'array' ? Array.isArray(v) : isObject(v)) return v;
      } catch {
        // Not JSON: try the next type.
      }
    }
    if (type === 'string') return raw;
  }
  if (types.length > 0) throw new CliError(`${key}: "${raw}" is not ${types.map(article).join(' or ')}`);
  if (/^[[{]/.test(raw)) {
    try {
      return JSON.parse(raw);
    } catch {
      return raw;
    }
  }
  return raw;
}

/** Parses `--args` (a JSON object). */
export function parseArgsJson(text: string | undefined): Record<string, unknown> {
  if (text === undefined) return {};
  try {
    const v = JSON.parse(text) as unknown;
    if (isObject(v)) return v;
  } catch {
    // Reported below.
  }
  throw new CliError('--args must be a JSON object');
}

function typesOf(schema: unknown): string[] {
  if (!isObject(schema)) return [];
  if (typeof schema.type === 'string') return [schema.type];
  if (Array.isArray(schema.type)) return schema.type.filter((t): t is string => typeof t === 'string');
  if (Array.isArray(schema.enum))
    return [...new Set(schema.enum.map((v) => (typeof v === 'number' ? 'number' : typeof v)))];
  for (const key of ['anyOf', 'oneOf'] as const) {
    if (Array.isArray(schema[key])) return schema[key].flatMap(typesOf);
  }
  return [];
}

function article(type: string): string {
  return type === 'integer'
    ? 'an integer'
    : type === 'array' || type === 'object'
      ? `an ${type} (JSON)`
      : `a ${type}`;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
