import { defaultViewUri } from '../core/apps/ui.js';
import { McpLiteError } from '../core/errors.js';
import type { ToolDefinition } from '../core/tool.js';

/**
 * What a gateway does to one server's tools before serving them (the `"tools"` object of a config entry),
 * applied in this order: `include`, then `exclude` (both by the upstream's own names), `rename`, `describe`.
 */
export interface ToolTransforms {
  /** Only these tools (upstream names); absent: every tool. */
  include?: string[];
  /** Never these tools (upstream names). */
  exclude?: string[];
  /** New names, by upstream name: `{"old": "new"}`. The prefix is added to the new name. */
  rename?: Record<string, string>;
  /** New descriptions, by upstream name, for tools whose own description misleads the model. */
  describe?: Record<string, string>;
}

/** A character no tool name may hold on any binding (`core/catalog.ts`). */
const NAME_CHARACTER = /[^A-Za-z0-9_.-]/g;

/**
 * A server's name as a prefix: characters no binding allows become `-`, so that `s_t` stays a valid tool name;
 * an empty result is refused (it would make tools of two servers collide).
 */
export function prefixOf(server: string): string {
  const prefix = server.replace(NAME_CHARACTER, '-');
  if (prefix.length === 0 || prefix.length > 64)
    throw new McpLiteError(
      'config_invalid',
      `Invalid server name ${JSON.stringify(server)}: 1 to 64 characters`,
    );
  return prefix;
}

/** `prefix_name`, the one namespacing rule of the gateway (tools, prompts); no prefix leaves the name as it is. */
export function namespaced(prefix: string | undefined, name: string): string {
  return prefix ? `${prefix}_${name}` : name;
}

/**
 * Applies `transforms` and the prefix to tool definitions (their handlers still call the upstream by its own
 * name: they close over it). A tool's view (MCP Apps) is namespaced as its resource is (`prefixedUri`): the tool
 * links to the prefixed `ui://` URI, which the source serves with its other resources. A name that the transforms name but the upstream lacks is reported through `unknown`,
 * so that a typo in a config is one log line rather than silence.
 */
export function transformTools(
  tools: readonly ToolDefinition[],
  prefix: string | undefined,
  transforms: ToolTransforms = {},
  unknown?: (names: string[]) => void,
): ToolDefinition[] {
  const include = transforms.include ? new Set(transforms.include) : undefined;
  const exclude = new Set(transforms.exclude ?? []);
  const rename = transforms.rename ?? {};
  const describe = transforms.describe ?? {};
  if (unknown) {
    const names = new Set(tools.map((t) => t.name));
    const named = [
      ...(transforms.include ?? []),
      ...exclude,
      ...Object.keys(rename),
      ...Object.keys(describe),
    ];
    const missing = [...new Set(named.filter((n) => !names.has(n)))];
    if (missing.length > 0) unknown(missing);
  }
  const out: ToolDefinition[] = [];
  for (const tool of tools) {
    if (include && !include.has(tool.name)) continue;
    if (exclude.has(tool.name)) continue;
    const name = namespaced(prefix, rename[tool.name] ?? tool.name);
    const description = describe[tool.name];
    out.push({
      ...tool,
      name,
      ...(description !== undefined ? { description } : {}),
      ...(tool.ui && prefix
        ? { ui: { uri: prefixedUri(prefix, tool.ui.uri ?? defaultViewUri(tool.name)) } }
        : {}),
    });
  }
  return out;
}

/**
 * `scheme://rest` as `scheme://prefix/rest` (FastMCP's path form), so that two mounted servers' resources never
 * collide and a read finds its server by the URI alone. A URI without `://` gets `prefix/` in front.
 */
export function prefixedUri(prefix: string, uri: string): string {
  const at = uri.indexOf('://');
  return at < 0 ? `${prefix}/${uri}` : `${uri.slice(0, at + 3)}${prefix}/${uri.slice(at + 3)}`;
}

/** The URI the mounted server knows, from the host's (the inverse of `prefixedUri`). */
export function unprefixedUri(prefix: string, uri: string): string {
  const at = uri.indexOf('://');
  const head = at < 0 ? '' : uri.slice(0, at + 3);
  const rest = at < 0 ? uri : uri.slice(at + 3);
  return rest.startsWith(`${prefix}/`) ? `${head}${rest.slice(prefix.length + 1)}` : uri;
}
