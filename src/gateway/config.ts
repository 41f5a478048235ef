import type { EnterpriseIdp, OAuthSecretSource } from '../client/oauth.js';
import { McpLiteError } from '../core/errors.js';
import type { ToolTransforms } from './transforms.js';

/** The bounds an entry may set on its upstream (each defaults to the proxy's). */
export interface EntryBounds {
  /** Milliseconds one call may run upstream. */
  timeout?: number;
  /** Calls running upstream at once. */
  maxInFlight?: number;
  /** Calls one caller runs upstream at once (default: a quarter of `maxInFlight`). */
  maxInFlightPerCaller?: number;
  /** Tools taken from its listing. */
  maxTools?: number;
  /** Bytes of one upstream response. */
  maxResponseBytes?: number;
}

/** What every entry may carry besides how to reach it. */
interface EntryCommon extends EntryBounds {
  /** The server's name: its namespace (`name_tool`). */
  name: string;
  /** Include, exclude, rename, describe (upstream names). */
  tools: ToolTransforms;
}

/** An MCP server the gateway runs over stdio. */
export interface StdioEntry extends EntryCommon {
  kind: 'stdio';
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd?: string;
}

/**
 * How the gateway signs in to an OAuth-protected upstream (`"oauth": true` or an object): with the tokens
 * `mcplite login <url>` stored (refreshed when they expire), or as a machine client with the client credentials
 * grant when a secret is given. Never shown in the log nor `/readyz`.
 */
export interface EntryOAuth {
  /** A pre-registered client id (default: the one `mcplite login` registered). */
  clientId?: string;
  /** The scope asked for when the server names none. */
  scope?: string;
  /** The client's secret, read from the variable `clientSecretEnv` names. */
  clientSecret?: string;
  /**
   * `"issuer"`: the authorization server (issuer URL, or a list) to sign in with. Required with
   * `clientSecretEnv`: the secret is sent to no other, whichever one the upstream's metadata names.
   */
  issuer?: string[];
  /**
   * `client_credentials` (the default with a secret: no user, no browser), `authorization_code`, `jwt-bearer`
   * (workload identity: the assertion from the variable `assertionEnv` names) or `enterprise` (the ID token from
   * the variable `idp.idTokenEnv` names, exchanged at `idp` for an ID-JAG).
   */
  grant?: 'authorization_code' | 'client_credentials' | 'jwt-bearer' | 'enterprise';
  /** `jwt-bearer`: the workload's JWT, read from the environment at each grant. */
  assertion?: OAuthSecretSource;
  /** `enterprise`: the identity provider, its ID token read from the environment at each grant. */
  idp?: EnterpriseIdp;
  /** `"dpop"`: DPoP-bound tokens always (true) or never (false); default where the upstream and its authorization server take them. */
  dpop?: boolean;
}

/** A remote MCP server (Streamable HTTP, or any target the client detects at that URL). */
export interface RemoteEntry extends EntryCommon {
  kind: 'remote';
  url: string;
  headers: Record<string, string>;
  /** OAuth for it, when the config says `"oauth"`. */
  oauth?: EntryOAuth;
}

/**
 * A server found by its Server Card (docs/discovery.md): the card at `card` is read when the gateway opens the
 * entry, and the gateway connects to the Streamable HTTP remote it lists; `headers` and `oauth` are for that remote.
 */
export interface CardEntry extends EntryCommon {
  kind: 'card';
  /** The card's http(s) URL. */
  card: string;
  headers: Record<string, string>;
  /** OAuth for the remote, when the config says `"oauth"`. */
  oauth?: EntryOAuth;
}

/**
 * A server found by its MCP registry entry (`server.json`, docs/discovery.md): read when the gateway opens the
 * entry; its Streamable HTTP remote is connected to with `headers` and `oauth`, or, only with
 * `allowPackageLaunch`, one of its packages is run over stdio with `env` (and the variables it declares, taken
 * from the gateway's environment).
 */
