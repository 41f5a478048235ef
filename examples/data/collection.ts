/**
 * Builds the demo collection: the fixed MCP documents plus generated ones, each with a title, author, date
 * and body drawn from its category's vocabulary, then sorted by date and numbered. Also serialises it to the
 * file's text.
 */
import type { Document } from '../demo/documents.js';
import { CATEGORIES } from './categories.js';
import { MCP_DOCUMENTS } from './mcp-documents.js';
import { int, pick, rand, reseed } from './random.js';
import { CLOSINGS, GENERIC_SENTENCES, GENERIC_TITLES, INTROS } from './templates.js';
import { capitalise, fill, titleCase } from './text.js';
import { AUTHORS, COMPANIES, TEAMS, type Vocabulary } from './vocabulary.js';

const COUNT = 344;

function slotsFor(vocab: Vocabulary, topic: string, year: number): Record<string, string> {
  return {
    topic,
    system: pick(vocab.systems),
    metric: pick(vocab.metrics),
    problem: pick(vocab.problems),
    practice: pick(vocab.practices),
    team: pick(TEAMS),
    company: pick(COMPANIES),
    year: String(year),
    quarter: String(int(1, 4)),
    percent: String(int(3, 38)),
    change: pick(['increased', 'grew', 'rose', 'declined', 'fell']),
    weeks: String(int(2, 12)),
    months: String(int(2, 9)),
  };
}

function paragraph(
  vocab: Vocabulary,
  slots: Record<string, string>,
  sentences: number,
  used: Set<string>,
  intro: boolean,
): string {
  const out: string[] = intro ? [capitalise(fill(pick(INTROS), slots))] : [];
  while (out.length < sentences) {
    const pool = rand() < 0.6 ? vocab.sentences : GENERIC_SENTENCES;
    const template = pick(pool);
    if (used.has(template)) continue;
    used.add(template);
    // Fresh values per sentence, except the topic, which ties the document together.
    const s = fill(template, { ...slotsFor(vocab, slots.topic!, Number(slots.year)), topic: slots.topic! });
    out.push(capitalise(s));
  }
  return out.join(' ');
}

function isoDate(year: number, dayOfYear: number): string {
  return new Date(Date.UTC(year, 0, dayOfYear)).toISOString().slice(0, 10);
}

/** The whole collection, the same on every call. */
export function generate(): Document[] {
  reseed();
  const names = Object.keys(CATEGORIES);
  const drafts: Array<Omit<Document, 'document_id'>> = [];
  for (const mcp of MCP_DOCUMENTS) {
    const author = pick(AUTHORS.filter((a) => a.beats.includes('protocols'))).name;
    const year = int(2024, 2025);
    drafts.push({
      title: mcp.title,
      category: 'protocols',
      author,
      published: isoDate(year, int(1, year === 2025 ? 170 : 365)),
      body: [mcp.body.join(' '), pick(CLOSINGS)].join('\n\n'),
    });
  }
  const titles = new Set(drafts.map((d) => d.title));
  while (drafts.length < COUNT) {
    const category = names[drafts.length % names.length]!;
    const vocab = CATEGORIES[category]!;
    const topic = pick(vocab.topics);
    const year = int(2019, 2025);
    const slots = slotsFor(vocab, topic, year);
    const title = titleCase(fill(pick(rand() < 0.6 ? vocab.titles : GENERIC_TITLES), slots));
    if (titles.has(title)) continue;
    titles.add(title);
    const beatAuthors = AUTHORS.filter((a) => a.beats.includes(category));
    const author = (rand() < 0.85 ? pick(beatAuthors) : pick(AUTHORS)).name;
    // One set per document, so no sentence appears twice in the same text.
    const used = new Set<string>();
    const paragraphs = Array.from({ length: int(1, 3) }, (_, i) =>
      paragraph(vocab, slots, int(3, 5), used, i === 0),
    );
    if (rand() < 0.5) paragraphs.push(pick(CLOSINGS));
    drafts.push({
      title,
      category,
      author,
      published: isoDate(year, int(1, year === 2025 ? 170 : 365)),
      body: paragraphs.join('\n\n'),
    });
  }
  // Chronological ids read naturally ("doc_001" is the oldest).
  drafts.sort((a, b) => a.published.localeCompare(b.published) || a.title.localeCompare(b.title));
  return drafts.map((d, i) => ({ document_id: `doc_${String(i + 1).padStart(3, '0')}`, ...d }));
}

/** The file's text: pretty-printed JSON, so that diffs of the committed output stay readable. */
export function serialise(documents: readonly Document[]): string {
  return `${JSON.stringify(documents, null, 2)}\n`;
}
