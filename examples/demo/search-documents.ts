import { defineTool, type ToolContext } from '../../src/index.js';
import { excerpt, index } from './search-index.js';

/** Arguments of search_documents (spec A.1). */
export interface SearchArgs {
  query: string;
  limit: number;
}

/** The fields of one hit, with or without its score. */
export const HIT_PROPERTIES = {
  document_id: { type: 'string' },
  title: { type: 'string' },
  excerpt: {
    type: 'string',
    description: 'The best matching sentence, cut to about excerptLength characters',
  },
};

/** What search_documents answers: ranked hits, with their score unless `includeScores` is false. */
export const SEARCH_RESULTS_SCHEMA = {
  type: 'array',
  items: {
    type: 'object',
    required: ['document_id', 'title', 'excerpt'],
    additionalProperties: false,
    properties: { ...HIT_PROPERTIES, score: { type: 'number', minimum: 0 } },
  },
};

/**
 * Ranked full-text search (spec A.1/A.2). The answer is the array of hits itself, so the HTTP result is
 * `{ content: [...], _meta }` exactly as in A.2. The listing is A.1's plus the output schema (an array: MCP lists
 * it wrapped as `{ result }`, as it sends the answer).
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
  outputSchema: SEARCH_RESULTS_SCHEMA,
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
