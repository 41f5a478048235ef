/**
 * The demo's webtool `documents` (served at /webtools/documents/): two published versions whose metadata differ.
 * 1.1.0 (latest) adds `export_documents` and `subscribe_digest`, scores in search results and the
 * `includeScores` setting; 1.0.0 keeps its own search action (no scores) and a narrower config.
 */
import type { ToolDefinition, WebtoolDefinition } from '../../src/index.js';
import {
  DEFAULT_EXCERPT_LENGTH,
  HIT_PROPERTIES,
  type SearchArgs,
  searchDocuments,
} from './search-documents.js';
import { excerpt, index } from './search-index.js';

/** What search_documents answered in 1.0.0: hits without scores. */
export const SEARCH_RESULTS_V1_SCHEMA = {
  type: 'array',
  items: {
    type: 'object',
    required: ['document_id', 'title', 'excerpt'],
    additionalProperties: false,
    properties: HIT_PROPERTIES,
  },
};

const EXCERPT_LENGTH = {
  type: 'integer',
  minimum: 20,
  description: 'Longest excerpt in search results, in characters',
  examples: [120],
};

// Every tool of the latest version declares its outputSchema on the tool itself, so each action is named and its
// responseSchema is the tool's. Only a pinned older version that answered differently keeps a definition (and so
// a response schema) of its own: 1.0.0's search_documents.

/** 1.0.0's search: the same ranking, no scores, its own response schema. */
const searchV1: ToolDefinition<SearchArgs> = {
  ...searchDocuments,
  description: 'Search through available documents (ranked, without scores)',
  outputSchema: SEARCH_RESULTS_V1_SCHEMA,
  handler: ({ query, limit }: SearchArgs, ctx) => {
    const length =
      typeof ctx.config.excerptLength === 'number' ? ctx.config.excerptLength : DEFAULT_EXCERPT_LENGTH;
    return index.search(query, limit).map(({ document }) => ({
      document_id: document.document_id,
      title: document.title,
      excerpt: excerpt(document, query, length),
    }));
  },
};

/** The `documents` webtool. */
export const documentsWebtool: WebtoolDefinition = {
  name: 'documents',
  description: 'Search, read, analyse and report on a collection of a few hundred documents',
  version: '1.1.0',
  actions: [
    'search_documents',
    'get_document',
    'analyze_dataset',
    'generate_report',
    'export_documents',
    'subscribe_digest',
  ],
  configSchema: {
    type: 'object',
    additionalProperties: false,
    properties: {
      excerptLength: { ...EXCERPT_LENGTH, maximum: 1000 },
      includeScores: { type: 'boolean', description: 'Whether search results carry their relevance score' },
    },
  },
  defaultConfig: { excerptLength: DEFAULT_EXCERPT_LENGTH, includeScores: true },
  versions: [
    {
      version: '1.0.0',
      description: 'Search, read and analyse a collection of documents',
      actions: [searchV1, 'get_document', 'analyze_dataset', 'generate_report'],
      configSchema: {
        type: 'object',
        additionalProperties: false,
        properties: { excerptLength: { ...EXCERPT_LENGTH, maximum: 500 } },
      },
      defaultConfig: { excerptLength: DEFAULT_EXCERPT_LENGTH },
    },
  ],
};
