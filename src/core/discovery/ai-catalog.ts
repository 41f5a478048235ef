import type { SERVER_CARD_TYPE, ServerCard } from './server-card.js';

/**
 * The AI Catalog (Agent-Card/ai-catalog; MCP's docs/discovery.md): a site-wide document at
 * `/.well-known/ai-catalog.json` listing the AI artifacts of an origin, here the Server Card of each MCP endpoint
 * served. Its rules: `specVersion` "Major.Minor", `entries`, each entry an `identifier`, a `type` and exactly one
 * of `url` (where the card is) or `data` (the card inline).
 */

/** The catalog's media type. */
export const AI_CATALOG_TYPE = 'application/ai-catalog+json';
/** The well-known path clients probe for domain-level discovery. */
export const AI_CATALOG_PATH = '/.well-known/ai-catalog.json';
/** The catalog specification version written. */
export const AI_CATALOG_VERSION = '1.0';

/** One entry: a card by reference or inline. */
export type AiCatalogEntry =
  | { identifier: string; type: typeof SERVER_CARD_TYPE; url: string }
  | { identifier: string; type: typeof SERVER_CARD_TYPE; data: ServerCard };

/** The catalog document. */
export interface AiCatalog {
  specVersion: string;
  entries: AiCatalogEntry[];
}

/**
 * The catalog identifier of a card, in the domain-anchored form `urn:air:{publisher}:mcp:{name}`: the publisher is
 * the card name's namespace read back as a domain (`com.example/weather` gives `example.com`), the name its
 * local part.
 */
export function catalogIdentifier(cardName: string): string {
  const slash = cardName.indexOf('/');
  const namespace = cardName.slice(0, slash);
  const publisher = /^[\d.]+$/.test(namespace) ? namespace : namespace.split('.').reverse().join('.');
  return `urn:air:${publisher}:mcp:${cardName.slice(slash + 1)}`;
}

/** The catalog of `entries`, each identifier once (the first kept). */
export function aiCatalog(entries: readonly AiCatalogEntry[]): AiCatalog {
  const seen = new Set<string>();
  const unique = entries.filter((e) => !seen.has(e.identifier) && seen.add(e.identifier));
  return { specVersion: AI_CATALOG_VERSION, entries: unique };
}
