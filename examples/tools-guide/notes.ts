/**
 * The example of docs/tools.md: a small notes server whose tools use what a tool author uses (schemas and their
 * types, failures, progress, streaming, elicitation). `notes.test.ts` tests it in process, and is the guide's
 * "Testing" example.
 */
import { z } from 'zod';
import { createServer, defineTool, elicit, failure, reportProgress } from '../../src/index.js';

const notes = new Map<number, { title: string; tags: string[] }>();
let nextId = 1;

/** Arguments from a zod schema; the answer checked against outputSchema (at compile time and before sending). */
export const createNote = defineTool({
  name: 'create_note',
  description: 'Creates a note and answers its id.',
  inputSchema: z.object({ title: z.string().min(1), tags: z.array(z.string()).default([]) }),
  outputSchema: z.object({ id: z.number() }),
  handler: ({ title, tags }) => {
    const id = nextId++;
    notes.set(id, { title, tags });
    return { id };
  },
});

/** A business failure is an outcome the model reads, not an exception. */
export const getNote = defineTool({
  name: 'get_note',
  inputSchema: z.object({ id: z.number().int() }),
  handler: ({ id }) => notes.get(id) ?? failure(`No note ${id}`, { code: 'not_found' }),
});

/** Progress while it works; an async generator yields partials and returns the answer. */
export const exportNotes = defineTool({
  name: 'export_notes',
  inputSchema: z.object({ format: z.enum(['text', 'json']) }),
  handler: async function* ({ format }, ctx) {
    let done = 0;
    for (const [id, note] of notes) {
      if (ctx.signal.aborted) break;
      await reportProgress(ctx, ++done, { total: notes.size });
      yield format === 'json' ? JSON.stringify({ id, ...note }) : `${id}. ${note.title}`;
    }
    return { exported: done };
  },
});

/** Asks the user before deleting: the handler runs again with the answers, typed from elicitationSchema. */
export const deleteNote = defineTool({
  name: 'delete_note',
  inputSchema: z.object({ id: z.number().int() }),
  elicitationSchema: z.object({ confirm: z.boolean() }),
  handler: ({ id }, ctx) => {
    if (!notes.has(id)) return failure(`No note ${id}`, { code: 'not_found' });
    if (!ctx.elicitation) return elicit({ message: `Delete note ${id}?` });
    if (ctx.elicitation.action !== 'accept' || !ctx.elicitation.answers.confirm) return 'Kept it.';
    notes.delete(id);
    return 'Deleted.';
  },
});

/** The server's tools, as one list: `typeof tools` types a client's calls. */
export const tools = [createNote, getNote, exportNotes, deleteNote];

/** The server (`mcplite serve examples/tools-guide/notes.ts` serves this module's default export). */
export default createServer({
  name: 'notes',
  tools,
  resources: [
    { uri: 'notes://index', name: 'index', mimeType: 'text/plain', read: () => [...notes.keys()].join('\n') },
  ],
  resourceTemplates: [
    {
      uriTemplate: 'notes://{id}',
      name: 'note',
      read: (_uri, { id }) => JSON.stringify(notes.get(Number(id))),
      complete: { id: (typed) => [...notes.keys()].map(String).filter((k) => k.startsWith(typed)) },
    },
  ],
  prompts: [
    {
      name: 'summarise',
      arguments: [{ name: 'id', required: true }],
      handler: ({ id }) => `Summarise this note: ${JSON.stringify(notes.get(Number(id)))}`,
    },
  ],
});
