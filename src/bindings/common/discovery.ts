import { toBase64Url } from '../../core/base64.js';
import {
  AI_CATALOG_PATH,
  AI_CATALOG_TYPE,
  type AiCatalogEntry,
  aiCatalog,
  catalogIdentifier,
} from '../../core/discovery/ai-catalog.js';
import {
  type CardRemote,
  SERVER_CARD_TYPE,
  type ServerCardOptions,
  serverCard,
} from '../../core/discovery/server-card.js';
import type { NeutralHandler, NeutralRequest, NeutralResponse } from '../../core/http.js';
import type { ToolServer } from '../../core/server.js';
import { sha256 } from '../../core/sha256.js';

/**
 * The discovery routes of one assembly (docs/discovery.md): the server's Server Card at `<mcp path>/server-card`
 * and the origin's AI Catalog at `/.well-known/ai-catalog.json`, both public (no auth: a client reads them before
 * it connects), to any origin (CORS `*`), cached (`Cache-Control`, a strong `ETag`, `304` on `If-None-Match`).
 */

/** Where a request was made, as the documents name it. */
export interface RequestOrigin {
  /** Scheme, host and port, plus the path prefix of a configured `baseUrl`; no trailing slash. */
  origin: string;
  /** The host name alone (no port). */
  host: string;
}

/** A catalog request as its sources see it: where it was made, and the MCP endpoints served there. */
export interface CatalogRequest extends RequestOrigin {
  /** The endpoints of the assembly answering it (for inline cards of what is reached through them). */
  remotes: CardRemote[];
}

/** Something that contributes entries to an origin's AI Catalog: an assembled handler, a gateway. */
export interface CatalogSource {
  /** The entries it lists for a request made at `at`. */
  catalogEntries(at: CatalogRequest): AiCatalogEntry[];
}

/** The endpoints of the assembly the card lists. */
export interface DiscoveryEndpoints {
  /** The Streamable HTTP path (the card hangs below it); undefined when MCP is off, and so is the card. */
  mcpPath: string | undefined;
  /** Revisions Streamable HTTP serves. */
  mcpRevisions: readonly string[];
  /** The legacy HTTP+SSE stream path, when that transport is on. */
  ssePath: string | undefined;
  /** Revisions the legacy transport serves. */
  sseRevisions: readonly string[];
}

/** The discovery handler and the catalog source of its own card. */
export interface DiscoveryHandler extends CatalogSource {
  readonly handler: NeutralHandler;
}

/** Origins remembered with their rendered documents, at most this many (a Host header is the caller's). */
const MAX_CACHED = 32;
const CARD_SUFFIX = '/server-card';
const CORS: Readonly<Record<string, string>> = {
  'access-control-allow-origin': '*',
  'access-control-allow-methods': 'GET, HEAD, OPTIONS',
  'access-control-allow-headers': 'Content-Type, If-None-Match',
  'access-control-expose-headers': 'ETag',
};

/**
 * The card and catalog routes of `server` with `endpoints`; `sources` add their entries to the catalog (the
 * assemblies composed behind this one, a gateway's upstreams). `catalog: false` leaves the well-known path to
 * the handlers behind.
 */
export function createDiscoveryHandler(
  server: ToolServer,
  endpoints: DiscoveryEndpoints,
  sources: readonly CatalogSource[],
  catalog: boolean,
): DiscoveryHandler {
  const options: ServerCardOptions | undefined =
    server.discovery.card === false || endpoints.mcpPath === undefined
      ? undefined
      : (server.discovery.card ?? {});
  const cardPath =
    endpoints.mcpPath === undefined ? undefined : `${endpoints.mcpPath.replace(/\/$/, '')}${CARD_SUFFIX}`;
  const maxAge = `public, max-age=${Math.max(0, Math.floor(options?.maxAgeSeconds ?? 3600))}`;
  const cards = new Rendered();
  const catalogs = new Rendered();

  const cardOf = (at: RequestOrigin) =>
    serverCard(
      { name: server.name, version: server.version, ...server.discovery },
      options ?? {},
      at.host,
      ownRemotes(server, endpoints, at.origin),
    );
  const own = (at: RequestOrigin): AiCatalogEntry[] =>
    options && cardPath
      ? [
          {
            identifier: catalogIdentifier(cardOf(at).name),
            type: SERVER_CARD_TYPE,
            url: `${at.origin}${cardPath}`,
          },
        ]
      : [];
  const entries = (at: RequestOrigin): AiCatalogEntry[] => {
    const request = { ...at, remotes: ownRemotes(server, endpoints, at.origin) };
    return [...own(at), ...sources.flatMap((s) => s.catalogEntries(request))];
  };
  const handler: NeutralHandler = (request) => {
    if (options && request.path === cardPath) {
      const at = originOf(request, options.baseUrl);
      return Promise.resolve(
        reply(
          request,
          SERVER_CARD_TYPE,
          maxAge,
          cards.get(at.origin, () => cardOf(at)),
        ),
      );
    }
    if (catalog && request.path === AI_CATALOG_PATH) {
      const at = originOf(request, options?.baseUrl);
      const document = () => aiCatalog(entries(at));
      // Sources may change (a gateway's upstreams): the catalog is rendered per request, its ETag still spares the body.
      return Promise.resolve(reply(request, AI_CATALOG_TYPE, maxAge, catalogs.fresh(document)));
    }
    return undefined;
  };
  return { handler, catalogEntries: entries };
}

