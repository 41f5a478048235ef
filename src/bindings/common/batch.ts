import { McpLiteError } from '../../core/errors.js';
import type { MaybePromise } from '../../core/maybe-promise.js';

/** Most messages in one JSON-RPC batch, unless a binding is told otherwise. */
export const DEFAULT_MAX_BATCH = 100;

/**
 * Answers a JSON-RPC batch: each member through `answer` (concurrently), the answers joined into one array in the
 * members' order. Undefined when no member needs an
 * answer (all notifications or responses). An empty or oversized batch is an `invalid_request`, thrown.
 */
export async function answerBatch(
  messages: readonly unknown[],
  maxBatch: number,
  answer: (message: unknown) => MaybePromise<string | undefined>,
): Promise<string | undefined> {
  if (messages.length === 0) throw new McpLiteError('invalid_request', 'Invalid Request: empty batch');
  if (messages.length > maxBatch) {
    throw new McpLiteError('invalid_request', `Invalid Request: batch larger than ${maxBatch}`);
  }
  const replies = (await Promise.all(messages.map((m) => answer(m)))).filter(
    (r): r is string => r !== undefined,
  );
  return replies.length === 0 ? undefined : `[${replies.join(',')}]`;
}
