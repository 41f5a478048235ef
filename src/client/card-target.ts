import { SERVER_CARD_TYPE } from '../core/discovery/server-card.js';
import { McpLiteError } from '../core/errors.js';
import { documentTooLarge, readBoundedJson } from '../core/read-bounded.js';

/**
 * A Server Card URL as a client's target (docs/discovery.md): `mcplite tools https://host/mcp/server-card` reads the
 * card and connects to the first remote it can reach as it is, Streamable HTTP before legacy SSE. A templated
 * remote (`{tenant}`) needs values a card cannot give, so it is skipped. The card is read bounded and timed.
 */

/** Largest card read. */
const MAX_CARD_BYTES = 256 * 1024;
/** Longest wait for a card. */
const CARD_TIMEOUT_MS = 15_000;

/** Whether `target` names a Server Card rather than an endpoint. */
export function isCardTarget(target: string): boolean {
  return /^https?:\/\/[^\s]+\/server-card(?:\?[^\s]*)?$/.test(target);
}

/** The endpoint a card at `url` lists: its Streamable HTTP remote, else its SSE one. */
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
  const card = (await readBoundedJson(
    res,
    MAX_CARD_BYTES,
    documentTooLarge('Server Card', MAX_CARD_BYTES),
  )) as {
    remotes?: unknown;
  };
  const remotes = Array.isArray(card?.remotes) ? (card.remotes as { type?: unknown; url?: unknown }[]) : [];
  const usable = (type: string) =>
    remotes.find((r) => r?.type === type && typeof r.url === 'string' && /^https?:\/\/[^\s{}]+$/.test(r.url));
  const remote = usable('streamable-http') ?? usable('sse');
  if (!remote)
    throw new McpLiteError('unavailable', `The Server Card at ${url} lists no remote to connect to`);
  return remote.url as string;
}