/** The server's own endpoints at `origin`, each with its revisions and the header auth asks for. */
function ownRemotes(server: ToolServer, endpoints: DiscoveryEndpoints, origin: string): CardRemote[] {
  const headers = server.authenticate
    ? {
        headers: [
          {
            name: 'Authorization',
            description: 'Bearer access token',
            isRequired: true,
            isSecret: true,
          },
        ],
      }
    : {};
  const remotes: CardRemote[] = [];
  if (endpoints.mcpPath !== undefined)
    remotes.push({
      type: 'streamable-http',
      url: `${origin}${endpoints.mcpPath}`,
      supportedProtocolVersions: [...endpoints.mcpRevisions],
      ...headers,
    });
  if (endpoints.ssePath !== undefined)
    remotes.push({
      type: 'sse',
      url: `${origin}${endpoints.ssePath}`,
      supportedProtocolVersions: [...endpoints.sseRevisions],
      ...headers,
    });
  return remotes;
}

const HOST = /^([a-zA-Z0-9-]+(?:\.[a-zA-Z0-9-]+)*|\[[0-9a-fA-F:.]+\])(?::(\d{1,5}))?$/;

/**
 * The origin a request was made at: the configured `baseUrl`, else its `Host` (a malformed one read as
 * `localhost`) and `X-Forwarded-Proto` (`http` unless it says `https`).
 */
export function originOf(request: NeutralRequest, baseUrl: string | undefined): RequestOrigin {
  if (baseUrl) {
    const url = new URL(baseUrl);
    return { origin: `${url.origin}${url.pathname.replace(/\/+$/, '')}`, host: url.hostname };
  }
  const header = request.headers.host ?? '';
  const match = header.length <= 260 ? HOST.exec(header) : null;
  const forwarded = request.headers['x-forwarded-proto']?.split(',')[0]?.trim().toLowerCase();
  const scheme = forwarded === 'https' ? 'https' : 'http';
  if (!match) return { origin: `${scheme}://localhost`, host: 'localhost' };
  return { origin: `${scheme}://${header.toLowerCase()}`, host: match[1]!.toLowerCase() };
}

/** A rendered document: its body and strong entity tag. */
interface Document {
  body: string;
  etag: string;
}

/** Documents rendered once per origin, at most `MAX_CACHED` origins (forgotten all at once past it). */
class Rendered {
  private readonly byOrigin = new Map<string, Document>();

  get(origin: string, make: () => unknown): Document {
    let doc = this.byOrigin.get(origin);
    if (!doc) {
      if (this.byOrigin.size >= MAX_CACHED) this.byOrigin.clear();
      doc = this.fresh(make);
      this.byOrigin.set(origin, doc);
    }
    return doc;
  }

  fresh(make: () => unknown): Document {
    const body = JSON.stringify(make());
    return { body, etag: `"${toBase64Url(sha256(body))}"` };
  }
}

/** GET/HEAD with CORS and validators; OPTIONS a preflight; anything else 405. */
function reply(request: NeutralRequest, type: string, cacheControl: string, doc: Document): NeutralResponse {
  if (request.method === 'OPTIONS')
    return { status: 204, headers: { ...CORS, 'access-control-max-age': '86400' } };
  if (request.method !== 'GET' && request.method !== 'HEAD')
    return { status: 405, headers: { ...CORS, allow: 'GET, HEAD, OPTIONS' } };
  const headers = { ...CORS, 'cache-control': cacheControl, etag: doc.etag };
  if (matches(request.headers['if-none-match'], doc.etag)) return { status: 304, headers };
  return {
    status: 200,
    headers: { ...headers, 'content-type': type },
    ...(request.method === 'HEAD' ? {} : { body: doc.body }),
  };
}

/** Whether an `If-None-Match` value names `etag` (weak comparison, RFC 9110 13.1.2) or is `*`. */
function matches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch || ifNoneMatch.length > 4096) return false;
  return ifNoneMatch
    .split(',')
    .map((tag) => tag.trim().replace(/^W\//, ''))
    .some((tag) => tag === '*' || tag === etag);
}
