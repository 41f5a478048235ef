import type { ElicitationReply } from '../../core/elicitations.js';
import { McpLiteError } from '../../core/errors.js';
import type { ElicitationOutcome } from '../../core/outcomes.js';

/**
 * Core elicitations on the MCP input wire (SEP-2322 `InputRequiredResult`, tasks' `inputRequests` and
 * `tasks/update`): each open request becomes one keyed `elicitation/create` input request, and the client's keyed
 * `inputResponses` become core's answers. Shared by tools/call (2026-07-28) and the tasks extension.
 */

/** The key of a single-form elicitation: the schema's `title` when it is an identifier, else "elicitation". */
function inputKey(outcome: ElicitationOutcome): string {
  const title = outcome.requestedSchema.title;
  return typeof title === 'string' && /^[A-Za-z_][\w.-]{0,63}$/.test(title) ? title : 'elicitation';
}

/**
 * The open requests of an elicitation as `inputRequests`: one per request of a multi-request elicitation (keyed
 * by request name), else one under `inputKey`.
 */
export function inputRequests(outcome: ElicitationOutcome): Record<string, Record<string, unknown>> {
  if (!outcome.requests) {
    const { title: _t, ...requestedSchema } = outcome.requestedSchema;
    return { [inputKey(outcome)]: elicitationCreate(outcome.message, requestedSchema) };
  }
  const requests: Record<string, Record<string, unknown>> = {};
  for (const [name, r] of Object.entries(outcome.requests)) {
    requests[name] = elicitationCreate(r.message, r.requestedSchema);
  }
  return requests;
}

function elicitationCreate(message: string, requestedSchema: unknown): Record<string, unknown> {
  return { method: 'elicitation/create', params: { mode: 'form', message, requestedSchema } };
}

/**
 * Keyed `inputResponses` as core's reply to the elicitation signed in `state`. Only elicitation results count
 * (objects with an `action`); one the user declined or cancelled makes the whole reply that decline (or cancel),
 * which the handler gets as `ctx.elicitation.action`. `keys` restricts the responses to those (the open requests
 * of a task).
 */
export function toElicitationReply(
  state: unknown,
  responses: Record<string, unknown>,
  keys?: readonly string[],
): ElicitationReply | undefined {
  const answers: Record<string, unknown> = {};
  for (const [key, reply] of Object.entries(responses)) {
    if (keys && !keys.includes(key)) continue;
    if (typeof reply !== 'object' || reply === null || !('action' in reply)) continue;
    const { action, content } = reply as { action: unknown; content?: unknown };
    if (action === 'decline' || action === 'cancel') return { state, answers: {}, action };
    if (action !== 'accept') {
      throw new McpLiteError(
        'invalid_params',
        'Invalid params: an input response action must be accept, decline or cancel',
        {
          reason: 'invalid_action',
        },
      );
    }
    answers[key] = content ?? {};
  }
  if (Object.keys(answers).length === 0) return undefined;
  return { state, answers, keyed: true };
}
