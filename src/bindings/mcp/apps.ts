import { APPS_CAPABILITY, APPS_EXTENSION, toolUiMeta } from '../../core/apps/ui.js';
import type { CompiledTool } from '../../core/catalog.js';

/**
 * MCP Apps on the MCP binding (docs/apps.md): the extension in the server's capabilities (the handshake's and
 * `server/discover`'s), and a tool's `_meta.ui` for a client that declared it. A client that did not gets the
 * plain text tool (no `ui://` link it could not use, no app-only tool a model could be shown), as the spec's
 * "register text-only variants" advises.
 */

/**
 * The resources a client is listed: without the extension, no view (`ui://`), which it could not render (the
 * spec lets a server leave views out of `resources/list`); a read by URI still answers it.
 */
export function resourcesFor<T extends { uri: string }>(
  resources: readonly T[],
  apps: boolean,
): readonly T[] {
  return apps ? resources : resources.filter((r) => !r.uri.startsWith('ui://'));
}

/** `capabilities` with the extension added to its `extensions`. */
export function withAppsCapability(capabilities: Record<string, unknown>): Record<string, unknown> {
  const extensions = (capabilities.extensions ?? {}) as Record<string, unknown>;
  capabilities.extensions = { ...extensions, [APPS_EXTENSION]: APPS_CAPABILITY };
  return capabilities;
}

/** An MCP tool with its `_meta.ui` (and the deprecated flat key) merged into its `_meta`, for an Apps client. */
export function withToolUi(
  tool: Record<string, unknown>,
  compiled: CompiledTool | undefined,
): Record<string, unknown> {
  const meta = toolUiMeta(compiled?.ui);
  if (!meta) return tool;
  return { ...tool, _meta: { ...(tool._meta as Record<string, unknown> | undefined), ...meta } };
}
