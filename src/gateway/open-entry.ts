import { stat } from 'node:fs/promises';
import { isAbsolute, resolve } from 'node:path';
import { endpointOfCard } from '../client/card-target.js';
import { commandLine } from '../client/detect.js';
import type { OAuthOptions } from '../client/oauth.js';
import type { ConnectOptions } from '../client/types.js';
import { McpLiteError } from '../core/errors.js';
import { ENTRY_BOUND_KEYS, type EntryBounds, type EntryOAuth, type GatewayEntry } from './config.js';
import { openApiTools } from './openapi.js';
import { MAX_DOCUMENT_BYTES } from './openapi-document.js';
import { openUpstream, type ProxyToolsOptions } from './proxy-tools.js';
import type { ToolSource } from './source.js';
import { prefixOf, transformTools } from './transforms.js';
import { type UpstreamStatus, upstreamLabel } from './upstream.js';

/** What every entry gets unless it says otherwise, and how the gateway hears of its upstreams. */
export interface EntryDefaults extends EntryBounds {
  /** The directory an OpenAPI document's relative path is read from (the config file's). */
  baseDir: string;
  /** Whether a stdio upstream's stderr goes to the gateway's (default) or nowhere. */
  stderr?: 'inherit' | 'ignore';
  /** Told of every change of an upstream's state (the proxy logs it). */
  onChange?: (status: UpstreamStatus) => void;
  /** Told of names in an entry's `tools` that its server does not have. */
  onUnknownNames?: (server: string, names: string[]) => void;
  /** Told when a server lists more tools than its `maxTools`. */
  onTruncated?: (server: string, listed: number, kept: number) => void;
  /**
   * How an entry's `"oauth"` becomes the client's OAuth options: `mcplite proxy` gives its token file (what
   * `mcplite login` writes) as the store. Default: the settings with tokens kept in memory.
   */
  oauth?: (settings: EntryOAuth) => OAuthOptions;
  /**
   * Told once (until it comes up) that an `"oauth"` upstream refused the gateway and needs a user to sign in
   * (`mcplite login <upstream>`): it stays down meanwhile and is tried again with backoff, picking up the tokens.
   */
  onSignInNeeded?: (server: string, upstream: string) => void;
}

/**
 * One config entry as a gateway source, namespaced by its name. Nothing is opened yet: the first listing opens
 * it, so an upstream that is down when the gateway starts is one the gateway keeps trying (with backoff), not one
 * that stops it.
 */
export function entrySource(entry: GatewayEntry, defaults: EntryDefaults): ToolSource {
  const bounds = { ...pick(defaults), ...pick(entry) };
  const label = labelOf(entry);
  if (entry.kind === 'openapi') return openApiSource(entry, defaults, bounds, label);
  // A registry entry kept as a file is found from the config file's directory, as an OpenAPI document is.
  const target =
    entry.kind === 'registry' ? fromConfigDir(entry.registry, defaults.baseDir) : locationOf(entry);
  const connect: ConnectOptions = {
    ...(entry.kind === 'stdio'
      ? {
          binding: 'stdio' as const,
          env: entry.env,
          ...(entry.cwd ? { cwd: resolve(defaults.baseDir, entry.cwd) } : {}),
          stderr: defaults.stderr ?? 'inherit',
        }
      : {
          headers: entry.headers,
          ...(entry.oauth ? { oauth: defaults.oauth?.(entry.oauth) ?? { ...entry.oauth } } : {}),
          ...(entry.kind === 'registry'
            ? {
                allowPackageLaunch: entry.allowPackageLaunch,
                registryInputs: entry.inputs,
                env: entry.env,
                ...(entry.cwd ? { cwd: resolve(defaults.baseDir, entry.cwd) } : {}),
                stderr: defaults.stderr ?? 'inherit',
              }
            : {}),
        }),
    ...(bounds.maxResponseBytes !== undefined ? { maxResponseBytes: bounds.maxResponseBytes } : {}),
  };
  const options: ProxyToolsOptions = {
    prefix: entry.name,
    tools: entry.tools,
    label,
    connect,
    ...(bounds.timeout !== undefined ? { callTimeoutMs: bounds.timeout } : {}),
    ...(bounds.maxInFlight !== undefined ? { maxInFlight: bounds.maxInFlight } : {}),
    ...(bounds.maxInFlightPerCaller !== undefined
      ? { maxInFlightPerCaller: bounds.maxInFlightPerCaller }
      : {}),
    ...(bounds.maxTools !== undefined ? { maxTools: bounds.maxTools } : {}),
    ...(defaults.onChange ? { onChange: defaults.onChange } : {}),
    onUnknownNames: (names) => defaults.onUnknownNames?.(entry.name, names),
    onTruncated: (listed, kept) => defaults.onTruncated?.(entry.name, listed, kept),
  };
  const oauth = entry.kind !== 'stdio' && entry.oauth !== undefined;
  // Said once per outage: every retry of a signed-out upstream would repeat the same line.
  let told = false;
  // A card entry reads its card at each opening (a retry sees a card that changed) and opens the remote it lists.
  const opened = (): Promise<ToolSource> =>
    entry.kind === 'card'
      ? endpointOfCard(entry.card).then((endpoint) => openUpstream(endpoint, options))
      : openUpstream(target, options);
  return deferred(label, () =>
    opened().then(
      (source) => {
        told = false;
        return source;
      },
      (err: unknown) => {
        if (oauth && !told && err instanceof McpLiteError && err.code === 'unauthenticated') {
          told = true;
          defaults.onSignInNeeded?.(entry.name, upstreamLabel(target));
        }
        throw err;
      },
    ),
  );
}

