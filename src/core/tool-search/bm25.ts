import type { WireTool } from '../tool.js';

/**
 * Okapi BM25 over tool listings: each tool a document of its name (weighted thrice: a model's query most often
 * names what the tool does), its title and description, and its input schema's property names and descriptions.
 * Built once per catalog version; a query scores only the documents that share a term with it.
 */

const K1 = 1.2;
const B = 0.75;
const NAME_WEIGHT = 3;
/** Terms read from one tool at most (a huge description costs its own index entry, not a slow search). */
const MAX_TERMS_PER_TOOL = 2000;

/** The index of one listing. */
export class Bm25Index {
  private readonly postings = new Map<string, { doc: number; tf: number }[]>();
  private readonly lengths: number[] = [];
  private readonly averageLength: number;

  constructor(readonly tools: readonly WireTool[]) {
    let total = 0;
    tools.forEach((tool, doc) => {
      const counts = new Map<string, number>();
      const terms = termsOf(tool);
      for (const term of terms) counts.set(term, (counts.get(term) ?? 0) + 1);
      for (const [term, tf] of counts) {
        const list = this.postings.get(term);
        if (list) list.push({ doc, tf });
        else this.postings.set(term, [{ doc, tf }]);
      }
      this.lengths.push(terms.length);
      total += terms.length;
    });
    this.averageLength = tools.length ? total / tools.length : 1;
  }

  /** The tools best matching `query`, best first, at most `limit`, among those `allowed` accepts. */
  search(query: string, limit: number, allowed: (tool: WireTool) => boolean): WireTool[] {
    const scores = new Map<number, number>();
    const n = this.tools.length;
    for (const term of new Set(tokens(query))) {
      const list = this.postings.get(term);
      if (!list) continue;
      const idf = Math.log(1 + (n - list.length + 0.5) / (list.length + 0.5));
      for (const { doc, tf } of list) {
        const norm = tf + K1 * (1 - B + (B * this.lengths[doc]!) / this.averageLength);
        scores.set(doc, (scores.get(doc) ?? 0) + (idf * (tf * (K1 + 1))) / norm);
      }
    }
    const ranked = [...scores].sort((a, b) => b[1] - a[1] || a[0] - b[0]);
    const out: WireTool[] = [];
    for (const [doc] of ranked) {
      const tool = this.tools[doc]!;
      if (!allowed(tool)) continue;
      out.push(tool);
      if (out.length >= limit) break;
    }
    return out;
  }
}

/** The terms of a tool: its name's (thrice), its title's and description's, its schema's property words. */
function termsOf(tool: WireTool): string[] {
  const name = tokens(tool.name);
  const terms: string[] = [];
  for (let i = 0; i < NAME_WEIGHT; i++) terms.push(...name);
  terms.push(...tokens(tool.title ?? ''), ...tokens(tool.description ?? ''));
  const properties = (tool.inputSchema as { properties?: Record<string, { description?: unknown }> })
    .properties;
  if (properties && typeof properties === 'object')
    for (const [key, schema] of Object.entries(properties)) {
      terms.push(...tokens(key));
      if (typeof schema?.description === 'string') terms.push(...tokens(schema.description));
    }
  return terms.slice(0, MAX_TERMS_PER_TOOL);
}

const STOP = new Set([
  'a',
  'an',
  'the',
  'of',
  'to',
  'and',
  'or',
  'for',
  'in',
  'on',
  'by',
  'with',
  'is',
  'it',
]);

/** Lower-case words of `text`: camelCase, snake_case, kebab-case and dotted names split; a light plural strip. */
export function tokens(text: string): string[] {
  return text
    .slice(0, 10_000)
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w.length > 0 && !STOP.has(w))
    .map((w) => (w.length > 3 && w.endsWith('s') && !w.endsWith('ss') ? w.slice(0, -1) : w));
}
