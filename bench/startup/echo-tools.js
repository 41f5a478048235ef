// The tool module the startup section serves: one echo tool, as a plain .js module a user would write.
import { defineTool } from 'mcplite';

export default [
  defineTool({
    name: 'echo',
    description: 'Echoes its arguments',
    inputSchema: {
      type: 'object',
      properties: { message: { type: 'string' }, repeat: { type: 'integer' } },
    },
    handler: (args) => args,
  }),
];
