/** The error `connect` refuses a target with; a test fails if it connects instead. */
import { expect } from 'vitest';
import { connect } from '../../src/client/index.js';
import { McpLiteError } from '../../src/index.js';

export async function connectRefusal(
  target: string,
  options: Parameters<typeof connect>[1] = {},
  label: string = target,
): Promise<McpLiteError> {
  const err = await connect(target, options).then(
    async (c) => {
      await c.close();
      return undefined;
    },
    (e: unknown) => e,
  );
  expect(err, label).toBeInstanceOf(McpLiteError);
  return err as McpLiteError;
}
