/** The longest method name (or other client-chosen name) a binding repeats back in an error. */
export const MAX_ECHO_CHARS = 128;

/**
 * A client's name as an error may repeat it: whole when short, else its start and an ellipsis. Echoing a
 * multi-megabyte method name (twice: message and data) would cost every such request megabytes of JSON work.
 */
export function echoName(name: string, max = MAX_ECHO_CHARS): string {
  return name.length <= max ? name : `${name.slice(0, max)}…`;
}
