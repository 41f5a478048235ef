import { McpLiteError } from './errors.js';

/** A compiled validator: returns the (defaults-filled) value or throws `invalid_params` with readable detail. */
export type Validator = (value: unknown, what?: string) => unknown;

/** One validation problem in words a person (or a model) can act on: which field (a dotted path), what was expected. */
export interface FieldProblem {
  field: string;
  message: string;
  expected?: unknown;
}

/** At most this many problems are reported, so hostile input cannot make a huge error body. */
const MAX_REPORTED_ERRORS = 10;

/**
 * The one `invalid_params` error of a value that failed its schema, whichever validator found the problems: the
 * first problem in the message, the first ten in `data.errors`.
 */
export function invalidParamsOf(what: string, problems: readonly FieldProblem[]): McpLiteError {
  const reported = problems.slice(0, MAX_REPORTED_ERRORS);
  const first = reported[0];
  const message = first ? `Invalid ${what}: '${first.field}' ${first.message}` : `Invalid ${what}`;
  return new McpLiteError('invalid_params', message, { errors: reported });
}

/** A JSON Pointer (`/a/b`, as validators report where a problem is) as the dotted path users read. */
export function dottedPath(pointer: string): string {
  return pointer
    .slice(1)
    .split('/')
    .map((part) => part.replaceAll('~1', '/').replaceAll('~0', '~'))
    .join('.');
}
