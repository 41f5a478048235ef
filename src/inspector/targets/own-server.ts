/** What the inspector mounted on a server (`serve --inspector`) takes from that server beyond its MCP-lite wire. */
import { toolUiMeta } from '../../core/apps/ui.js';
import type { CallerSource } from '../../core/operation-caller.js';
import type { ToolServer } from '../../core/server.js';
import type { RoundOptions } from '../target.js';

/** The binding name a read through the inspector on its own server goes by in logs, metrics and `op.caller`. */
export const INSPECTOR_BINDING = 'inspector';

/**
 * `resources/read` on the server the inspector is mounted on, for its in-process MCP-lite target (MCP-lite carries
 * no resources, so without it the page could not render the server's MCP Apps views). The read takes the path
 * MCP's `resources/read` takes: the page's `Authorization` is authenticated as any request's (with auth on, a page
 * without a valid token reads nothing: the view's tools decide who may read it, never "nobody"), then the read
 * walks the server's middleware chain with that caller.
 */
export function serverResourceReader(
  server: ToolServer,
): (uri: string, options: RoundOptions) => Promise<unknown[]> {
  return async (uri, options) => {
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(options.headers ?? {})) headers[k.toLowerCase()] = v;
    const principal = server.authenticate ? await server.authenticateCaller(headers) : undefined;
    const caller: CallerSource = {
      binding: INSPECTOR_BINDING,
      headers,
      principal,
      remoteAddress: options.remoteAddress,
    };
    const signal = options.signal ?? new AbortController().signal;
    return server.operate('resources/read', uri, undefined, caller, () =>
      server.resources.read(uri, { signal, principal, caller }),
    );
  };
}

/**
 * The MCP Apps `_meta` (`ui.resourceUri`, `ui.visibility`) of the server's own tool `name`, which its MCP-lite
 * listing does not carry: what the inspector on the server needs to know that a tool renders a view.
 */
export function serverToolMeta(server: ToolServer): (name: string) => Record<string, unknown> | undefined {
  return (name) => toolUiMeta(server.catalog.get(name)?.ui);
}
