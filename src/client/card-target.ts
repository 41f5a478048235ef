import { SERVER_CARD_TYPE } from '../core/discovery/server-card.js';
import { SERVER_CARD_SCHEMA } from '../core/discovery/server-card-schema.js';
import { McpLiteError } from '../core/errors.js';
import { type DocumentKind, readDiscoveryDocument } from './discovery-document.js';

/**
 * A Server Card as where a connection starts (docs/discovery.md), the one resolver of card URLs: `connect()` takes
 * a URL ending in `/server-card` as a card (so `mcplite tools https://host/mcp/server-card` does too), and a
 * gateway's `"card"` entry resolves its URL here. The card is read bounded and timed, must say it is JSON, and
 * must be valid against the published card schema; its Streamable HTTP remote is the endpoint. A card without one
 * (only legacy SSE, or only a templated `{tenant}` URL that needs values a card cannot give) is refused by name.
 */

/** The Server Card as a document a connection starts from: its type, bounds and schema. */
const CARD: DocumentKind = {
  what: 'Server Card',
  mediaTypes: [SERVER_CARD_TYPE],
  maxBytes: 256 * 1024,
  timeoutMs: 15_000,
  schema: { ...SERVER_CARD_SCHEMA, $ref: '#/$defs/ServerCard' },
  schemaName: 'the Server Card schema',
};

/** Whether `target` names a Server Card rather than an endpoint. */
export function isCardTarget(target: string): boolean {
  return /^https?:\/\/[^\s]+\/server-card(?:\?[^\s]*)?$/.test(target);
}

/**
 * The Streamable HTTP endpoint the Server Card at `url` lists. Refused (`unavailable`) when the card cannot be
 * read, is not JSON or lists no such remote; `invalid_params` when it is not a valid card.
 */
export async function endpointOfCard(url: string, signal?: AbortSignal): Promise<string> {
  const card = await readDiscoveryDocument(url, CARD, signal);
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