export interface RegistryEntry extends EntryCommon {
  kind: 'registry';
  /** An http(s) URL, or a path (relative to the config file). */
  registry: string;
  /** Run a package of the entry when it lists no usable remote. Default false. */
  allowPackageLaunch: boolean;
  /** Values for what the entry leaves open (`{variables}`, headers, arguments, environment variables). */
  inputs: Record<string, string>;
  /** A launched package's environment. */
  env: Record<string, string>;
  /** A launched package's working directory (relative to the config file). */
  cwd?: string;
  headers: Record<string, string>;
  /** OAuth for the remote, when the config says `"oauth"`. */
  oauth?: EntryOAuth;
}

/** Any target the mcplite client speaks: `grpc://…`, an MCP-lite or Webtools URL, an MCP URL. */
export interface TargetEntry extends EntryCommon {
  kind: 'target';
  target: string;
  headers: Record<string, string>;
  /** OAuth for it, when the config says `"oauth"`. */
  oauth?: EntryOAuth;
}

/** An HTTP API described by an OpenAPI 3.x document. */
export interface OpenApiEntry extends EntryCommon {
  kind: 'openapi';
  /** A path (relative to the config file) or an http(s) URL. */
  openapi: string;
  baseUrl?: string;
  headers: Record<string, string>;
  /** Operations by tag, or by path prefix (entries starting with `/`). */
  include?: string[];
  exclude?: string[];
}

/** One server of the gateway's config. */
export type GatewayEntry = StdioEntry | RemoteEntry | CardEntry | RegistryEntry | TargetEntry | OpenApiEntry;

/**
 * Reads a gateway config: the `{"mcpServers": {"<name>": {...}}}` file MCP clients already use (Claude Desktop,
 * Cursor, VS Code), with four entry kinds of mcplite's own (`card`, `registry`, `target`, `openapi`). `${VAR}` in `url`, `card`, `registry`, `target`,
 * `args`, `env`, `headers` and `baseUrl` is the environment's value (a missing variable is refused, by name);
 * `bearerTokenEnv` and `apiKeyEnv` (+ `apiKeyHeader`, default `X-API-Key`) put a credential from the environment
 * into the headers; `"oauth"` signs in to a protected `url`/`card`/`target` (`EntryOAuth`). `"disabled": true` skips an entry. Errors name the entry and the field (never a value).
 */
export function parseGatewayConfig(text: string, env: NodeJS.ProcessEnv = process.env): GatewayEntry[] {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw invalid(`not JSON (${(err as Error).message})`);
  }
  if (!isObject(raw) || !isObject(raw.mcpServers))
    throw invalid('expected {"mcpServers": {"<name>": {...}}}');
  const entries: GatewayEntry[] = [];
  for (const [name, value] of Object.entries(raw.mcpServers)) {
    if (!isObject(value)) throw invalid(`server "${name}" must be an object`);
    if (value.disabled === true) continue;
    entries.push(entryOf(name, value, env));
  }
  if (entries.length === 0) throw invalid('no servers in "mcpServers"');
  refuseOverlappingNames(entries.map((e) => e.name));
  return entries;
}

/**
 * Server names whose namespaces could serve the same name: `a`'s tool `_x` and `a_`'s tool `x` are both `a__x`,
 * and whichever listed first would win. No name may start with another's followed by `_`, so none can collide.
 */
function refuseOverlappingNames(names: readonly string[]): void {
  for (const short of names)
    for (const long of names)
      if (long !== short && long.startsWith(`${short}_`))
        throw invalid(
          `servers "${short}" and "${long}" can serve the same name (${short}'s tool "${long.slice(short.length + 1)}_x" and ${long}'s tool "x" are both "${long}_x"): rename one, so that no server's name starts with another's followed by "_"`,
        );
}

