import { defineTool, failure } from '../../src/index.js';
import { BROWSE_VIEW_HTML } from './browse-view.js';
import { byId } from './documents.js';
import { excerpt, index } from './search-index.js';

/** Arguments of browse_documents. */
export interface BrowseArgs {
  query: string;
  limit: number;
}

/**
 * The demo's MCP App: a search whose results a host that speaks MCP Apps (the inspector, Claude-style hosts)
 * renders as an interactive list (`BROWSE_VIEW_HTML`), each hit with an "Open" button that calls open_document.
 * A client without the extension gets the same tool as text: the hits as JSON in `content`, the value in
 * `structuredContent`.
 */
export const browseDocuments = defineTool<BrowseArgs>({
  name: 'browse_documents',
  '@type': 'query',
  title: 'Browse documents',
  description:
    'Search the documents and show the hits as an interactive list the user can open documents from',
  inputSchema: {
    type: 'object',
    required: ['query'],
    properties: {
      query: { type: 'string', description: 'Search query', maxLength: 1000 },
      limit: { type: 'integer', default: 10, minimum: 1, maximum: 50 },
    },
  },
  outputSchema: {
    type: 'object',
    required: ['query', 'hits'],
    properties: {
      query: { type: 'string' },
      hits: {
        type: 'array',
        items: {
          type: 'object',
          required: ['document_id', 'title', 'excerpt'],
          properties: {
            document_id: { type: 'string' },
            title: { type: 'string' },
            excerpt: { type: 'string' },
          },
        },
      },
    },
  },
  annotations: { readOnlyHint: true },
  ui: {
    html: BROWSE_VIEW_HTML,
    uri: 'ui://mcplite-demo/documents',
    name: 'documents_view',
    description: 'The hits of browse_documents as a list, each document opened in place',
    prefersBorder: true,
  },
  handler: ({ query, limit }) => ({
    query,
    hits: index.search(query, limit).map(({ document }) => ({
      document_id: document.document_id,
      title: document.title,
      excerpt: excerpt(document, query, 160),
    })),
  }),
});

/** Arguments of open_document. */
export interface OpenDocumentArgs {
  document_id: string;
}

/**
 * What the view's "Open" button calls: one document in full. App-only (`visibility: ['app']`): a model never sees
 * it (get_document is the model's way to the same text); the host lets only the view call it.
 */
export const openDocument = defineTool<OpenDocumentArgs>({
  name: 'open_document',
  '@type': 'query',
  description: 'Open one document in the browse_documents view',
  visibility: ['app'],
  inputSchema: {
    type: 'object',
    required: ['document_id'],
    properties: { document_id: { type: 'string', minLength: 1, maxLength: 64 } },
  },
  outputSchema: {
    type: 'object',
    required: ['document_id', 'title', 'category', 'author', 'published', 'body'],
    properties: {
      document_id: { type: 'string' },
      title: { type: 'string' },
      category: { type: 'string' },
      author: { type: 'string' },
      published: { type: 'string' },
      body: { type: 'string' },
    },
  },
  annotations: { readOnlyHint: true },
  handler: ({ document_id }) =>
    byId.get(document_id) ?? failure(`No document with id "${document_id}"`, { code: 'not_found' }),
});
