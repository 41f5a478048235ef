import { type Client, connect } from '../client/client.js';
import type { ConnectOptions, ToolInfo } from '../client/types.js';
import { McpLiteError } from '../core/errors.js';
import type { ToolDefinition } from '../core/tool.js';
import { boundedRun } from './bounded-run.js';
import { type GatewayOptions, upstreamToolLister } from './gateway-tools.js';
import type { ToolSource } from './source.js';
import { prefixOf, type ToolTransforms, transformTools } from './transforms.js';
import { GatewayUpstream, type UpstreamOptions, upstreamLabel } from './upstream.js';
import { upstreamExtrasLister } from './upstream-extras.js';

/** Options of `proxyTools` and `openUpstream`. */
export interface ProxyToolsOptions extends GatewayOptions, Omit<UpstreamOptions, 'label'> {
  /** The namespace: upstream tool `t` is served as `prefix_t`. Default none (the upstream's own names). */
  prefix?: string;
  /** Include, exclude, rename and describe the upstream's tools (by their upstream names). */
  tools?: ToolTransforms;
  /**
   * How to reach the upstream: headers, a token, a forced binding, a stdio child's `env` and `cwd`, and the
   * client's bounds (`maxResponseBytes`, …). `timeout` bounds each attempt to connect (default 30 000 ms).
   */
  connect?: ConnectOptions;
  /** How the upstream is named in errors, `/readyz` and the log. Default `upstreamLabel(target)`. */
  label?: string;
  /** Told of names in `tools` that the upstream does not have (the proxy logs them). */
  onUnknownNames?: (names: string[]) => void;
}

/** The tools of `proxyTools`, with what keeps them alive. */
export type ProxiedTools = ToolDefinition[] & {
  /** The kept-alive connection: its state, its readiness for `/readyz`. */
  readonly upstream: GatewayUpstream;
  /** Closes the upstream (ending a stdio server's process). */
  close(): Promise<void>;
};

/**
 * The tools of a remote server (any target the client speaks: an MCP command line or URL, `grpc://…`, an MCP-lite
 * or Webtools URL) as ordinary tool definitions, namespaced and transformed: serve them with `createServer` and
 * the pipeline (middleware, scopes, tracing) applies to them as to any tool. The upstream is kept alive
 * (reconnected with backoff, a stdio server restarted); its calls are bounded (in flight, time, response size).
 * For a catalog that follows the upstream's `list_changed`, give the source to a `Gateway` (`openUpstream`).
 */
export async function proxyTools(target: string, options: ProxyToolsOptions = {}): Promise<ProxiedTools> {
  const source = await openUpstream(target, options);
  let tools: ToolDefinition[];
  try {
    tools = await source.list();
  } catch (err) {
    await source.close();
    throw err;
  }
  return Object.assign(tools, { upstream: source.upstream, close: () => source.close() });
}

/** A proxied server as a gateway source, with its kept-alive connection. */
export interface UpstreamSource extends ToolSource {
  readonly upstream: GatewayUpstream;
}

/**
 * Opens `target` as a gateway source: connected (the first failure is the caller's), listed on demand with
 * `options`' prefix and transforms (its resources and prompts namespaced too, at most `maxTools` of each), changed
 * when the upstream says its tools, resources or prompts changed or comes back after a break.
 */
export async function openUpstream(target: string, options: ProxyToolsOptions = {}): Promise<UpstreamSource> {
  const prefix = options.prefix === undefined ? undefined : prefixOf(options.prefix);
  const label = options.label ?? upstreamLabel(target);
  const listeners = new Set<() => void>();
  const changed = () => {
    for (const listener of listeners) listener();
  };
  const openTimeoutMs = options.openTimeoutMs ?? 30_000;
  const open = async (): Promise<Client> => {
    let client: Client;
    try {
      // One connection serves every caller of the gateway: no caller session may ride from one to another.
      client = await connect(target, { timeout: openTimeoutMs, ...options.connect, keepSession: false });
    } catch (err) {
      throw withoutTarget(err, target, label);
    }
    client.onToolsChanged?.(changed);
    client.onResourcesChanged?.(changed);
    client.onPromptsChanged?.(changed);
    return client;
  };
  const upstream = await GatewayUpstream.open(target, open, {
    ...options,
    label,
    openTimeoutMs,
    onChange: (status) => {
      options.onChange?.(status);
      // Back after a break: a restarted server may serve other tools than before.
      if (status.state === 'up') changed();
    },
  });
  let lastTools: readonly ToolInfo[] = [];
  const list = upstreamToolLister(upstream, options, (tools) => {
    lastTools = tools;
  });
  const listExtras = upstreamExtrasLister(upstream, boundedRun(upstream, options), {
    prefix,
    tools: () => lastTools,
    ...(options.maxTools !== undefined ? { maxEntries: options.maxTools } : {}),
  });
  // Said once: a re-listing after every list_changed would repeat the same line.
  let told = false;
  const unknown = (names: string[]) => {
    if (told) return;
    told = true;
    options.onUnknownNames?.(names);
  };
  return {
    label,
    upstream,
    list: async () => transformTools(await list(), prefix, options.tools, unknown),
    listExtras,
    onChange: (listener) => void listeners.add(listener),
    status: () => upstream.status(),
    close: () => upstream.close(),
  };
}

/**
 * A failure to connect as the log, `/readyz` and callers may see it: the client names the target as given, which
 * may hold credentials (a token in a URL's query, a key among a command's arguments); the label does not.
 */
function withoutTarget(err: unknown, target: string, label: string): unknown {
  if (!(err instanceof McpLiteError) || target === label) return err;
  const { target: _target, ...data } = err.data ?? {};
  const scrub = (text: string) => text.replaceAll(target, label);
  const cause = typeof data.cause === 'string' ? { cause: scrub(data.cause) } : {};
  return new McpLiteError(err.code, scrub(err.message), { ...data, ...cause, upstream: label });
}
