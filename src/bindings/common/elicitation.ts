import type { ElicitationOutcome } from '../../core/outcomes.js';

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