function entryOf(name: string, v: Record<string, unknown>, env: NodeJS.ProcessEnv): GatewayEntry {
  if (!/^[A-Za-z0-9_.-]{1,64}$/.test(name))
    throw invalid(`server name "${name}": use 1 to 64 of [A-Za-z0-9_.-] (it prefixes its tools)`);
  const at = (field: string) => `server "${name}", "${field}"`;
  const expand = (where: string, value: string) =>
    value.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_, variable: string) => {
      const found = env[variable];
      if (found === undefined) throw invalid(`${where}: the environment has no ${variable}`);
      return found;
    });
  const kinds = ['command', 'url', 'card', 'registry', 'target', 'openapi'].filter((k) => v[k] !== undefined);
  if (kinds.length !== 1)
    throw invalid(
      `server "${name}" needs exactly one of "command", "url", "card", "registry", "target", "openapi"`,
    );
  const common: EntryCommon = {
    name,
    tools: transformsOf(v.tools, at('tools')),
    ...bounds(v, at),
  };
  const headers = (): Record<string, string> => {
    const out = stringMap(v.headers, at('headers'), expand);
    if (v.bearerTokenEnv !== undefined) {
      const variable = str(v.bearerTokenEnv, at('bearerTokenEnv'));
      const token = env[variable];
      if (token === undefined) throw invalid(`${at('bearerTokenEnv')}: the environment has no ${variable}`);
      out.Authorization = `Bearer ${token}`;
    }
    if (v.apiKeyEnv !== undefined) {
      const variable = str(v.apiKeyEnv, at('apiKeyEnv'));
      const key = env[variable];
      if (key === undefined) throw invalid(`${at('apiKeyEnv')}: the environment has no ${variable}`);
      out[v.apiKeyHeader === undefined ? 'X-API-Key' : str(v.apiKeyHeader, at('apiKeyHeader'))] = key;
    }
    return out;
  };
  switch (kinds[0]) {
    case 'command': {
      const args = v.args === undefined ? [] : v.args;
      if (!Array.isArray(args) || !args.every((a) => typeof a === 'string'))
        throw invalid(`${at('args')} must be an array of strings`);
      return {
        ...common,
        kind: 'stdio',
        command: str(v.command, at('command')),
        args: args.map((a) => expand(at('args'), a)),
        env: stringMap(v.env, at('env'), expand),
        ...(v.cwd !== undefined ? { cwd: str(v.cwd, at('cwd')) } : {}),
      };
    }
    case 'url':
      return {
        ...common,
        kind: 'remote',
        url: httpUrl(expand(at('url'), str(v.url, at('url'))), at('url')),
        headers: headers(),
        ...oauthOf(v.oauth, at('oauth'), env),
      };
    case 'card':
      return {
        ...common,
        kind: 'card',
        card: httpUrl(expand(at('card'), str(v.card, at('card'))), at('card')),
        headers: headers(),
        ...oauthOf(v.oauth, at('oauth'), env),
      };
    case 'registry': {
      if (v.allowPackageLaunch !== undefined && typeof v.allowPackageLaunch !== 'boolean')
        throw invalid(`${at('allowPackageLaunch')} must be true or false`);
      return {
        ...common,
        kind: 'registry',
        registry: expand(at('registry'), str(v.registry, at('registry'))),
        allowPackageLaunch: v.allowPackageLaunch === true,
        inputs: stringMap(v.inputs, at('inputs'), expand),
        env: stringMap(v.env, at('env'), expand),
        ...(v.cwd !== undefined ? { cwd: str(v.cwd, at('cwd')) } : {}),
        headers: headers(),
        ...oauthOf(v.oauth, at('oauth'), env),
      };
    }
    case 'target':
      return {
        ...common,
        kind: 'target',
        target: expand(at('target'), str(v.target, at('target'))),
        headers: headers(),
        ...oauthOf(v.oauth, at('oauth'), env),
      };
    default:
      return {
        ...common,
        kind: 'openapi',
        openapi: str(v.openapi, at('openapi')),
        ...(v.baseUrl !== undefined
          ? { baseUrl: httpUrl(expand(at('baseUrl'), str(v.baseUrl, at('baseUrl'))), at('baseUrl')) }
          : {}),
        headers: headers(),
        ...(v.include !== undefined ? { include: strings(v.include, at('include')) } : {}),
        ...(v.exclude !== undefined ? { exclude: strings(v.exclude, at('exclude')) } : {}),
      };
  }
}

/** The grants `"oauth": { "grant" }` takes. */
const GRANTS: ReadonlySet<unknown> = new Set([
  'authorization_code',
  'client_credentials',
  'jwt-bearer',
  'enterprise',
]);

