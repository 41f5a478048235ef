import { Catalog, type CompiledTool } from './catalog.js';
import { McpLiteError } from './errors.js';
import {
  compileValidator,
  type JsonSchema,
  type SchemaInput,
  toJsonSchema,
  type Validator,
} from './schema.js';
import type { ToolDefinition } from './tool.js';

/** An action of a webtool version: a catalog tool by name, or a definition of its own (an older version's). */
export type WebtoolAction = string | ToolDefinition;

/** One older published version of a webtool; what it leaves out it shares with the latest. */
export interface WebtoolVersionDefinition {
  /** Semantic version, e.g. "1.0.0"; lower than the latest's. */
  version: string;
  /** The description this version was published with. */
  description?: string;
  /**
   * Its actions. A name is the catalog's tool of that name; a definition is this version's own (its schemas
   * and handler), callable only through Webtools by a client pinned to this version.
   */
  actions?: readonly WebtoolAction[];
  /** The schema its config had to match. */
  configSchema?: SchemaInput;
  /** The config it used when the environment gave none. */
  defaultConfig?: Record<string, unknown>;
}

/**
 * A webtool (Webtools spec): a named, versioned group of actions with a config the environment supplies. The
 * fields at the top are the latest version; `versions` keeps the older published ones servable and callable.
 */
export interface WebtoolDefinition {
  /** The name in its URL (`/webtools/<name>/`): letters, digits, `_`, `-`, `.`. */
  name: string;
  /** What the webtool does, for people and models. */
  description?: string;
  /** The latest version (semantic). Default: the server's version. */
  version?: string;
  /** The latest version's actions (see `WebtoolVersionDefinition.actions`). */
  actions: readonly WebtoolAction[];
  /** JSON Schema (or zod) the merged config must match. Default: any object. */
  configSchema?: SchemaInput;
  /** Config values used where the environment gives none; the environment's config is merged over them. */
  defaultConfig?: Record<string, unknown>;
  /** Older published versions. */
  versions?: readonly WebtoolVersionDefinition[];
}

/** One action as a version's metadata lists it and as a call runs it. */
export interface WebtoolActionEntry {
  tool: CompiledTool;
  metadata: {
    name: string;
    /** The tool's category (mcplite's `@type`, as on every binding); the spec's fields follow. */
    '@type'?: string;
    description: string;
    requestSchema: JsonSchema;
    responseSchema: JsonSchema;
  };
}

/** One published version, compiled: its actions, its config validator and its metadata JSON (made once). */
export interface WebtoolVersion {
  version: string;
  actions: ReadonlyMap<string, WebtoolActionEntry>;
  defaultConfig: Readonly<Record<string, unknown>>;
  /** `GET /webtools/<name>/<version>` as JSON text. */
  metadataJson: string;
  /** The environment's config merged over `defaultConfig` and checked; throws `config_invalid`. */
  config(given: unknown): Readonly<Record<string, unknown>>;
}

/** A webtool, compiled. */
export interface Webtool {
  name: string;
  latest: WebtoolVersion;
  /** Every published version by its number. */
  versions: ReadonlyMap<string, WebtoolVersion>;
}

/** Semantic versions (semver.org 2.0, without leading-zero checks). */
export const SEMVER = /^\d{1,9}\.\d{1,9}\.\d{1,9}(?:-[0-9A-Za-z.-]{1,64})?(?:\+[0-9A-Za-z.-]{1,64})?$/;
const NAME = /^[A-Za-z0-9_.-]{1,128}$/;
const ANY_OBJECT: JsonSchema = { type: 'object' };
const EMPTY: Readonly<Record<string, unknown>> = Object.freeze({});

/**
 * The server's webtools. Declared ones are compiled once; without a declaration the whole catalog is one
 * webtool named after the server (rebuilt when the catalog changes), so every server has a Webtools face.
 */
export class WebtoolCatalog {
  private readonly declared: Map<string, Webtool> | undefined;
  private implicit: { catalogVersion: number; webtool: Webtool } | undefined;
  private readonly configs = new Map<string, Readonly<Record<string, unknown>>>();
  private readonly serverConfig: Readonly<Record<string, unknown>> | undefined;

  constructor(
    definitions: readonly WebtoolDefinition[] | undefined,
    private readonly catalog: Catalog,
    private readonly server: { name: string; version: string },
    serverConfig?: Record<string, unknown>,
  ) {
    this.serverConfig = serverConfig ? Object.freeze({ ...serverConfig }) : undefined;
    if (!definitions) return;
    this.declared = new Map();
    for (const d of definitions) {
      if (this.declared.has(d.name))
        throw new McpLiteError('invalid_request', `Duplicate webtool "${d.name}"`);
      const webtool = this.compile(d);
      this.declared.set(d.name, webtool);
      // Other bindings see the config of the first webtool (latest version) that lists a tool.
      for (const name of webtool.latest.actions.keys()) {
        if (!this.configs.has(name)) this.configs.set(name, webtool.latest.defaultConfig);
      }
    }
  }

  /** The webtool called `name`, if any. */
  get(name: string): Webtool | undefined {
    if (this.declared) return this.declared.get(name);
    const implicit = this.implicitWebtool();
    return implicit.name === name ? implicit : undefined;
  }

  /** Every webtool's name. */
  names(): string[] {
    return this.declared ? [...this.declared.keys()] : [this.implicitWebtool().name];
  }

  /**
   * The config a handler sees on bindings that carry none (every binding but Webtools): the server-side config
   * when one was given, else the default config of the webtool that lists the tool, so a tool behaves the same
   * on every wire.
   */
  configFor(toolName: string): Readonly<Record<string, unknown>> {
    return this.serverConfig ?? this.configs.get(toolName) ?? EMPTY;
  }

