import { defineTool, failure, type ToolContext } from '../../src/index.js';
import { categories, type Document, documents, inCategory } from './documents.js';
import { delay, tokenize } from './text.js';

/** Arguments of analyze_dataset (spec A.3). */
export interface AnalyzeArgs {
  dataset_id: string;
  analysis_type: 'summary' | 'comprehensive';
}

// The spec's example dataset id; here it names the whole collection.
const ALL_ALIASES = new Set(['all', 'large_dataset_001']);
// The real work takes milliseconds; pacing the chunks makes it behave like the multi-second job the promise
// flow exists for, while still yielding to the event loop and checking for cancellation between chunks.
const CHUNKS = 24;
const TARGET_MS = { summary: 2000, comprehensive: 3000 } as const;

/** Running totals, filled chunk by chunk. */
interface Tally {
  terms: Map<string, number>;
  bigrams: Map<string, number>;
  categories: Map<string, number>;
  authors: Map<string, number>;
  years: Map<string, number>;
  categoryTerms: Map<string, Map<string, number>>;
  lengths: number[];
}

function add(map: Map<string, number>, key: string, by = 1): void {
  map.set(key, (map.get(key) ?? 0) + by);
}

function top(map: Map<string, number>, n: number, label: string): Array<Record<string, string | number>> {
  return [...map]
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .slice(0, n)
    .map(([key, count]) => ({ [label]: key, count }));
}

function tallyDocument(t: Tally, doc: Document, comprehensive: boolean): void {
  const terms = tokenize(`${doc.title} ${doc.body}`);
  t.lengths.push(doc.body.split(/\s+/).length);
  add(t.categories, doc.category);
  add(t.authors, doc.author);
  add(t.years, doc.published.slice(0, 4));
  for (const term of terms) add(t.terms, term);
  if (!comprehensive) return;
  let perCategory = t.categoryTerms.get(doc.category);
  if (!perCategory) {
    perCategory = new Map();
    t.categoryTerms.set(doc.category, perCategory);
  }
  for (let i = 0; i < terms.length; i++) {
    add(perCategory, terms[i]!);
    if (i > 0) add(t.bigrams, `${terms[i - 1]} ${terms[i]}`);
  }
}

function lengthStats(lengths: number[]) {
  const sorted = [...lengths].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
  const mean = sorted.reduce((a, b) => a + b, 0) / Math.max(1, sorted.length);
  return {
    unit: 'words',
    min: sorted[0] ?? 0,
    median: at(0.5),
    p90: at(0.9),
    max: at(1),
    mean: Math.round(mean),
  };
}

function histogram(lengths: number[], width: number): Array<{ range: string; count: number }> {
  const buckets = new Map<number, number>();
  for (const l of lengths) buckets.set(Math.floor(l / width), (buckets.get(Math.floor(l / width)) ?? 0) + 1);
  return [...buckets]
    .sort((a, b) => a[0] - b[0])
    .map(([b, count]) => ({ range: `${b * width}-${b * width + width - 1}`, count }));
}

async function analyze(docs: readonly Document[], args: AnalyzeArgs, ctx: ToolContext) {
  const comprehensive = args.analysis_type === 'comprehensive';
  const t: Tally = {
    terms: new Map(),
    bigrams: new Map(),
    categories: new Map(),
    authors: new Map(),
    years: new Map(),
    categoryTerms: new Map(),
    lengths: [],
  };
  const size = Math.ceil(docs.length / CHUNKS);
  const pause = TARGET_MS[args.analysis_type] / Math.ceil(docs.length / size);
  for (let start = 0; start < docs.length; start += size) {
    for (const doc of docs.slice(start, start + size)) tallyDocument(t, doc, comprehensive);
    try {
      await delay(pause, ctx.signal);
    } catch (err) {
      // Cancelled (or the server is stopping): say how far it got, and stop here rather than finish unseen.
      ctx.log.info(
        { processed: Math.min(start + size, docs.length), of: docs.length },
        'analysis stopped early',
      );
      throw err;
    }
  }
  const dates = docs.map((d) => d.published).sort();
  const summary = {
    dataset_id: args.dataset_id,
    analysis_type: args.analysis_type,
    documents: docs.length,
    date_range: { first: dates[0], last: dates.at(-1) },
    categories: Object.fromEntries([...t.categories].sort((a, b) => a[0].localeCompare(b[0]))),
    authors: t.authors.size,
    length: lengthStats(t.lengths),
    top_terms: top(t.terms, 15, 'term'),
  };
  if (!comprehensive) return summary;
  return {
    ...summary,
    top_bigrams: top(t.bigrams, 10, 'bigram'),
    top_authors: top(t.authors, 5, 'author'),
    per_year: Object.fromEntries([...t.years].sort((a, b) => a[0].localeCompare(b[0]))),
    per_category: Object.fromEntries(
      [...t.categoryTerms]
        .sort((a, b) => a[0].localeCompare(b[0]))
        .map(([c, terms]) => [c, top(terms, 5, 'term')]),
    ),
    length_histogram: histogram(t.lengths, 50),
  };
}

