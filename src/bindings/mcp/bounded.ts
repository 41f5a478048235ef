/**
 * Bounded copies of what a client declares and a server keeps (session capabilities, client info): a client may
 * send megabytes in any field, and a kept copy must cost a known, small amount whatever it sent.
 */

/** How much of a client's JSON a bounded copy keeps. */
export interface CopyLimits {
  /** Longest string kept (longer ones are cut); keys longer than this are dropped. */
  maxString: number;
  /** Most keys of an object, or items of an array, kept. */
  maxKeys: number;
  /** Deepest nesting kept (deeper values are dropped). */
  maxDepth: number;
  /** Most values kept in all (the rest are dropped), which bounds the copy's size whatever its shape. */
  maxNodes: number;
}

/** The limits for client capabilities: enough for every capability MCP defines, with extensions. */
export const CAPABILITY_LIMITS: CopyLimits = { maxString: 128, maxKeys: 32, maxDepth: 5, maxNodes: 128 };

/** Longest string of `clientInfo` a session keeps. */
export const MAX_INFO_STRING = 256;

/** A JSON object copied within `limits` (a non-object becomes `{}`). */
export function boundedObject(value: unknown, limits: CopyLimits): Record<string, unknown> {
  const budget = { nodes: limits.maxNodes };
  const copy = copyValue(value, limits, 0, budget);
  return typeof copy === 'object' && copy !== null && !Array.isArray(copy)
    ? (copy as Record<string, unknown>)
    : {};
}

/** The fields of MCP's `Implementation` a session may show (name, title, version, websiteUrl), strings cut short. */
export function boundedClientInfo(value: unknown): Record<string, string> {
  const info: Record<string, string> = {};
  if (typeof value !== 'object' || value === null) return info;
  for (const key of ['name', 'title', 'version', 'websiteUrl'] as const) {
    const v = (value as Record<string, unknown>)[key];
    if (typeof v === 'string') info[key] = cut(v, MAX_INFO_STRING);
  }
  return info;
}

/**
 * The first `max` characters of `s`, as a string of its own: V8 makes a short slice of a long string a view that
 * keeps the whole original alive, which would keep a client's megabytes for the session's life.
 */
export function cut(s: string, max: number): string {
  return s.length > max ? (JSON.parse(JSON.stringify(s.slice(0, max))) as string) : s;
}

function copyValue(value: unknown, limits: CopyLimits, depth: number, budget: { nodes: number }): unknown {
  if (budget.nodes <= 0) return undefined;
  budget.nodes--;
  switch (typeof value) {
    case 'string':
      return cut(value, limits.maxString);
    case 'number':
    case 'boolean':
      return value;
    case 'object': {
      if (value === null) return null;
      if (depth >= limits.maxDepth) return undefined;
      if (Array.isArray(value)) {
        const out: unknown[] = [];
        for (const item of value.slice(0, limits.maxKeys)) {
          const c = copyValue(item, limits, depth + 1, budget);
          if (c !== undefined) out.push(c);
        }
        return out;
      }
      const out: Record<string, unknown> = {};
      let kept = 0;
      // for…in stops early: Object.keys would list every key of a huge object first.
      for (const key in value) {
        if (kept >= limits.maxKeys || budget.nodes <= 0) break;
        if (!Object.hasOwn(value, key) || key.length > limits.maxString || key === '__proto__') continue;
        const c = copyValue((value as Record<string, unknown>)[key], limits, depth + 1, budget);
        if (c !== undefined) {
          out[key] = c;
          kept++;
        }
      }
      return out;
    }
    default:
      return undefined;
  }
}
