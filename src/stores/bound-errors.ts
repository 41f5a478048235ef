import { McpLiteError } from '../core/errors.js';
import type { SessionBounds, TaskBounds } from '../core/session-state.js';

/**
 * The refusals every store answers when a bound is reached (`resource_exhausted`: -32004 / 429), one wording per
 * bound whichever store (memory or Redis) enforces it.
 */

/** The refusal of a session past the caller's bound. */
export function tooManyForCaller(limit: number): McpLiteError {
  return new McpLiteError(
    'resource_exhausted',
    `Too many sessions for this caller (limit ${limit}): end unused ones with DELETE, or wait for idle ones to expire`,
    { limit, scope: 'caller' },
  );
}

/** The refusal of a session past the store's bound. */
export function tooMany(limit: number): McpLiteError {
  return new McpLiteError('resource_exhausted', 'The server holds as many sessions as it can: try later', {
    limit,
    scope: 'server',
  });
}

/** The refusal of a subscription past the session's bound. */
export function tooManySubscriptions(bounds: SessionBounds): McpLiteError {
  return new McpLiteError(
    'resource_exhausted',
    `Too many subscriptions in this session (limit ${bounds.maxSubscriptions}): unsubscribe first`,
    { limit: bounds.maxSubscriptions },
  );
}

/** The refusal of a task past the caller's bound, or the store's. */
export function tooManyTasks(scope: 'caller' | 'server', bounds: TaskBounds): McpLiteError {
  if (scope === 'caller') {
    return new McpLiteError(
      'resource_exhausted',
      `Too many tasks for this caller (limit ${bounds.maxTasksPerCaller}): wait for some to expire`,
      { limit: bounds.maxTasksPerCaller, scope: 'caller' },
    );
  }
  return new McpLiteError('resource_exhausted', 'The server holds as many tasks as it can: try later', {
    limit: bounds.maxTasks,
    scope: 'server',
  });
}

/** The refusal of a promise past the owner's quota (`limit`), or the store's bound. */
export function tooManyPromises(scope: 'caller' | 'server', limit: number): McpLiteError {
  if (scope === 'caller') {
    return new McpLiteError(
      'resource_exhausted',
      `Too many outstanding promises for this caller (limit ${limit}): redeem or cancel some, or wait for them to expire`,
      { limit, scope: 'caller' },
    );
  }
  return new McpLiteError(
    'resource_exhausted',
    `Too many outstanding promises on this server (limit ${limit}): try again later`,
    { limit, scope: 'server' },
  );
}

/** The refusal of an elicitation answer past the caller's bound of remembered states, or the store's. */
export function tooManyElicitationAnswers(scope: 'caller' | 'server', limit: number): McpLiteError {
  if (scope === 'caller') {
    return new McpLiteError(
      'resource_exhausted',
      `Too many elicitation answers from this caller (limit ${limit} while their states are valid): try later`,
      { limit, scope: 'caller' },
    );
  }
  return new McpLiteError(
    'resource_exhausted',
    `The server holds as many answered elicitations as it can (limit ${limit}): try later`,
    { limit, scope: 'server' },
  );
}
