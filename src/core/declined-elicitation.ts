import { failure, type HandlerOutcome } from './outcomes.js';
import type { ElicitationAction, ElicitationAnswers } from './tool.js';

/**
 * A declined (or cancelled) elicitation as the handler sees it. The handler runs again on every wire and reads
 * `ctx.elicitation.action` to answer as it likes ("kept the note"). One that does not handle the refusal, and
 * reads `answers` the user never gave, or asks again, ends the call as declined: the failure it always ended in,
 * rather than acting on answers that are not there (docs/architecture.md "Elicitation").
 */

/** Thrown by `answers` of a declined round; core turns it into the declined failure. */
class UnansweredElicitation extends Error {
  constructor(readonly action: Exclude<ElicitationAction, 'accept'>) {
    super(`The user did not provide the input (${action}).`);
  }
}

/**
 * The handler's `ctx.elicitation` for a declined or cancelled round: `action` and the elicitation's `context`;
 * reading `answers` throws (see above). It travels to a worker as `{ action, context }` (`toJSON`).
 */
export function declinedAnswers(
  action: Exclude<ElicitationAction, 'accept'>,
  context: unknown,
): ElicitationAnswers {
  const declined = { action, context, toJSON: () => ({ action, context }) };
  Object.defineProperty(declined, 'answers', {
    enumerable: false,
    get(): never {
      throw new UnansweredElicitation(action);
    },
  });
  return declined as unknown as ElicitationAnswers;
}

/** Answers as a job carried them (JSON): a declined round becomes `declinedAnswers` again. */
export function revivedAnswers(stored: ElicitationAnswers | undefined): ElicitationAnswers | undefined {
  if (stored === undefined || stored.action === undefined || stored.action === 'accept') return stored;
  return declinedAnswers(stored.action, stored.context);
}

/** The outcome a call ends in when the user declined and the handler did not handle it. */
export function declinedFailure(action: Exclude<ElicitationAction, 'accept'>): HandlerOutcome {
  return failure(`The user did not provide the input (${action}).`, { code: 'declined' });
}

/** `err` as the declined failure when it is a handler's read of answers that were never given. */
export function unansweredOutcome(err: unknown): HandlerOutcome | undefined {
  return err instanceof UnansweredElicitation ? declinedFailure(err.action) : undefined;
}
