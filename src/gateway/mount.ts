import type { PromptDefinition } from '../core/prompts.js';
import type { ResourceDefinition, ResourceTemplateDefinition } from '../core/resources.js';
import type { ToolServer } from '../core/server.js';
import type { ToolDefinition } from '../core/tool.js';
import {
  namespaced,
  prefixedUri,
  prefixOf,
  type ToolTransforms,
  transformTools,
  unprefixedUri,
} from './transforms.js';

/** Options of `mount`. */
export interface MountOptions {
  /** The namespace: tool `t` becomes `prefix_t`, prompt `p` `prefix_p`, resource `s://x` `s://prefix/x`. */
  prefix: string;
  /** Include, exclude, rename and describe its tools (upstream names), as a gateway config entry does. */
  tools?: ToolTransforms;
}

/** What `mount` gives: the parts of `createServer`'s options, to spread (or concatenate) into the host's. */
export interface MountedServer {
  tools: ToolDefinition[];
  resources: ResourceDefinition[];
  resourceTemplates: ResourceTemplateDefinition[];
  prompts: PromptDefinition[];
}

/**
 * Composes a server into another in one process, under a namespace: its tools keep their own handlers (so the
 * host's middleware, scopes, visibility and tracing apply to them as to any tool of the host), its resources and
 * prompts are read and rendered by it. The mounted server's system tools (`redeem`, `cancel`) are the host's.
 *
 * @example
 * const weather = mount(weatherServer, { prefix: 'weather' });
 * const host = createServer({ name: 'all', tools: [...weather.tools, ...own], prompts: weather.prompts });
 */
export function mount(server: ToolServer, options: MountOptions): MountedServer {
  const prefix = prefixOf(options.prefix);
  const definitions = server.catalog
    .names()
    .map((name) => server.catalog.get(name))
    .filter((tool) => tool !== undefined && !tool.system)
    .map((tool) => tool!.definition);
  return {
    tools: transformTools(definitions, prefix, options.tools),
    resources: server.resources.list().map(
      (resource): ResourceDefinition => ({
        ...resource,
        name: namespaced(prefix, resource.name),
        uri: prefixedUri(prefix, resource.uri),
        // The contents name the URI the host serves (a view's host reads `uri` back), as the gateway's do.
        read: async (ctx) =>
          (await server.resources.read(resource.uri, ctx)).map((c) => ({
            ...c,
            uri: c.uri === resource.uri ? prefixedUri(prefix, c.uri) : c.uri,
          })),
      }),
    ),
    resourceTemplates: server.resources.templates().map(
      (template): ResourceTemplateDefinition => ({
        ...template,
        name: namespaced(prefix, template.name),
        uriTemplate: prefixedUri(prefix, template.uriTemplate),
        read: (uri, _variables, ctx) => server.resources.read(unprefixedUri(prefix, uri), ctx),
      }),
    ),
    prompts: server.prompts.list().map(
      (prompt): PromptDefinition => ({
        ...prompt,
        name: namespaced(prefix, prompt.name),
        handler: (args, ctx) => server.prompts.get(prompt.name, args, ctx),
      }),
    ),
  };
}
