/**
 * MCP Server Cards (SEP-2127, modelcontextprotocol/experimental-ext-server-card; docs/discovery.md): a static,
 * public document describing one server before a client connects: identity, description, links and the remote
 * endpoints with the protocol revisions each speaks. A card never enumerates tools, resources or prompts (the
 * specification leaves them to the runtime listings), so nothing a visibility rule hides from a caller can leak
 * through it. Protocol-neutral: the HTTP route that serves a card is `bindings/common/discovery.ts`.
 */

/** The card's media type. */
export const SERVER_CARD_TYPE = 'application/mcp-server-card+json';
/** The only `$schema` a v1 card may name. */
export const SERVER_CARD_SCHEMA = 'https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json';

/** An icon a client may show for the server (MCP's `Icon`). */
export interface CardIcon {
  /** An http(s) URL or a `data:` URI. */
  src: string;
  /** The MIME type, when the source's is missing or generic. */
  mimeType?: string;
  /** Sizes as `WxH` or `any`. */
  sizes?: string[];
  /** The background the icon is made for. */
  theme?: 'light' | 'dark';
}

/** Where the server's source lives. */
export interface CardRepository {
  /** Browsable, cloneable URL. */
  url: string;
  /** The forge, e.g. `github`. */
  source: string;
  /** The forge's stable id of the repository. */
  id?: string;
  /** The server's folder inside a monorepo. */
  subfolder?: string;
}

/** One endpoint of the card's `remotes` (the card schema's `Remote`; headers and variables passed through). */
export interface CardRemote {
  type: 'streamable-http' | 'sse';
  /** Absolute http(s) URL, or a URL template starting with `{variable}`. */
  url: string;
  /** Revisions this endpoint serves. */
  supportedProtocolVersions?: string[];
  /** Headers the endpoint needs or accepts (the schema's `KeyValueInput`). */
  headers?: Record<string, unknown>[];
  /** Variables of a templated `url` (the schema's `Input` by name). */
  variables?: Record<string, Record<string, unknown>>;
}

/**
 * The `card` option of a server (`createServer({ card })`): what its Server Card says beyond the server's own
 * `name`, `version`, `title` and `description`. Every field is optional; `card: false` serves no card.
 */
export interface ServerCardOptions {
  /**
   * The card's name, reverse-DNS `namespace/name` (e.g. `com.example/weather`). Default: the server's `name` when
   * it already has that form, else the host the card was asked on, reversed (`api.example.com` gives
   * `com.example.api`), then `/` and the server's name.
   */
  name?: string;
  /** A human-readable title (at most 100 characters). Default: the server's `title`. */
  title?: string;
  /** What the server does, at most 100 characters. Default: the server's `description`, else a generic line. */
  description?: string;
  /** The server's home page. */
  websiteUrl?: string;
  /** Where its source lives. */
  repository?: CardRepository;
  /** Icons a client may show. */
  icons?: CardIcon[];
  /**
   * The public origin clients reach the server at (e.g. `https://api.example.com`), for the card's `remotes`
   * and the catalog's links. Default: the request's `Host` and `X-Forwarded-Proto` (else `http`); set it in
   * production behind a proxy, as the specification wants cards served over https.
   */
  baseUrl?: string;
  /** Remotes to list instead of the server's own endpoints (e.g. a templated tenant URL). */
  remotes?: CardRemote[];
  /** `Cache-Control: max-age` of the card and the catalog, in seconds. Default 3600. */
  maxAgeSeconds?: number;
  /** The card's `_meta`, copied as given. */
  _meta?: Record<string, unknown>;
}

/** A Server Card as served. */
export interface ServerCard {
  $schema: typeof SERVER_CARD_SCHEMA;
  name: string;
  version: string;
  description: string;
  title?: string;
  websiteUrl?: string;
  repository?: CardRepository;
  icons?: CardIcon[];
  remotes?: CardRemote[];
  _meta?: Record<string, unknown>;
}

/** The server's identity a card starts from (`ToolServer.name`, `.version`, `.discovery`). */
export interface CardIdentity {
  name: string;
  version: string;
  title?: string | undefined;
  description?: string | undefined;
}

const CARD_NAME = /^[a-zA-Z0-9.-]+\/[a-zA-Z0-9._-]+$/;
const DNS_NAME = /^[a-zA-Z0-9-]+(\.[a-zA-Z0-9-]+)*$/;
const MAX_TEXT = 100;

/**
 * The card of a server: `identity` and `options`, the `remotes` given (the server's own endpoints at `origin`)
 * unless the options list their own. `host` (without port) names the default namespace.
 */
export function serverCard(
  identity: CardIdentity,
  options: ServerCardOptions,
  host: string,
  remotes: CardRemote[],
): ServerCard {
  const title = options.title ?? identity.title;
  const listed = options.remotes ?? remotes;
  return {
    $schema: SERVER_CARD_SCHEMA,
    name: options.name ?? cardName(identity.name, host),
    version: identity.version.slice(0, 255),
    description: clip(options.description ?? identity.description ?? `The ${identity.name} MCP server`),
    ...(title ? { title: clip(title) } : {}),
    ...(options.websiteUrl ? { websiteUrl: options.websiteUrl } : {}),
    ...(options.repository ? { repository: options.repository } : {}),
    ...(options.icons?.length ? { icons: options.icons } : {}),
    ...(listed.length ? { remotes: listed } : {}),
    ...(options._meta ? { _meta: options._meta } : {}),
  };
}

/**
 * A reverse-DNS card name for a server called `serverName`: the name itself when it has the form already, else
 * `host` reversed (an IP address or `localhost` kept as it is), `/`, and the name with what the pattern refuses
 * replaced by `-`.
 */
export function cardName(serverName: string, host: string): string {
  if (CARD_NAME.test(serverName) && serverName.length <= 200) return serverName;
  const namespace = !DNS_NAME.test(host)
    ? 'localhost'
    : /^[\d.]+$/.test(host)
      ? host
      : host.split('.').reverse().join('.');
  const local = serverName.replace(/[^a-zA-Z0-9._-]+/g, '-').slice(0, 100) || 'server';
  return `${namespace}/${local}`.slice(0, 200);
}

/** At most the schema's 100 characters, never empty. */
function clip(text: string): string {
  const trimmed = text.trim();
  if (!trimmed) return 'An MCP server';
  return trimmed.length <= MAX_TEXT ? trimmed : `${trimmed.slice(0, MAX_TEXT - 1)}…`;
}
