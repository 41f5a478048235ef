/**
 * Tools whose calls fail (test/mcp/tool-errors.test.ts): arguments that break the input schema, a handler that
 * crashes with a secret in its error, and one that reports the server unavailable.
 */
import { McpLiteError, type ToolDefinition } from '../../src/index.js';

/** What the crashing handler's error says: it must never reach a client. */
export const SECRET = 'db password hunter2 at /srv/app/secret.ts';

/** The fixture's tools. */
export const toolErrorTools: ToolDefinition[] = [
  {
    name: 'echo',
    description: 'Echoes a message some number of times',
    inputSchema: {
      type: 'object',
      properties: { message: { type: 'string' }, times: { type: 'integer', minimum: 1 } },
      required: ['message'],
    },
    handler: ({ message }: { message: string }) => ({ message }),
  },
  {
    name: 'crash',
    description: 'Throws',
    handler: async () => {
      await new Promise((r) => setTimeout(r, 5));
      throw new Error(SECRET);
    },
  },
  {
    name: 'crash_sync',
    description: 'Throws before it awaits anything',
    handler: () => {
      throw new TypeError(SECRET);
    },
  },
  {
    name: 'down',
    description: 'Reports the server unavailable',
    handler: () => {
      throw new McpLiteError('unavailable', 'The store is unreachable');
    },
  },
];
