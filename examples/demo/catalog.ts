import type { PromptDefinition, ResourceDefinition, ResourceTemplateDefinition } from '../../src/index.js';
import { McpLiteError } from '../../src/index.js';
import { byId, categories, type Document, inCategory } from './documents.js';

/**
 * The demo's resources and prompt, so that a client (or the inspector) has something to list, read and render
 * besides tools: the collection's index, each document by its id, and a prompt that asks for a summary of one.
 */

/** How many ids a completion offers at most (the collection has a few hundred). */
const COMPLETIONS = 20;

/** The collection at a glance: each category and how many documents it holds. */
export const collectionIndex: ResourceDefinition = {
  uri: 'demo://documents',
  name: 'documents',
  title: 'The document collection',
  description: 'Each category of the collection and how many documents it holds',
  mimeType: 'application/json',
  read: () =>
    JSON.stringify(
      {
        documents: inCategory('all').length,
        categories: categories.map((name) => ({ name, documents: inCategory(name).length })),
      },
      null,
      2,
    ),
};

/** One document as Markdown, by the id search_documents returns. */
export const documentById: ResourceTemplateDefinition = {
  uriTemplate: 'demo://documents/{document_id}',
  name: 'document',
  title: 'A document',
  description: 'One document of the collection, as Markdown (ids as search_documents returns them: doc_001…)',
  mimeType: 'text/markdown',
  read: (uri, { document_id }) => markdown(found(document_id, uri)),
  complete: { document_id: (typed) => idsStartingWith(typed) },
};

/** A prompt that hands one document to the model and asks for a summary. */
export const summarizeDocument: PromptDefinition = {
  name: 'summarize_document',
  title: 'Summarize a document',
  description: 'Asks for a short summary of one document of the collection',
  arguments: [{ name: 'document_id', description: 'e.g. "doc_001"', required: true }],
  handler: ({ document_id }) => {
    const doc = found(document_id);
    return {
      description: `Summarize "${doc.title}"`,
      messages: [
        {
          role: 'user',
          content: { type: 'text', text: `Summarize this document in three sentences.\n\n${markdown(doc)}` },
        },
      ],
    };
  },
  complete: { document_id: (typed) => idsStartingWith(typed) },
};

function found(id: string | undefined, uri?: string): Document {
  const doc = id === undefined ? undefined : byId.get(id);
  if (doc) return doc;
  if (uri !== undefined) throw new McpLiteError('resource_not_found', `No document at ${uri}`, { uri });
  throw new McpLiteError('invalid_params', `No document with id "${id}": search_documents finds the ids`);
}

function markdown(doc: Document): string {
  return `# ${doc.title}\n\n${doc.category} · ${doc.author} · ${doc.published}\n\n${doc.body}\n`;
}

function idsStartingWith(typed: string): string[] {
  const ids: string[] = [];
  for (const id of byId.keys()) {
    if (id.startsWith(typed)) ids.push(id);
    if (ids.length === COMPLETIONS) break;
  }
  return ids;
}
