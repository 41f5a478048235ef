/**
 * The demo's webtool `documents` (served at /webtools/documents/): two published versions whose metadata differ.
 * 1.1.0 (latest) adds `export_documents` and `subscribe_digest`, scores in search results and the
 * `includeScores` setting; 1.0.0 keeps its own search action (no scores) and a narrower config.
 */
import type { ToolDefinition, WebtoolDefinition } from '../../src/index.js';
import { ANALYSIS_SCHEMA, analyzeDataset } from './analyze-dataset.js';
import { generateReport } from './generate-report.js';
import { DEFAULT_EXCERPT_LENGTH, type SearchArgs, searchDocuments } from './search-documents.js';
import { excerpt, index } from './search-index.js';
import { SUBSCRIPTION_SCHEMA, subscribeDigest } from './subscribe-digest.js';

const HIT = {
  document_id: { type: 'string' },
  title: { type: 'string' },
  excerpt: {
    type: 'string',
    description: 'The best matching sentence, cut to about excerptLength characters',
  },
};

/** What search_documents answers in 1.1.0: ranked hits, with their score unless `includeScores` is false. */
export const SEARCH_RESULTS_SCHEMA = {
  type: 'array',
  items: {
    type: 'object',
    required: ['document_id', 'title', 'excerpt'],
    additionalProperties: false,
    properties: { ...HIT, score: { type: 'number', minimum: 0 } },
  },
};

/** What search_documents answered in 1.0.0: hits without scores. */
export const SEARCH_RESULTS_V1_SCHEMA = {
  type: 'array',
  items: {
    type: 'object',
    required: ['document_id', 'title', 'excerpt'],
    additionalProperties: false,
    properties: HIT,
  },
};

const EXCERPT_LENGTH = {
  type: 'integer',
  minimum: 20,
  description: 'Longest excerpt in search results, in characters',
  examples: [120],
};

// The catalog's search_documents keeps spec A.1's listing exactly (no outputSchema), and MCP clients refuse
// non-object results, promises and elicitations from tools with an output schema: these actions are the same
// tools with their response schemas declared.
const searchAction: ToolDefinition<SearchArgs> = { ...searchDocuments, outputSchema: SEARCH_RESULTS_SCHEMA };
const analyzeAction: ToolDefinition = { ...analyzeDataset, outputSchema: ANALYSIS_SCHEMA };
const subscribeAction: ToolDefinition = { ...subscribeDigest, outputSchema: SUBSCRIPTION_SCHEMA };
const reportAction: ToolDefinition = {
  ...generateReport,
  outputSchema: { type: 'string', description: 'The whole report as text' },
};

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
  actions: [searchAction, 'get_document', analyzeAction, reportAction, 'export_documents', subscribeAction],
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
      actions: [searchV1, 'get_document', analyzeAction, reportAction],
      configSchema: {
        type: 'object',
        additionalProperties: false,
        properties: { excerptLength: { ...EXCERPT_LENGTH, maximum: 500 } },
      },
      defaultConfig: { excerptLength: DEFAULT_EXCERPT_LENGTH },
    },
  ],
};
