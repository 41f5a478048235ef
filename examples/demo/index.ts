/**
 * The mcplite demo: the tools of spec Appendix A over a collection of a few hundred documents
 * (examples/data/documents.json). Serve it with `mcplite serve --demo` or `npm start`.
 */
import type { ToolDefinition } from '../../src/index.js';
import { analyzeDataset } from './analyze-dataset.js';
import { browseDocuments, openDocument } from './browse-documents.js';
import { collectionIndex, documentById, summarizeDocument } from './catalog.js';
import { echo } from './echo.js';
import { exportDocuments } from './export-documents.js';
import { generateReport } from './generate-report.js';
import { getDocument } from './get-document.js';
import { searchDocuments } from './search-documents.js';
import { subscribeDigest } from './subscribe-digest.js';
import { documentsWebtool } from './webtool.js';

/** The demo's version (its own, independent of the library's). */
export const DEMO_VERSION = '1.0.0';

/**
 * Every demo tool: one per response type of the spec, echo for benchmarks, and an MCP App (browse_documents with
 * its view, and open_document, which only that view calls).
 */
export const tools: ToolDefinition[] = [
  searchDocuments,
  analyzeDataset,
  generateReport,
  getDocument,
  exportDocuments,
  subscribeDigest,
  echo,
  browseDocuments,
  openDocument,
];

/**
 * Options for `createServer` (the CLI merges these with its flags): a Webtool, and a resource, a resource template
 * and a prompt (examples/demo/catalog.ts) for clients and the inspector to list, read and render.
 */
export const serverOptions = {
  name: 'mcplite-demo',
  version: DEMO_VERSION,
  webtools: [documentsWebtool],
  resources: [collectionIndex],
  resourceTemplates: [documentById],
  prompts: [summarizeDocument],
};
