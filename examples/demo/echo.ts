import { defineTool } from '../../src/index.js';

/** Arguments of echo. */
export interface EchoArgs {
  message: string;
  repeat?: number;
}

/**
 * Returns its input. Synchronous and allocation-light on purpose: the benchmark uses it to measure the
 * server's own overhead, not a tool's.
 */
export const echo = defineTool<EchoArgs>({
  name: 'echo',
  '@type': 'utility',
  description: 'Echo the message back (for testing and benchmarks)',
  inputSchema: {
    type: 'object',
    required: ['message'],
    properties: {
      message: { type: 'string', maxLength: 10000 },
      repeat: { type: 'integer', minimum: 1, maximum: 10 },
    },
  },
  outputSchema: {
    type: 'object',
    required: ['message', 'repeat'],
    properties: { message: { type: 'string' }, repeat: { type: 'integer', minimum: 1 } },
  },
  annotations: { readOnlyHint: true, idempotentHint: true },
  handler: ({ message, repeat }) => ({ message, repeat: repeat ?? 1 }),
});
