import { McpLiteError } from './errors.js';

/** Longest requested tool name echoed back whole (tool names are at most 128 characters). */
const MAX_TOOL_NAME_ECHO = 256;

/** Levenshtein distance, two rows at a time: names are short, so this stays cheap. */
export function editDistance(a: string, b: string): number {
  if (a === b) return 0;
  let prev = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + cost);
    }
    prev = cur;
  }
  return prev[b.length]!;
}

/**
 * The closest candidate to `wanted` ("did you mean"), or undefined when nothing is close enough to help:
 * a candidate qualifies when it contains the request (or vice versa) or is within about a third of its length.
 */
export function closestName(wanted: string, candidates: readonly string[]): string | undefined {
  const w = wanted.toLowerCase();
  let best: string | undefined;
  let bestScore = Number.POSITIVE_INFINITY;
  for (const c of candidates) {
    const lc = c.toLowerCase();
    const score =
      lc.includes(w) || w.includes(lc) ? Math.abs(lc.length - w.length) * 0.1 : editDistance(w, lc);
    if (score < bestScore) {
      bestScore = score;
      best = c;
    }
  }
  if (best === undefined) return undefined;
  const limit = Math.max(2, Math.ceil(Math.max(w.length, best.length) / 3));
  return bestScore <= limit ? best : undefined;
}

/**
 * The error of a call to a tool the catalog does not have (spec A.5): the name asked for, the tools there are, and
 * a "did you mean" suggestion (or where to look when no name is close). The suggestion is in the message too:
 * clients (the MCP SDKs among them) show a model or a person the message, rarely `data`.
 */
export function toolNotFound(name: string, available: readonly string[]): McpLiteError {
  // Tool names are at most 128 characters: a much longer request gets no (quadratic) suggestion and is not
  // echoed back whole.
  const plausible = name.length <= MAX_TOOL_NAME_ECHO;
  const shown = plausible ? name : `${name.slice(0, MAX_TOOL_NAME_ECHO)}…`;
  const suggestion = plausible ? closestName(name, available) : undefined;
  const didYouMean = suggestion ? `Did you mean '${suggestion}'?` : undefined;
  return new McpLiteError(
    'tool_not_found',
    `Tool not found: ${shown}. ${didYouMean ?? 'No tool has a similar name: list the tools to pick one.'}`,
    {
      requested_tool: shown,
      available_tools: available,
      // Spec A.5 always carries a suggestion; when no name is close, the useful advice is where to look.
      suggestion:
        didYouMean ?? 'No tool has a similar name: pick one of available_tools (tools/list describes each)',
    },
  );
}
