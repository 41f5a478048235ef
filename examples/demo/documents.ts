import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** One document of the demo collection (examples/data/documents.json). */
export interface Document {
  document_id: string;
  title: string;
  category: string;
  author: string;
  /** ISO date (YYYY-MM-DD). */
  published: string;
  body: string;
}

// From source the data sits beside this folder; from the build (dist/examples/demo) it is the copy the package
// ships at examples/data, three levels up. Read at runtime rather than imported, so tsc does not type a 300 KB
// literal and node 20 prints no "JSON modules are experimental" warning.
const CANDIDATES = ['../data/documents.json', '../../../examples/data/documents.json'];

function load(): Document[] {
  for (const candidate of CANDIDATES) {
    const path = fileURLToPath(new URL(candidate, import.meta.url));
    if (existsSync(path)) return JSON.parse(readFileSync(path, 'utf8')) as Document[];
  }
  throw new Error('examples/data/documents.json not found: run `npx tsx examples/data/generate.ts`');
}

/** The whole collection, loaded once when the demo is imported. */
export const documents: readonly Document[] = load();

/** Documents by id, for constant-time lookups. */
export const byId: ReadonlyMap<string, Document> = new Map(documents.map((d) => [d.document_id, d]));

/** The category names, sorted (they feed the `enum`s of the tools' input schemas). */
export const categories: readonly string[] = [...new Set(documents.map((d) => d.category))].sort();

/** Documents of one category, or all of them for "all". */
export function inCategory(category: string): readonly Document[] {
  return category === 'all' ? documents : documents.filter((d) => d.category === category);
}
