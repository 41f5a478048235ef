import { SERVER_CARD_TYPE } from '../core/discovery/server-card.js';
import { SERVER_CARD_SCHEMA } from '../core/discovery/server-card-schema.js';
import { McpLiteError } from '../core/errors.js';
import { documentTooLarge, readBoundedJson } from '../core/read-bounded.js';
import { compileValidator, type Validator } from '../core/schema.js';

/**
 * A Server Card as where a connection starts (docs/discovery.md), the one resolver of card URLs: `connect()` takes
 * a URL ending in `/server-card` as a card (so `mcplite tools https://host/mcp/server-card` does too), and a
 * gateway's `"card"` entry resolves its URL here. The card is read bounded and timed, must say it is JSON, and
 * must be valid against the published card schema; its Streamable HTTP remote is the endpoint. A card without one
 * (only legacy SSE, or only a templated `{tenant}` URL that needs values a card cannot give) is refused by name.
 */

/** Largest card read. */
const MAX_CARD_BYTES = 256 * 1024;
/** Longest wait for a card. */
const CARD_TIMEOUT_MS = 15_000;

/** Whether `target` names a Server Card rather than an endpoint. */
export function isCardTarget(target: string): boolean {
  return /^https?:\/\/[^\s]+\/server-card(?:\?[^\s]*)?$/.test(target);
}

/** The card validator, compiled on first use (most clients never read a card). */
let cardValidator: Validator | undefined;

/** Checks `card` against `#/$defs/ServerCard`; throws the schema's problems as `invalid_params`. */
function validateCard(card: unknown): void {
  cardValidator ??= compileValidator(
    { ...SERVER_CARD_SCHEMA, $ref: '#/$defs/ServerCard' },
    'the Server Card schema',
  );
  cardValidator(card, 'Server Card');
}

/**
 * The Streamable HTTP endpoint the Server Card at `url` lists. Refused (`unavailable`) when the card cannot be
 * read, is not JSON or lists no such remote; `invalid_params` when it is not a valid card.
 */
export async function endpointOfCard(url: string, signal?: AbortSignal): Promise<string> {
  const timeout = AbortSignal.timeout(CARD_TIMEOUT_MS);
  const res = await fetch(url, {
    headers: { accept: `${SERVER_CARD_TYPE}, application/json;q=0.5` },
    signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
  });
  if (!res.ok) {
    await res.body?.cancel();
    throw new McpLiteError('unavailable', `No Server Card at ${url}: HTTP ${res.status}`);
  }
  // The card's own type, or JSON in general (a card kept as a static file): an HTML page is not a card.
  const type = res.headers.get('content-type')?.split(';')[0]?.trim().toLowerCase() ?? '';
  if (type !== SERVER_CARD_TYPE && type !== 'application/json') {
    await res.body?.cancel();
    throw new McpLiteError(
      'unavailable',
      `${url} is not a Server Card: it answered ${type || 'no content type'}, not ${SERVER_CARD_TYPE}`,
    );
  }
  let card: unknown;
  try {
    card = await readBoundedJson(res, MAX_CARD_BYTES, documentTooLarge('Server Card', MAX_CARD_BYTES));
  } catch (err) {
    if (signal?.aborted) throw err;
    throw new McpLiteError(
      'unavailable',
      `The Server Card at ${url} could not be read: ${(err as Error).message}`,
    );
  }
  try {
    validateCard(card);
  } catch (err) {
    throw new McpLiteError(
      'invalid_params',
      `The Server Card at ${url} is not valid: ${(err as Error).message}`,
      undefined,
      { cause: err },
    );
  }
  const remotes = ((card as { remotes?: { type: string; url: string }[] }).remotes ?? []).filter(
    (r) => r.type === 'streamable-http' && /^https?:\/\/[^\s{}]+$/.test(r.url),
  );
  if (remotes.length === 0)
    throw new McpLiteError(
      'unavailable',
      `The Server Card at ${url} lists no Streamable HTTP remote to connect to (only legacy SSE or templated URLs, or none)`,
    );
  return remotes[0]!.url;
}
