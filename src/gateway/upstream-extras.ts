import type { Client } from '../client/client.js';
import type { ToolInfo } from '../client/types.js';
import { viewUriOf } from '../client/views.js';
import { APP_MIME_TYPE } from '../core/apps/ui.js';
import type { ResourceContents } from '../core/content.js';
import { McpLiteError } from '../core/errors.js';
import { printable } from '../core/printable.js';
import type { PromptDefinition } from '../core/prompts.js';
import type { ResourceDefinition, ResourceTemplateDefinition, WireResource } from '../core/resources.js';
import type { BoundedRun } from './bounded-run.js';
import type { SourceExtras } from './source.js';
import { namespaced, prefixedUri, unprefixedUri } from './transforms.js';
import type { GatewayUpstream } from './upstream.js';

/** Its title and description with control characters shown, as the gateway re-serves a tool's. */
function shown(entry: { title?: string; description?: string }): { title?: string; description?: string } {
  return {
    ...(entry.title !== undefined ? { title: printable(entry.title, false) } : {}),
    ...(entry.description !== undefined ? { description: printable(entry.description) } : {}),
  };
}

/**
 * The views (MCP Apps) the upstream's tools link to but its `resources/list` leaves out (the spec lets a server
 * omit them): the gateway serves them with its other resources, so that every link it re-serves resolves.
 */
function unlistedViews(tools: readonly ToolInfo[], resources: readonly WireResource[]): WireResource[] {
  const listed = new Set(resources.map((r) => r.uri));
  const views = new Map<string, WireResource>();
  for (const tool of tools) {
    const uri = viewUriOf(tool);
    if (uri === undefined || listed.has(uri) || views.has(uri)) continue;
    views.set(uri, { uri, name: `${tool.name}_view`, mimeType: APP_MIME_TYPE });
  }
  return [...views.values()];
}

/** Options of `upstreamExtrasLister`. */
export interface ExtrasOptions {
  /** The namespace, as for tools: prompt `p` is `prefix_p`, resource `s://x` is `s://prefix/x` (as `mount`). */
  prefix?: string | undefined;
  /** Most entries of each kind taken (default 1000); the rest are left out, as tools past `maxTools` are. */
  maxEntries?: number;
  /**
   * The upstream's tools as its tool listing last saw them (the gateway lists tools just before these), so that
   * the views they link to are found without a second tools/list, which would count against the relist bound.
   */
  tools?: () => readonly ToolInfo[];
}

// Reads and renderings carry no client-wide timeout: the caller and `callTimeoutMs` (in `run`) decide.
/**
 * Lists an upstream's resources, resource templates and prompts as definitions that read and render upstream,
 * namespaced like `mount` does, so a proxied server and a mounted one look the same to clients. Reads and
 * renderings go through `run` (the upstream's in-flight and time bounds, and its reconnection). A server that
 * serves none of a kind (`method_not_found`: not declared, or a wire without them) gives an empty list of it.
 */
export function upstreamExtrasLister(
  link: GatewayUpstream,
  run: BoundedRun,
  options: ExtrasOptions = {},
): () => Promise<SourceExtras> {
  const { prefix } = options;
  const max = options.maxEntries ?? 1000;
  // Listings are bounded by the client's own timeout (the proxy's `openTimeoutMs`), as its tools listing is.
  const listed = async <T>(list: (client: Client) => Promise<T[]>): Promise<T[]> => {
    try {
      return (await link.run(list)).slice(0, max);
    } catch (err) {
      if (err instanceof McpLiteError && err.code === 'method_not_found') return [];
      throw err;
    }
  };
  const uriOf = (uri: string) => (prefix ? prefixedUri(prefix, uri) : uri);
  const upstreamUri = (uri: string) => (prefix ? unprefixedUri(prefix, uri) : uri);
  // The contents name the URI the client asked for (the gateway's), not the one only the upstream knows.
  const served = (contents: ResourceContents[]) => contents.map((c) => ({ ...c, uri: uriOf(c.uri) }));
  return async () => {
    const [listedResources, templates, prompts] = await Promise.all([
      listed((client) => client.listResources()),
      listed((client) => client.listResourceTemplates()),
      listed((client) => client.listPrompts()),
    ]);
    const tools = options.tools?.() ?? [];
    const resources = [...listedResources, ...unlistedViews(tools, listedResources)].slice(0, max);
    return {
      resources: resources.map(
        (resource): ResourceDefinition => ({
          ...resource,
          ...shown(resource),
          name: namespaced(prefix, resource.name),
          uri: uriOf(resource.uri),
          read: async (ctx) =>
            served(
              await run(ctx, (client, signal) => client.readResource(resource.uri, { signal, timeout: 0 })),
            ),
        }),
      ),
      resourceTemplates: templates.map(
        (template): ResourceTemplateDefinition => ({
          ...template,
          ...shown(template),
          name: namespaced(prefix, template.name),
          uriTemplate: uriOf(template.uriTemplate),
          read: async (uri, _variables, ctx) =>
            served(
              await run(ctx, (client, signal) =>
                client.readResource(upstreamUri(uri), { signal, timeout: 0 }),
              ),
            ),
        }),
      ),
      prompts: prompts.map(
        (prompt): PromptDefinition => ({
          ...prompt,
          ...shown(prompt),
          name: namespaced(prefix, prompt.name),
          handler: (args, ctx) =>
            run(ctx, (client, signal) => client.getPrompt(prompt.name, args, { signal, timeout: 0 })),
        }),
      ),
    };
  };
}