/** The entry as errors, `/readyz` and the log show it: never a header, an env value or a URL's query. */
function labelOf(entry: GatewayEntry): string {
  return `${entry.name} (${upstreamLabel(locationOf(entry))})`;
}

/** Where an entry's server is, as the config names it (a stdio entry: its command line). */
function locationOf(entry: GatewayEntry): string {
  switch (entry.kind) {
    case 'stdio':
      return commandLine(entry.command, entry.args);
    case 'remote':
      return entry.url;
    case 'card':
      return entry.card;
    case 'registry':
      return entry.registry;
    case 'target':
      return entry.target;
    case 'openapi':
      return entry.openapi;
  }
}

/** A document the config names: a URL or an absolute path as it is, a relative path against the config's directory. */
function fromConfigDir(location: string, baseDir: string): string {
  return /^https?:\/\//i.test(location) || isAbsolute(location) ? location : resolve(baseDir, location);
}

function pick(b: EntryBounds): EntryBounds {
  const out: EntryBounds = {};
  for (const key of ENTRY_BOUND_KEYS) if (b[key] !== undefined) out[key] = b[key];
  return out;
}

/** An OpenAPI service: its document read (and validated) at the first listing, again after a failed one. */
function openApiSource(
  entry: Extract<GatewayEntry, { kind: 'openapi' }>,
  defaults: EntryDefaults,
  bounds: EntryBounds,
  label: string,
): ToolSource {
  const fromUrl = /^https?:\/\//i.test(entry.openapi);
  const document = fromConfigDir(entry.openapi, defaults.baseDir);
  let tools: Promise<ReturnType<typeof transformTools>> | undefined;
  const prefix = prefixOf(entry.name);
  return {
    label,
    list: () => {
      tools ??= (async () => {
        const source = fromUrl ? document : await readDocument(document);
        const made = await openApiTools(source, {
          headers: entry.headers,
          ...(entry.baseUrl ? { baseUrl: entry.baseUrl } : {}),
          ...(entry.include ? { include: entry.include } : {}),
          ...(entry.exclude ? { exclude: entry.exclude } : {}),
          ...(bounds.timeout !== undefined ? { timeoutMs: bounds.timeout } : {}),
          ...(bounds.maxTools !== undefined ? { maxTools: bounds.maxTools } : {}),
          ...(bounds.maxResponseBytes !== undefined ? { maxResponseBytes: bounds.maxResponseBytes } : {}),
        });
        return transformTools(made, prefix, entry.tools, (names) =>
          defaults.onUnknownNames?.(entry.name, names),
        );
      })().catch((err: unknown) => {
        tools = undefined;
        throw err;
      });
      return tools;
    },
    onChange: () => {},
    status: () => undefined,
    close: async () => {},
  };
}

/** The document's path, once its size is known to be bounded (the parser reads it, so its relative `$ref`s resolve). */
async function readDocument(path: string): Promise<string> {
  const { size } = await stat(path);
  if (size > MAX_DOCUMENT_BYTES) throw new Error(`${path} is larger than ${MAX_DOCUMENT_BYTES} bytes`);
  return path;
}

/**
 * A source opened at its first listing: until it opens, listing it tries again (the gateway's backoff paces the
 * attempts) and its status is `reconnecting` with the last error.
 */
function deferred(label: string, open: () => Promise<ToolSource>): ToolSource {
  let inner: ToolSource | undefined;
  let opening: Promise<ToolSource> | undefined;
  let attempts = 0;
  let lastError: string | undefined;
  let closed = false;
  const listeners: Array<() => void> = [];
  return {
    label,
    list: async () => {
      if (!inner) {
        opening ??= open().finally(() => {
          opening = undefined;
        });
        try {
          const opened = await opening;
          if (closed) {
            await opened.close();
            throw new Error('closed');
          }
          inner = opened;
          for (const listener of listeners) opened.onChange(listener);
        } catch (err) {
          attempts++;
          lastError = (err instanceof Error ? err.message : String(err)).split('\n')[0]!.slice(0, 200);
          throw err;
        }
      }
      return inner.list();
    },
    // Asked after a successful `list`, so the source is open by then.
    listExtras: async () =>
      (await inner?.listExtras?.()) ?? { resources: [], resourceTemplates: [], prompts: [] },
    onChange: (listener) => {
      listeners.push(listener);
      inner?.onChange(listener);
    },
    status: () =>
      inner?.status() ?? {
        state: closed ? 'closed' : 'reconnecting',
        upstream: label,
        attempts,
        ...(lastError !== undefined ? { lastError } : {}),
      },
    close: async () => {
      closed = true;
      await inner?.close();
    },
  };
}