  private implicitWebtool(): Webtool {
    if (this.implicit?.catalogVersion !== this.catalog.version) {
      const version = SEMVER.test(this.server.version) ? this.server.version : '0.0.0';
      this.implicit = {
        catalogVersion: this.catalog.version,
        webtool: this.compile({
          name: NAME.test(this.server.name) ? this.server.name : 'mcplite',
          description: `Every tool of ${this.server.name}`,
          version,
          // A tool only a view calls (MCP Apps) is no action of a model's.
          actions: this.catalog.names().filter((name) => !this.catalog.get(name)?.ui?.appOnly),
        }),
      };
    }
    return this.implicit.webtool;
  }

  private compile(d: WebtoolDefinition): Webtool {
    if (typeof d.name !== 'string' || !NAME.test(d.name)) {
      throw new McpLiteError('invalid_request', `Invalid webtool name ${JSON.stringify(d.name)}`);
    }
    const latestVersion = d.version ?? this.server.version;
    const all = [
      { ...d, version: latestVersion },
      ...(d.versions ?? []).map((v) => ({
        name: d.name,
        description: v.description ?? d.description,
        version: v.version,
        actions: v.actions ?? d.actions,
        configSchema: v.configSchema ?? d.configSchema,
        defaultConfig: v.defaultConfig ?? d.defaultConfig,
      })),
    ];
    for (const v of all) {
      if (!SEMVER.test(v.version)) {
        throw new McpLiteError(
          'invalid_request',
          `Webtool "${d.name}": "${v.version}" is not a semantic version`,
        );
      }
    }
    const published = all.map((v) => v.version).sort(compareSemver);
    if (published.at(-1) !== latestVersion || new Set(published).size !== published.length) {
      throw new McpLiteError(
        'invalid_request',
        `Webtool "${d.name}": versions must be distinct and lower than the latest (${latestVersion})`,
      );
    }
    const versions = new Map<string, WebtoolVersion>();
    for (const v of all) versions.set(v.version, this.compileVersion(v, published));
    return { name: d.name, latest: versions.get(latestVersion)!, versions };
  }

  private compileVersion(
    d: WebtoolDefinition & { version: string },
    published: readonly string[],
  ): WebtoolVersion {
    const owner = `webtool "${d.name}" ${d.version}`;
    const own = new Catalog(d.actions.filter((a): a is ToolDefinition => typeof a !== 'string'));
    const actions = new Map<string, WebtoolActionEntry>();
    const names = d.actions.map((a) => (typeof a === 'string' ? a : a.name));
    // The system tools (redeem, cancel) belong to every webtool, so that its promises can be redeemed there.
    for (const name of this.catalog.names()) {
      if (this.catalog.get(name)?.system && !names.includes(name)) names.push(name);
    }
    for (const name of names) {
      const tool = own.get(name) ?? this.catalog.get(name);
      if (!tool) throw new McpLiteError('invalid_request', `${owner}: no tool named "${name}"`);
      if (actions.has(name))
        throw new McpLiteError('invalid_request', `${owner}: duplicate action "${name}"`);
      actions.set(name, {
        tool,
        metadata: {
          name,
          ...(tool.wire['@type'] ? { '@type': tool.wire['@type'] } : {}),
          description: tool.wire.description,
          requestSchema: tool.wire.inputSchema,
          responseSchema: tool.wire.outputSchema ?? {},
        },
      });
    }
    const configSchema = d.configSchema ? toJsonSchema(d.configSchema) : ANY_OBJECT;
    const validate: Validator = compileValidator(configSchema, `the config of ${owner}`);
    const defaults = { ...(d.defaultConfig ?? {}) };
    // A default that breaks its own schema is a programming error: refuse it at definition time.
    const defaultConfig = Object.freeze(validate(defaults, 'defaultConfig') as Record<string, unknown>);
    const metadata = {
      name: d.name,
      description: d.description ?? '',
      version: d.version,
      versions: published,
      actions: [...actions.values()].map((a) => a.metadata),
      configSchema,
      defaultConfig,
    };
    return {
      version: d.version,
      actions,
      defaultConfig,
      metadataJson: JSON.stringify(metadata),
      config(given) {
        if (given === undefined || given === null) return defaultConfig;
        if (typeof given !== 'object' || Array.isArray(given)) {
          throw configError('Invalid config: must be an object', [
            { field: 'config', message: 'must be an object' },
          ]);
        }
        const merged = { ...defaultConfig, ...(given as Record<string, unknown>) };
        try {
          return Object.freeze(validate(merged, 'config') as Record<string, unknown>);
        } catch (err) {
          const e = err as McpLiteError;
          throw configError(e.message, e.data?.errors);
        }
      },
    };
  }
}

function configError(message: string, errors: unknown): McpLiteError {
  return new McpLiteError('config_invalid', message, { errors });
}

/** Orders semantic versions by precedence (numeric parts, then a pre-release below its release). */
export function compareSemver(a: string, b: string): number {
  const [ca, pa] = splitSemver(a);
  const [cb, pb] = splitSemver(b);
  for (let i = 0; i < 3; i++) if (ca[i] !== cb[i]) return ca[i]! - cb[i]!;
  if (pa === pb) return 0;
  if (pa === undefined) return 1;
  if (pb === undefined) return -1;
  return pa < pb ? -1 : 1;
}

function splitSemver(v: string): [number[], string | undefined] {
  const [core, ...rest] = v.split('+')[0]!.split('-');
  return [core!.split('.').map(Number), rest.length ? rest.join('-') : undefined];
}
