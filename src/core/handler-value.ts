import type { CompiledTool } from './catalog.js';
import type { CallContext } from './context.js';
import { unansweredOutcome } from './declined-elicitation.js';
import type { Elicitations, ElicitingCall } from './elicitations.js';
import { McpLiteError } from './errors.js';
import { type ElicitRequest, isHandlerOutcome, type Outcome } from './outcomes.js';

/** What a tool handler may return, turned into an outcome: plain values, outcome helpers, promises, generators. */

/**
 * A handler's return value as an outcome; answers are checked against the outputSchema, an elicitation is signed
 * for `call` (its arguments and principal).
 */
export function toOutcome(
  tool: CompiledTool,
  value: unknown,
  elicitations: Elicitations,
  call: ElicitingCall,
): Outcome {
  if (!isHandlerOutcome(value)) return checkedAnswer(tool, value === undefined ? null : value);
  switch (value.type) {
    case 'answer':
      return checkedAnswer(tool, value.result);
    case 'failure':
      return {
        type: 'failure',
        message: value.message,
        ...(value.code !== undefined ? { code: value.code } : {}),
        ...(value.details !== undefined ? { details: value.details } : {}),
      };
    case 'request-for-more-resource': {
      const { type, resource, requested, granted, unit, message } = value;
      return {
        type,
        resource,
        requested,
        message,
        ...(granted !== undefined ? { granted } : {}),
        ...(unit ? { unit } : {}),
      };
    }
    case 'elicit':
      return elicitations.outcome(tool.wire.name, withToolSchema(tool, value), call);
  }
}

/** A one-form elicitation that names no schema asks with the tool's `elicitationSchema`, which types its answers. */
function withToolSchema(tool: CompiledTool, request: ElicitRequest): ElicitRequest {
  if (request.requests !== undefined || request.schema !== undefined) return request;
  const schema = tool.definition.elicitationSchema;
  if (schema === undefined) {
    throw new Error(
      `Tool "${tool.wire.name}" elicited with no schema: give elicit() one, or the tool an elicitationSchema`,
    );
  }
  return { ...request, schema };
}

function checkedAnswer(tool: CompiledTool, result: unknown): Outcome {
  if (tool.validateOutput) {
    try {
      tool.validateOutput(result, 'result');
    } catch (err) {
      throw new McpLiteError('internal', 'Internal error', undefined, {
        cause: new Error(`Tool "${tool.wire.name}" returned a result that does not match its outputSchema`, {
          cause: err,
        }),
      });
    }
  }
  return { type: 'answer', result };
}

/**
 * Calls the tool's handler. A handler that reads the answers of a round the user declined did not handle the
 * decline: its call ends as declined (`core/declined-elicitation.ts`).
 */
export function runHandler(tool: CompiledTool, args: unknown, context: CallContext): unknown {
  try {
    return tool.definition.handler(args, context);
  } catch (err) {
    const declined = unansweredOutcome(err);
    if (declined) return declined;
    throw err;
  }
}

/** Whether a handler returned a promise (or any thenable). */
export function isThenable(v: unknown): v is PromiseLike<unknown> {
  return typeof v === 'object' && v !== null && typeof (v as { then?: unknown }).then === 'function';
}

/** Whether a handler returned an async iterable (an async generator streams partials). */
export function isAsyncIterable(v: unknown): v is AsyncIterable<unknown> {
  return (
    typeof v === 'object' &&
    v !== null &&
    typeof (v as Record<symbol, unknown>)[Symbol.asyncIterator] === 'function'
  );
}

/**
 * Most values a generator that returns nothing may yield: its answer is the list of them, kept until it ends, so
 * the list is bounded. A generator that streams longer returns its answer (a summary, a count) instead.
 */
export const MAX_COLLECTED_YIELDS = 10_000;

/**
 * Runs an async generator handler: each yield is a partial, the return value is the answer; stops on abort. A
 * generator that returns nothing (`undefined`) answers with the list of what it yielded, whether or not the
 * client streamed (docs/wire-format.md, "Streaming"): the answer is the tool's, never the client's choice.
 */
export async function drainGenerator(
  iterable: AsyncIterable<unknown>,
  context: CallContext,
): Promise<unknown> {
  const iterator = iterable[Symbol.asyncIterator]();
  const signal = context.signal;
  let yielded: unknown[] | undefined = [];
  for (;;) {
    if (signal.aborted) {
      await iterator.return?.();
      throw signal.reason;
    }
    const step = await iterator.next();
    if (step.done) {
      if (step.value !== undefined) return step.value;
      if (yielded) return yielded;
      throw new McpLiteError('internal', 'Internal error', undefined, {
        cause: new Error(
          `Tool "${context.tool}" yielded more than ${MAX_COLLECTED_YIELDS} values and returned no answer`,
        ),
      });
    }
    // Past the bound the list is let go at once: keeping a longer stream would grow without end.
    if (yielded && yielded.length >= MAX_COLLECTED_YIELDS) yielded = undefined;
    yielded?.push(step.value);
    await context.partial(step.value);
  }
}