/**
 * `"oauth"`: `true`, or `{ clientId, scope, clientSecretEnv, issuer, grant, assertionEnv, idp, dpop }` (the secret
 * read from the environment, sent only to `issuer`; the assertion and the ID token read from it at each grant).
 */
function oauthOf(value: unknown, where: string, env: NodeJS.ProcessEnv): { oauth?: EntryOAuth } {
  if (value === undefined || value === false) return {};
  if (value === true) return { oauth: {} };
  if (!isObject(value)) throw invalid(`${where} must be true or an object`);
  const known = new Set([
    'clientId',
    'scope',
    'clientSecretEnv',
    'issuer',
    'grant',
    'assertionEnv',
    'idp',
    'dpop',
  ]);
  const unknown = Object.keys(value).filter((k) => !known.has(k));
  if (unknown.length > 0) throw invalid(`${where}: unknown field "${unknown[0]}"`);
  const oauth: EntryOAuth = {};
  if (value.clientId !== undefined) oauth.clientId = str(value.clientId, `${where}.clientId`);
  if (value.scope !== undefined) oauth.scope = str(value.scope, `${where}.scope`);
  if (value.clientSecretEnv !== undefined) {
    const variable = str(value.clientSecretEnv, `${where}.clientSecretEnv`);
    const secret = env[variable];
    if (secret === undefined) throw invalid(`${where}.clientSecretEnv: the environment has no ${variable}`);
    oauth.clientSecret = secret;
  }
  if (value.issuer !== undefined) {
    const issuers = typeof value.issuer === 'string' ? [value.issuer] : value.issuer;
    if (
      !Array.isArray(issuers) ||
      issuers.length === 0 ||
      !issuers.every((i) => typeof i === 'string' && /^https?:\/\/[^/]/i.test(i))
    )
      throw invalid(`${where}.issuer must be an http(s) URL or a list of them`);
    oauth.issuer = issuers as string[];
  }
  if (value.dpop !== undefined) {
    if (typeof value.dpop !== 'boolean') throw invalid(`${where}.dpop must be true or false`);
    oauth.dpop = value.dpop;
  }
  if (value.grant !== undefined) {
    if (!GRANTS.has(value.grant))
      throw invalid(`${where}.grant must be one of ${[...GRANTS].map((g) => `"${g}"`).join(', ')}`);
    oauth.grant = value.grant as NonNullable<EntryOAuth['grant']>;
  } else if (oauth.clientSecret !== undefined) oauth.grant = 'client_credentials';
  Object.assign(oauth, assertionGrantOf(value, oauth, where, env));
  if (oauth.grant === 'client_credentials' && (!oauth.clientId || oauth.clientSecret === undefined))
    throw invalid(`${where}: the client credentials grant needs "clientId" and "clientSecretEnv"`);
  if (oauth.clientSecret !== undefined && !oauth.issuer)
    throw invalid(
      `${where}: "clientSecretEnv" needs "issuer": the secret is sent only to the authorization server named with it`,
    );
  return { oauth };
}

/** `assertionEnv` (jwt-bearer) and `idp` (enterprise): only with their grant, each credential from the environment. */
function assertionGrantOf(
  value: Record<string, unknown>,
  oauth: EntryOAuth,
  where: string,
  env: NodeJS.ProcessEnv,
): Pick<EntryOAuth, 'assertion' | 'idp'> {
  const { grant } = oauth;
  if (value.assertionEnv !== undefined && grant !== 'jwt-bearer')
    throw invalid(`${where}.assertionEnv goes with "grant": "jwt-bearer"`);
  if (value.idp !== undefined && grant !== 'enterprise')
    throw invalid(`${where}.idp goes with "grant": "enterprise"`);
  if (grant !== 'jwt-bearer' && grant !== 'enterprise') return {};
  if (!oauth.clientId) throw invalid(`${where}: the ${grant} grant needs "clientId"`);
  if (grant === 'jwt-bearer') return { assertion: fromEnv(value.assertionEnv, `${where}.assertionEnv`, env) };
  const idp = value.idp;
  if (!isObject(idp)) throw invalid(`${where}: the enterprise grant needs "idp"`);
  const known = new Set(['issuer', 'tokenEndpoint', 'clientId', 'idTokenEnv']);
  const unknown = Object.keys(idp).filter((k) => !known.has(k));
  if (unknown.length > 0) throw invalid(`${where}.idp: unknown field "${unknown[0]}"`);
  return {
    idp: {
      issuer: httpUrl(str(idp.issuer, `${where}.idp.issuer`), `${where}.idp.issuer`),
      tokenEndpoint: httpUrl(
        str(idp.tokenEndpoint, `${where}.idp.tokenEndpoint`),
        `${where}.idp.tokenEndpoint`,
      ),
      clientId: str(idp.clientId, `${where}.idp.clientId`),
      idToken: fromEnv(idp.idTokenEnv, `${where}.idp.idTokenEnv`, env),
    },
  };
}

