// The same echo tool as a TypeScript module: what `serve ./tools.ts` costs on top of a .js module (tsx's loader).
import { defineTool } from 'mcplite';

export default [
  defineTool({
    name: 'echo',
    description: 'Echoes its arguments',
    inputSchema: {
      type: 'object',
      properties: { message: { type: 'string' }, repeat: { type: 'integer' } },
    } as const,
    handler: (args: Record<string, unknown>) => args,
  }),
];
