import { fromLiteResult, liteMetaOf } from '../../client/lite-result.js';
import type { WireOutcome } from '../../client/transport.js';
import type { CallOutcome } from '../../client/types.js';
import { isRecord } from '../../client/wire-errors.js';
import { McpLiteError } from '../../core/errors.js';
import { unhandledOutcome } from '../../core/outcomes.js';
import type { InspectorOutcome } from '../target.js';

/**
 * An outcome the client read (a `CallOutcome`, or a transport's `WireOutcome`) as the page shows it: the fields of
 * its kind, without the functions that continue it and without `meta` (a reply carries that beside the outcome).
 */
export function toInspectorOutcome(outcome: CallOutcome | WireOutcome): InspectorOutcome {
  switch (outcome.type) {
    case 'answer':
      return { type: 'answer', result: outcome.value };
    case 'elicitation':
      return {
        type: 'elicitation',
        message: outcome.message,
        requestedSchema: outcome.requestedSchema,
        ...(outcome.requests ? { requests: outcome.requests } : {}),
      };
    case 'promise':
      return {
        type: 'promise',
        token: outcome.token,
        ...(outcome.estimatedCompletion ? { estimatedCompletion: outcome.estimatedCompletion } : {}),
      };
    case 'failure': {
      const { meta: _meta, ...failure } = outcome;
      return failure;
    }
    case 'request-for-more-resource': {
      const { meta: _meta, ...request } = outcome;
      return request;
    }
    default:
      return unhandledOutcome(outcome);
  }
}

/** Continuing is the target's own round (it shows the exchange), so the client's continuation is never taken. */
function notResumed(): never {
  throw new McpLiteError('internal', 'The inspector continues an elicitation with a round of its own');
}

/**
 * An MCP-lite result object (docs/wire-format.md) as the page shows it, read by the client's own reader so both
 * take the five kinds alike; a kind neither knows is shown as the protocol error it is.
 */
export function liteOutcome(result: Record<string, unknown>): InspectorOutcome {
  try {
    const meta = liteMetaOf(isRecord(result._meta) ? result._meta : {});
    return toInspectorOutcome(fromLiteResult(result, meta, notResumed));
  } catch (err) {
    return { type: 'error', error: { code: 'protocol', message: (err as Error).message } };
  }
}
