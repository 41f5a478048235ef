import { defineTool, failure } from '../../src/index.js';
import { byId } from './documents.js';

/** Arguments of get_document. */
export interface GetDocumentArgs {
  document_id: string;
}

/**
 * Fetches one document. An unknown id is a business failure (the call was well-formed, the document just is not
 * there), not a protocol error, so the model gets a `failure` outcome it can act on.
 */
export const getDocument = defineTool<GetDocumentArgs>({
  name: 'get_document',
  '@type': 'query',
  description: 'Fetch one document by its id (as returned by search_documents), with its full text',
  inputSchema: {
    type: 'object',
    required: ['document_id'],
    properties: { document_id: { type: 'string', minLength: 1, description: 'e.g. "doc_001"' } },
  },
  outputSchema: {
    type: 'object',
    required: ['document_id', 'title', 'category', 'author', 'published', 'body'],
    properties: {
      document_id: { type: 'string' },
      title: { type: 'string' },
      category: { type: 'string' },
      author: { type: 'string' },
      published: { type: 'string', format: 'date' },
      body: { type: 'string' },
    },
  },
  annotations: { readOnlyHint: true },
  handler: ({ document_id }) =>
    byId.get(document_id) ??
    failure(`No document with id "${document_id}"`, {
      code: 'not_found',
      details: { document_id, hint: 'Use search_documents to find valid ids' },
    }),
});
