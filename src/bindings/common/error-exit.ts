import { logInternal, type McpLiteError, toMcpLiteError } from '../../core/errors.js';
import type { Logger } from '../../core/logger.js';

/**
 * The one error exit every binding answers through: any throwable becomes the one error type (an unknown one is
 * `internal`, its cause kept for the log and never sent), and an `internal` is logged once, here, whichever wire
 * carries it. The binding then encodes the error with its own table.
 */
export function errorExit(
  err: unknown,
  log: Pick<Logger, 'error'>,
  fields?: Record<string, unknown>,
): McpLiteError {
  const e = toMcpLiteError(err);
  if (e.code === 'internal') logInternal(log, e, fields);
  return e;
}