/**
 * What analyze_dataset answers (through `redeem`, or a task). The MCP listing leaves it out, as for every
 * long-running tool: the direct result of a call is always a promise, which carries the token, not the analysis.
 */
export const ANALYSIS_SCHEMA = {
  type: 'object',
  required: [
    'dataset_id',
    'analysis_type',
    'documents',
    'date_range',
    'categories',
    'authors',
    'length',
    'top_terms',
  ],
  properties: {
    dataset_id: { type: 'string' },
    analysis_type: { enum: ['summary', 'comprehensive'] },
    documents: { type: 'integer', minimum: 0 },
    date_range: { type: 'object', properties: { first: { type: 'string' }, last: { type: 'string' } } },
    categories: { type: 'object', additionalProperties: { type: 'integer' } },
    authors: { type: 'integer', minimum: 0 },
    length: {
      type: 'object',
      required: ['unit', 'min', 'median', 'p90', 'max', 'mean'],
      properties: { unit: { const: 'words' } },
      additionalProperties: { type: ['number', 'string'] },
    },
    top_terms: {
      type: 'array',
      items: {
        type: 'object',
        required: ['term', 'count'],
        properties: { term: { type: 'string' }, count: { type: 'integer' } },
      },
    },
    top_bigrams: { type: 'array' },
    top_authors: { type: 'array' },
    per_year: { type: 'object', additionalProperties: { type: 'integer' } },
    per_category: { type: 'object' },
    length_histogram: {
      type: 'array',
      items: { type: 'object', required: ['range', 'count'] },
    },
  },
};

/**
 * A long-running analysis (spec A.3): every call is answered at once with a promise; the statistics come from
 * `redeem`. Cancelling the promise aborts the work between two chunks.
 */
export const analyzeDataset = defineTool<AnalyzeArgs>({
  name: 'analyze_dataset',
  '@type': 'analysis',
  description:
    'Analyse a document collection: term frequencies, category and author statistics, document lengths. ' +
    'Answers with a promise; redeem it for the result.',
  inputSchema: {
    type: 'object',
    required: ['dataset_id', 'analysis_type'],
    properties: {
      dataset_id: {
        type: 'string',
        description: `A category (${categories.join(', ')}), or "all" (alias "large_dataset_001") for every document`,
      },
      analysis_type: { type: 'string', enum: ['summary', 'comprehensive'] },
    },
  },
  outputSchema: ANALYSIS_SCHEMA,
  annotations: { readOnlyHint: true },
  longRunning: { estimatedMs: 3000 },
  handler: async (args, ctx) => {
    const all = ALL_ALIASES.has(args.dataset_id);
    if (!all && !categories.includes(args.dataset_id)) {
      // A business failure, not invalid params: the id is well-formed, the dataset just does not exist.
      return failure(`No dataset named "${args.dataset_id}"`, {
        code: 'unknown_dataset',
        details: { available: ['all', ...categories] },
      });
    }
    return analyze(all ? documents : inCategory(args.dataset_id), args, ctx);
  },
});
