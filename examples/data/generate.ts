/**
 * Generates examples/data/documents.json, the demo's document collection.
 *
 * Deterministic on purpose: a seeded PRNG drives every choice, so running it again gives byte-identical output
 * and the committed file can be checked against its source. The text comes from sentence templates and
 * per-category vocabularies, varied enough that ranked search, term statistics and reports have something real
 * to work with. A handful of documents are about the Model Context Protocol, so the spec's Appendix A example
 * query ("MCP specification") finds them.
 *
 * This file is the entry point; the work is in its sibling modules:
 * - collection.ts: generate() and serialise(), which assemble the collection and its file text;
 * - random.ts: the seeded PRNG and the int/pick helpers;
 * - text.ts: capitalisation, title case and {slot} template filling;
 * - vocabulary.ts: the Vocabulary shape and the shared teams, companies and authors;
 * - categories.ts: the category table, built from categories-software.ts, categories-infrastructure.ts
 *   and categories-business.ts;
 * - templates.ts: generic titles and sentences, intros and closings;
 * - mcp-documents.ts: the hand-written MCP and MCP-lite documents.
 *
 * Run: npx tsx examples/data/generate.ts
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';

import { generate, serialise } from './collection.js';

export { generate, serialise };

// Writes only when run as a script; importing it (as the data-set test does) has no side effects.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const documents = generate();
  const out = fileURLToPath(new URL('./documents.json', import.meta.url));
  writeFileSync(out, serialise(documents));
  console.log(`wrote ${documents.length} documents to ${out}`);
}
