import { ELICITATION_ACTIONS, type ElicitationReply } from '../../core/elicitations.js';
import { McpLiteError } from '../../core/errors.js';
import type { ElicitationOutcome } from '../../core/outcomes.js';
import type { ElicitationAction } from '../../core/tool.js';

/**
 * An elicitation outcome as MCP-lite's `elicitation` result member, shared by the HTTP and gRPC bindings (and
 * the MCP binding's fallback text result) so the shape cannot drift: `{ message, requested_schema, state }`,
 * plus `requests` (open requests by name, each `{ message, requested_schema }`) when the handler asked for
 * several inputs at once. The single form stays exactly as it was, so older clients see no change.
 */
export function toWireElicitation(outcome: ElicitationOutcome): Record<string, unknown> {
  const wire: Record<string, unknown> = {
    message: outcome.message,
    requested_schema: outcome.requestedSchema,
    state: outcome.state,
  };
  if (outcome.requests) {
    const requests: Record<string, unknown> = {};
    for (const [name, r] of Object.entries(outcome.requests)) {
      requests[name] = { message: r.message, requested_schema: r.requestedSchema };
    }
    wire.requests = requests;
  }
  return wire;
}

/**
 * The MCP-lite answer member (`{ state, answers?, action? }`, on MCP-lite HTTP, Webtools and MCP's fallback retry)
 * as core's reply. `action` is `accept` (the default), `decline` or `cancel`; a decline or cancel needs no
 * answers and reaches the handler as `ctx.elicitation.action`. `refuse` makes the wire's error for a bad member.
 */
export function elicitationReplyOf(member: unknown, refuse: (message: string) => Error): ElicitationReply {
  if (typeof member !== 'object' || member === null || Array.isArray(member)) {
    throw refuse('must be { state, answers } or { state, action: "decline" | "cancel" }');
  }
  const { state, answers, action } = member as Record<string, unknown>;
  if (action === undefined) return { state, answers };
  if (!ELICITATION_ACTIONS.includes(action as ElicitationAction)) {
    throw refuse('action must be "accept", "decline" or "cancel"');
  }
  return { state, answers, action: action as ElicitationAction };
}

/** The JSON-RPC wires' (MCP-lite HTTP, gRPC) `refuse` for `elicitationReplyOf`: invalid_params naming the field. */
export function invalidElicitation(why: string): McpLiteError {
  return new McpLiteError('invalid_params', `Invalid params: "elicitation" ${why}`, {
    errors: [{ field: 'elicitation', message: why }],
  });
}
