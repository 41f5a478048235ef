import { defineTool, type ToolContext } from '../../src/index.js';
import { type Document, documents } from './documents.js';
import { excerpt, index } from './search-index.js';
import { delay, titleCase, tokenize } from './text.js';

/** Arguments of generate_report (spec A.4). */
export interface ReportArgs {
  topic: string;
}

const SOURCES = 5;

function summary(topic: string, docs: readonly Document[]): string {
  if (docs.length === 0) return `No document in the collection discusses ${topic}.`;
  const cats = [...new Set(docs.map((d) => d.category))];
  const years = docs.map((d) => d.published.slice(0, 4)).sort();
  const authors = new Set(docs.map((d) => d.author)).size;
  const [first] = docs;
  return (
    `${docs.length} documents from ${cats.join(', ')} discuss ${topic}, written by ${authors} ` +
    `author${authors === 1 ? '' : 's'} between ${years[0]} and ${years.at(-1)}. ` +
    `The most relevant is "${first!.title}" (${first!.author}, ${first!.published}).`
  );
}

/** Recurring terms of the matching documents other than the topic's own words. */
function themes(topic: string, docs: readonly Document[]): string[] {
  const skip = new Set(tokenize(topic));
  const counts = new Map<string, number>();
  for (const d of docs) {
    for (const t of new Set(tokenize(d.body))) if (!skip.has(t)) counts.set(t, (counts.get(t) ?? 0) + 1);
  }
  return [...counts]
    .filter(([, n]) => n > 1)
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .slice(0, 6)
    .map(([t]) => t);
}

/** For a topic nothing covers: what the collection does cover, so the reader can ask a better question. */
function coverage(): string[] {
  const counts = new Map<string, number>();
  for (const d of documents) counts.set(d.category, (counts.get(d.category) ?? 0) + 1);
  const lines = [...counts]
    .sort((a, b) => a[0].localeCompare(b[0]))
    .map(([c, n]) => `- ${c}: ${n} documents`);
  const examples = [...new Set(documents.map((d) => d.category))]
    .sort()
    .map((c) => documents.find((d) => d.category === c)!.title);
  return [
    `\n\nCoverage\n\nThe collection holds ${documents.length} documents:\n${lines.join('\n')}`,
    `\n\nSuggested Reading\n\n${examples.map((t) => `- ${t}`).join('\n')}`,
  ];
}

/** The report as sections, each one partial; the first is the title and the first heading, as in spec A.4. */
function sections(topic: string): string[] {
  const docs = index.search(topic, SOURCES).map((h) => h.document);
  const out = [`${titleCase(topic)} Report\n\nExecutive Summary`, `\n\n${summary(topic, docs)}`];
  if (docs.length === 0) return [...out, ...coverage()];
  out.push('\n\nKey Findings');
  docs.forEach((d, i) => {
    out.push(`\n\n${i + 1}. ${d.title} (${d.category}, ${d.published}): ${excerpt(d, topic, 240)}`);
  });
  const recurring = themes(topic, docs);
  if (recurring.length > 0) out.push(`\n\nRecurring Themes\n\n${recurring.join(', ')}`);
  out.push(`\n\nSources\n\n${docs.map((d) => `- ${d.document_id} ${d.title} (${d.author})`).join('\n')}`);
  return out;
}

/** What generate_report answers: the whole text (MCP lists it wrapped as `{ result }`, as it sends the answer). */
export const REPORT_SCHEMA = { type: 'string', description: 'The whole report as text' };

/**
 * Streams a report built from the documents that match `topic` (spec A.4): each section is a partial (an SSE
 * `message` event), and the final answer is the whole text.
 */
export const generateReport = defineTool<ReportArgs>({
  name: 'generate_report',
  '@type': 'generation',
  description: 'Write a short report on a topic from the matching documents, streamed section by section',
  inputSchema: {
    type: 'object',
    required: ['topic'],
    properties: {
      topic: { type: 'string', minLength: 1, maxLength: 200, description: 'What the report is about' },
    },
  },
  outputSchema: REPORT_SCHEMA,
  annotations: { readOnlyHint: true },
  handler: async function* ({ topic }: ReportArgs, ctx: ToolContext) {
    let text = '';
    for (const [i, section] of sections(topic).entries()) {
      // A pause between sections mimics a generator producing text; only a streaming client would notice it.
      if (i > 0 && ctx.streaming) await delay(50 + ((i * 37) % 100), ctx.signal);
      text += section;
      yield section;
    }
    return text;
  },
});