/** A credential named by an environment variable: present now, and read again at each grant (it may rotate). */
function fromEnv(name: unknown, where: string, env: NodeJS.ProcessEnv): () => string {
  const variable = str(name, where);
  if (!env[variable]) throw invalid(`${where}: the environment has no ${variable}`);
  return () => env[variable] ?? '';
}

function transformsOf(value: unknown, where: string): ToolTransforms {
  if (value === undefined) return {};
  if (!isObject(value)) throw invalid(`${where} must be an object`);
  const known = new Set(['include', 'exclude', 'rename', 'describe']);
  const unknown = Object.keys(value).filter((k) => !known.has(k));
  if (unknown.length > 0) throw invalid(`${where}: unknown field "${unknown[0]}"`);
  return {
    ...(value.include !== undefined ? { include: strings(value.include, `${where}.include`) } : {}),
    ...(value.exclude !== undefined ? { exclude: strings(value.exclude, `${where}.exclude`) } : {}),
    ...(value.rename !== undefined ? { rename: stringMap(value.rename, `${where}.rename`) } : {}),
    ...(value.describe !== undefined ? { describe: stringMap(value.describe, `${where}.describe`) } : {}),
  };
}

/** Every bound an entry may set (`EntryBounds`' keys), for reading and copying them alike. */
export const ENTRY_BOUND_KEYS = [
  'timeout',
  'maxInFlight',
  'maxInFlightPerCaller',
  'maxTools',
  'maxResponseBytes',
] as const satisfies readonly (keyof EntryBounds)[];

function bounds(v: Record<string, unknown>, at: (field: string) => string): EntryBounds {
  const out: EntryBounds = {};
  for (const key of ENTRY_BOUND_KEYS) {
    const value = v[key];
    if (value === undefined) continue;
    if (typeof value !== 'number' || !Number.isInteger(value) || value < 1)
      throw invalid(`${at(key)} must be a positive integer`);
    out[key] = value;
  }
  return out;
}

function httpUrl(value: string, where: string): string {
  try {
    const url = new URL(value);
    if (url.protocol === 'http:' || url.protocol === 'https:') return value;
  } catch {
    // Refused below.
  }
  throw invalid(`${where} must be an http(s) URL`);
}

function str(value: unknown, where: string): string {
  if (typeof value !== 'string' || value.length === 0) throw invalid(`${where} must be a non-empty string`);
  return value;
}

function strings(value: unknown, where: string): string[] {
  if (!Array.isArray(value) || !value.every((s) => typeof s === 'string'))
    throw invalid(`${where} must be an array of strings`);
  return value as string[];
}

function stringMap(
  value: unknown,
  where: string,
  expand?: (field: string, value: string) => string,
): Record<string, string> {
  if (value === undefined) return {};
  if (!isObject(value)) throw invalid(`${where} must be an object of strings`);
  const out: Record<string, string> = {};
  for (const [k, s] of Object.entries(value)) {
    if (typeof s !== 'string') throw invalid(`${where}: "${k}" must be a string`);
    out[k] = expand ? expand(where, s) : s;
  }
  return out;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function invalid(message: string): McpLiteError {
  return new McpLiteError('config_invalid', `Invalid gateway config: ${message}`);
}
