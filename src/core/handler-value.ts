import type { CompiledTool } from './catalog.js';
import type { CallContext } from './context.js';
import type { Elicitations } from './elicitations.js';
import { McpLiteError } from './errors.js';
import { isHandlerOutcome, type Outcome } from './outcomes.js';

/** What a tool handler may return, turned into an outcome: plain values, outcome helpers, promises, generators. */

/** A handler's return value as an outcome; answers are checked against the outputSchema. */
export function toOutcome(tool: CompiledTool, value: unknown, elicitations: Elicitations): Outcome {
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
      return elicitations.outcome(tool.wire.name, value);
  }
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

/** Runs an async generator handler: each yield is a partial, the return value is the answer; stops on abort. */
export async function drainGenerator(
  iterable: AsyncIterable<unknown>,
  context: CallContext,
): Promise<unknown> {
  const iterator = iterable[Symbol.asyncIterator]();
  const signal = context.signal;
  // On a streaming call the client already has every partial, so they are not kept (a long stream stays flat in
  // memory); without streaming, a generator that returns nothing answers with the list of what it yielded.
  const partials: unknown[] | undefined = context.streaming ? undefined : [];
  for (;;) {
    if (signal.aborted) {
      await iterator.return?.();
      throw signal.reason;
    }
    const step = await iterator.next();
    if (step.done) return step.value === undefined ? (partials ?? null) : step.value;
    partials?.push(step.value);
    await context.partial(step.value);
  }
}
