import { defineTool, type ToolContext } from '../../src/index.js';
import { excerpt, index } from './search-index.js';

/** Arguments of search_documents (spec A.1). */
export interface SearchArgs {
  query: string;
  limit: number;
}

/**
 * Ranked full-text search (spec A.1/A.2). The answer is the array of hits itself, so the HTTP result is
 * `{ content: [...], _meta }` exactly as in A.2.
 */
export const searchDocuments = defineTool<SearchArgs>({
  name: 'search_documents',
  '@type': 'query',
  description: 'Search through available documents',
  // The schema of spec A.1, plus a maxLength: the search is linear in the query, and an unbounded query (4 MB)
  // held the event loop for seconds. `limit` gets its default from the validator.
  inputSchema: {
    type: 'object',
    required: ['query'],
    properties: {
      query: { type: 'string', description: 'Search query', maxLength: 1000 },
      limit: { type: 'integer', default: 10, minimum: 1, maximum: 100 },
    },
  },
  annotations: { readOnlyHint: true },
  handler: search,
});

/** Default excerpt length in characters, when the config does not set one. */
export const DEFAULT_EXCERPT_LENGTH = 200;

/**
 * The search itself. The config (Webtools `config`, else the `documents` webtool's default) sets the excerpt
 * length (`excerptLength`) and whether hits carry their score (`includeScores`).
 */
export function search({ query, limit }: SearchArgs, ctx: ToolContext) {
  const length =
    typeof ctx.config.excerptLength === 'number' ? ctx.config.excerptLength : DEFAULT_EXCERPT_LENGTH;
  const scores = ctx.config.includeScores !== false;
  return index.search(query, limit).map(({ document, score }) => ({
    document_id: document.document_id,
    title: document.title,
    excerpt: excerpt(document, query, length),
    ...(scores ? { score } : {}),
  }));
}
