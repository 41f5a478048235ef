import { type Document, documents } from './documents.js';
import { sentences, tokenize, truncate } from './text.js';

/** One ranked hit. */
export interface Hit {
  document: Document;
  score: number;
}

// Standard BM25 parameters; titles count three times so a match in the title outranks one in passing.
const K1 = 1.2;
const B = 0.75;
const TITLE_WEIGHT = 3;

/**
 * A BM25 index over title and body, built once when the demo loads: the collection is small and fixed, so every
 * query only walks the postings of its own terms.
 */
export class SearchIndex {
  private readonly postings = new Map<string, Array<{ doc: number; tf: number }>>();
  private readonly lengths: number[] = [];
  private readonly averageLength: number;

  constructor(private readonly docs: readonly Document[]) {
    docs.forEach((doc, i) => {
      const terms = [
        ...Array(TITLE_WEIGHT).fill(tokenize(doc.title)).flat(),
        ...tokenize(doc.body),
      ] as string[];
      this.lengths.push(terms.length);
      const counts = new Map<string, number>();
      for (const t of terms) counts.set(t, (counts.get(t) ?? 0) + 1);
      for (const [term, tf] of counts) {
        let list = this.postings.get(term);
        if (!list) {
          list = [];
          this.postings.set(term, list);
        }
        list.push({ doc: i, tf });
      }
    });
    this.averageLength = this.lengths.reduce((a, b) => a + b, 0) / Math.max(1, docs.length);
  }

  /** The best `limit` documents for `query`, best first; ties keep collection order so results are stable. */
  search(query: string, limit: number): Hit[] {
    const scores = new Map<number, number>();
    const n = this.docs.length;
    for (const term of new Set(tokenize(query))) {
      const list = this.postings.get(term);
      if (!list) continue;
      const idf = Math.log(1 + (n - list.length + 0.5) / (list.length + 0.5));
      for (const { doc, tf } of list) {
        const norm = tf + K1 * (1 - B + (B * this.lengths[doc]!) / this.averageLength);
        scores.set(doc, (scores.get(doc) ?? 0) + (idf * tf * (K1 + 1)) / norm);
      }
    }
    return [...scores]
      .sort((a, b) => b[1] - a[1] || a[0] - b[0])
      .slice(0, limit)
      .map(([doc, score]) => ({ document: this.docs[doc]!, score: Math.round(score * 1000) / 1000 }));
  }
}

/** The demo's one index over the whole collection. */
export const index = new SearchIndex(documents);

/** The body sentence that shares the most terms with the query (the first one if none does), shortened. */
export function excerpt(doc: Document, query: string, max = 200): string {
  const wanted = new Set(tokenize(query));
  let best = '';
  let bestHits = -1;
  for (const s of sentences(doc.body)) {
    const hits = tokenize(s).filter((t) => wanted.has(t)).length;
    if (hits > bestHits) {
      best = s;
      bestHits = hits;
    }
  }
  return truncate(best, max);
}
