import type { CatalogSource } from '../bindings/common/discovery.js';
import { catalogIdentifier } from '../core/discovery/ai-catalog.js';
import { cardName, SERVER_CARD_TYPE, serverCard } from '../core/discovery/server-card.js';
import type { ToolServer } from '../core/server.js';
import type { Gateway } from './gateway.js';

/**
 * The AI Catalog entries of a gateway (docs/discovery.md): one inline Server Card per server it exposes, named
 * after its entry (`<namespace>/<entry>`), whose remotes are the gateway's own endpoints, since that is where a
 * client reaches its tools. An upstream's own address is never listed (it is often private, and the
 * specification forbids publishing internal endpoints), nor its tools (a card names no primitives). Pass it to
 * `serve(server, { aiCatalog: { sources: [gatewayCatalog(gateway, server)] } })`, as `mcplite proxy` does.
 */
export function gatewayCatalog(gateway: Gateway, server: ToolServer): CatalogSource {
  return {
    catalogEntries(at) {
      return Object.keys(gateway.statuses()).map((entry) => {
        const data = serverCard(
          {
            name: entry,
            version: server.version,
            description: `The ${entry} server, through the ${server.name} gateway`,
          },
          { name: cardName(entry, at.host) },
          at.host,
          at.remotes,
        );
        return { identifier: catalogIdentifier(data.name), type: SERVER_CARD_TYPE, data };
      });
    },
  };
}
