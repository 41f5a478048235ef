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
 * (objects with an `action`); one the user declined or cancelled ends the call (-32602 `input_declined`), as
 * there is then nothing to resume with. `keys` restricts the responses to those (the open requests of a task).
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
    if (action !== 'accept') {
      throw new McpLiteError('invalid_params', `The user did not provide the input (${String(action)})`, {
        reason: 'input_declined',
      });
    }
    answers[key] = content ?? {};
  }
  if (Object.keys(answers).length === 0) return undefined;
  return { state, answers, keyed: true };
}
