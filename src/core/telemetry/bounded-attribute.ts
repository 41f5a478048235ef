/**
 * Longest string a span attribute or status message takes from a request (a JSON-RPC id, an address, recorded
 * arguments or results, an error message that quotes the caller): a caller chooses these, and an exporter whose
 * collector is slow or gone keeps every span it has not sent, so an unbounded copy is memory a caller can claim.
 */
export const MAX_ATTRIBUTE_LENGTH = 1024;

/** `value` cut to `MAX_ATTRIBUTE_LENGTH` characters, marked as cut with a trailing `…`. */
export function boundedAttribute(value: string): string {
  return value.length <= MAX_ATTRIBUTE_LENGTH ? value : `${value.slice(0, MAX_ATTRIBUTE_LENGTH - 1)}…`;
}
