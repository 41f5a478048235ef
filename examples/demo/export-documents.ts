import { defineTool, needMoreResource } from '../../src/index.js';
import { categories, inCategory } from './documents.js';

/** Arguments of export_documents. */
export interface ExportArgs {
  category: string;
  max_rows: number;
}

/**
 * Exports a category as rows. When the category holds more documents than `max_rows` allows, the tool does not
 * truncate silently: it answers request-for-more-resource, saying how many rows the export needs, so the caller
 * can retry with a larger budget (or narrow the request).
 */
export const exportDocuments = defineTool<ExportArgs>({
  name: 'export_documents',
  '@type': 'export',
  description: 'Export the documents of a category (or "all") as rows, up to max_rows',
  inputSchema: {
    type: 'object',
    properties: {
      category: { type: 'string', enum: ['all', ...categories], default: 'all' },
      max_rows: { type: 'integer', minimum: 1, maximum: 1000, default: 50 },
    },
  },
  outputSchema: {
    type: 'object',
    required: ['category', 'count', 'rows'],
    properties: {
      category: { type: 'string' },
      count: { type: 'integer', minimum: 0 },
      rows: {
        type: 'array',
        items: {
          type: 'object',
          required: ['document_id', 'title', 'category', 'author', 'published', 'words'],
          properties: { words: { type: 'integer', minimum: 0 } },
        },
      },
    },
  },
  annotations: { readOnlyHint: true },
  handler: ({ category, max_rows }) => {
    const docs = inCategory(category);
    if (docs.length > max_rows) {
      return needMoreResource({
        resource: 'rows',
        requested: docs.length,
        granted: max_rows,
        unit: 'documents',
        message: `Category "${category}" has ${docs.length} documents but max_rows is ${max_rows}; call again with max_rows >= ${docs.length}.`,
      });
    }
    return {
      category,
      count: docs.length,
      rows: docs.map(({ document_id, title, category, author, published, body }) => ({
        document_id,
        title,
        category,
        author,
        published,
        words: body.split(/\s+/).length,
      })),
    };
  },
});
