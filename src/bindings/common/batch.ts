import { utf8ByteLength } from '../../core/base64.js';
import { McpLiteError } from '../../core/errors.js';
import type { MaybePromise } from '../../core/maybe-promise.js';

/** Most messages in one JSON-RPC batch, unless a binding is told otherwise. */
export const DEFAULT_MAX_BATCH = 100;

/**
 * Most bytes of one batch's answer: 1 MiB. A batch multiplies what one request costs: 100 `tools/list` of a large
 * catalog asked in 11 KB made a 15 MB answer, held for a client that need never read it. Members whose answers
 * go past it are answered `resource_exhausted` instead; a large answer is asked for alone, where it is one
 * request's cost.
 */
export const MAX_BATCH_ANSWER_BYTES = 1024 * 1024;

/**
 * The error answer of a batch member, in its binding's shape: what a member whose answer would take the batch
 * past `MAX_BATCH_ANSWER_BYTES` gets instead.
 */
export type MemberRefusal = (message: unknown, err: McpLiteError) => string;

/**
 * Answers a JSON-RPC batch: each member through `answer` (concurrently), the answers joined into one array in the
 * members' order. Undefined when no member needs an answer (all notifications or responses). An empty or
 * oversized batch is an `invalid_request`, thrown. The array stays within `MAX_BATCH_ANSWER_BYTES`: from the
 * first member in order whose answer would pass it, each answer is replaced by `refuse`'s (the work was done;
 * the client asks again for what it needs, alone or in a smaller batch).
 */
export async function answerBatch(
  messages: readonly unknown[],
  maxBatch: number,
  answer: (message: unknown) => MaybePromise<string | undefined>,
  refuse: MemberRefusal,
): Promise<string | undefined> {
  if (messages.length === 0) throw new McpLiteError('invalid_request', 'Invalid Request: empty batch');
  if (messages.length > maxBatch) {
    throw new McpLiteError('invalid_request', `Invalid Request: batch larger than ${maxBatch}`);
  }
  const answers = await Promise.all(messages.map((m) => answer(m)));
  const replies: string[] = [];
  // Brackets and commas; an error answer is small, so refusals alone never pass the bound in practice.
  let bytes = 2;
  let full = false;
  for (let i = 0; i < answers.length; i++) {
    let reply = answers[i];
    if (reply === undefined) continue;
    if (!full && bytes + utf8ByteLength(reply) + 1 > MAX_BATCH_ANSWER_BYTES) full = true;
    if (full) reply = refuse(messages[i], answerTooLarge());
    bytes += utf8ByteLength(reply) + 1;
    replies.push(reply);
  }
  return replies.length === 0 ? undefined : `[${replies.join(',')}]`;
}

function answerTooLarge(): McpLiteError {
  return new McpLiteError(
    'resource_exhausted',
    `The batch's answer would exceed ${MAX_BATCH_ANSWER_BYTES} bytes: send this request alone or in a smaller batch`,
    { limit: MAX_BATCH_ANSWER_BYTES },
  );
}
