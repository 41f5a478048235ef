/**
 * docs/tools.md, "Testing a server": the notes server tested in process, with the client every target gets,
 * connected without a socket (`connect(server)`).
 */
import { describe, expect, it } from 'vitest';
import { connect } from '../../src/client/index.js';
import server, { type tools } from './notes.js';

describe('the notes server, in process', () => {
  it('creates, reads, exports and deletes a note', async () => {
    const client = await connect<typeof tools>(server);
    try {
      const created = await client.call('create_note', { title: 'Groceries' });
      expect(created).toMatchObject({ type: 'answer', value: { id: expect.any(Number) } });
      const id = created.type === 'answer' ? created.value.id : -1;

      expect(await client.call('get_note', { id })).toMatchObject({
        value: { title: 'Groceries', tags: [] },
      });
      expect(await client.call('get_note', { id: 999 })).toMatchObject({
        type: 'failure',
        code: 'not_found',
      });

      const progress: unknown[] = [];
      const exported = await client.call(
        'export_notes',
        { format: 'text' },
        { onPartial: (p) => progress.push(p) },
      );
      expect(exported).toMatchObject({ type: 'answer', value: { exported: 1 } });
      expect(progress.length).toBeGreaterThan(0);

      const asked = await client.call('delete_note', { id });
      expect(asked).toMatchObject({ type: 'elicitation', message: `Delete note ${id}?` });
      if (asked.type !== 'elicitation') return;
      expect(asked.requestedSchema).toMatchObject({ properties: { confirm: { type: 'boolean' } } });
      expect(await asked.answer({ confirm: true })).toMatchObject({ type: 'answer', value: 'Deleted.' });
      expect(await client.call('get_note', { id })).toMatchObject({ type: 'failure' });
    } finally {
      await client.close();
    }
  });
});
