import type { WireOutcome } from '../../client/transport.js';
import type { CallOutcome } from '../../client/types.js';
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
