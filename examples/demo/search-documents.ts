import { defineTool } from '../../src/index.js';
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
  // Exactly the schema of spec A.1; `limit` gets its default from the validator.
  inputSchema: {
    type: 'object',
    required: ['query'],
    properties: {
      query: { type: 'string', description: 'Search query' },
      limit: { type: 'integer', default: 10, minimum: 1, maximum: 100 },
    },
  },
  annotations: { readOnlyHint: true },
  handler: ({ query, limit }) =>
    index.search(query, limit).map(({ document, score }) => ({
      document_id: document.document_id,
      title: document.title,
      excerpt: excerpt(document, query),
      score,
    })),
});
