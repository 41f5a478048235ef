import type { Authenticate } from '../auth.js';
import type { Catalog } from '../catalog.js';
import { McpLiteError } from '../errors.js';
import { assertToolScopes } from '../oauth/tool-scopes.js';
import { RequestCaller } from '../operation-caller.js';
import type { Pipeline } from '../pipeline.js';
import type { ResourceCatalog, ResourceContext } from '../resources.js';
import { APP_MIME_TYPE, type ToolView, type ViewHtml, viewResourceMeta } from './ui.js';

/** The largest view served (characters of HTML): a view is one self-contained document, read on every render. */
export const MAX_VIEW_CHARS = 4 * 1024 * 1024;

/** What a view's resource asks of the server that serves it: who may read it. */
export interface ViewAccess {
  pipeline: () => Pipeline;
  authenticate: Authenticate | undefined;
}

/**
 * Serves the views of a catalog's tools as `ui://` resources, kept in line with the catalog (a tool added or
 * removed adds or removes its view). A view is read like any resource, through the chain, and only by a caller
 * who may see one of its tools and holds that tool's scopes: a tool hidden from a caller hides its view too.
 */
export class ViewResources {
  /** The views served, by URI: the view and the tools that show it. */
  private readonly served = new Map<string, { view: ToolView; tools: Set<string> }>();

  constructor(
    private readonly catalog: Catalog,
    private readonly resources: ResourceCatalog,
    private readonly access: ViewAccess,
  ) {
    this.sync();
    catalog.onChange(() => this.sync());
  }

  /** Adds the views of tools that appeared, removes those no tool shows any more. */
  private sync(): void {
    const wanted = new Map<string, { view: ToolView; tools: Set<string> }>();
    for (const name of this.catalog.names()) {
      const tool = this.catalog.get(name);
      const view = tool?.definition.ui;
      const uri = tool?.ui?.resourceUri;
      if (!view || view.html === undefined || uri === undefined) continue;
      const held = wanted.get(uri);
      if (held && held.view !== view)
        throw new McpLiteError(
          'invalid_request',
          `Tools ${[...held.tools][0]} and ${name} declare different views at ${uri}: give them the same ui object`,
        );
      if (held) held.tools.add(name);
      else wanted.set(uri, { view, tools: new Set([name]) });
    }
    for (const uri of [...this.served.keys()]) {
      if (wanted.get(uri)?.view === this.served.get(uri)?.view) continue;
      this.served.delete(uri);
      this.resources.remove(uri);
    }
    for (const [uri, entry] of wanted) {
      const current = this.served.get(uri);
      if (current) {
        current.tools = entry.tools;
        continue;
      }
      if (this.resources.has(uri))
        throw new McpLiteError(
          'invalid_request',
          `Tool ${[...entry.tools][0]}'s view ${uri} is a resource already`,
        );
      this.served.set(uri, entry);
      const first = this.catalog.get([...entry.tools][0]!)!.definition;
      this.resources.add({
        uri,
        name: entry.view.name ?? first.name,
        ...(first.title ? { title: first.title } : {}),
        ...((entry.view.description ?? first.description)
          ? { description: entry.view.description ?? first.description }
          : {}),
        mimeType: APP_MIME_TYPE,
        read: (ctx) => this.read(uri, ctx),
      });
    }
  }

  private async read(uri: string, ctx: ResourceContext) {
    const entry = this.served.get(uri);
    if (!entry) throw new McpLiteError('resource_not_found', `Resource not found: ${uri}`, { uri });
    this.assertMayRead(uri, [...entry.tools], ctx);
    const text = await viewHtml(entry.view.html!);
    const meta = viewResourceMeta(entry.view);
    return { uri, mimeType: APP_MIME_TYPE, text, ...(meta ? { _meta: { ui: meta } } : {}) };
  }

  /** Refuses a reader who may see none of the view's tools (as not found) or lacks all their scopes. */
  private assertMayRead(uri: string, tools: string[], ctx: ResourceContext): void {
    const pipeline = this.access.pipeline();
    const caller = ctx.caller ? new RequestCaller(ctx.caller) : undefined;
    const visible = tools
      .map((name) => this.catalog.get(name))
      .filter((t) => t !== undefined)
      .filter((t) => !pipeline.hidesTools || !caller || pipeline.visible(t.wire, caller));
    if (visible.length === 0)
      throw new McpLiteError('resource_not_found', `Resource not found: ${uri}`, { uri });
    let refused: unknown;
    for (const tool of visible) {
      try {
        assertToolScopes(tool.definition.auth?.scopes, ctx.principal, this.access.authenticate);
        return;
      } catch (err) {
        refused = err;
      }
    }
    throw refused;
  }
}

/** A view's HTML, made or read now, at most `MAX_VIEW_CHARS` long. */
export async function viewHtml(html: ViewHtml): Promise<string> {
  const text = typeof html === 'string' ? html : html instanceof URL ? await readFileUrl(html) : await html();
  if (typeof text !== 'string') throw new McpLiteError('internal', 'A view function returned no HTML string');
  if (text.length > MAX_VIEW_CHARS) throw tooLarge();
  return text;
}

function tooLarge(): McpLiteError {
  return new McpLiteError('internal', `A view is larger than ${MAX_VIEW_CHARS} characters`);
}

/** Reads a `file:` URL's view, bounded before it is read whole. */
async function readFileUrl(url: URL): Promise<string> {
  // Node's own module getter, not an import: the fetch path stays free of node:* for bundlers (docs/runtimes.md),
  // and a runtime without a file system fails only for a view that names a file.
  const runtime = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process;
  const fs = runtime?.getBuiltinModule?.('node:fs/promises') as typeof import('node:fs/promises') | undefined;
  if (!fs)
    throw new McpLiteError('internal', 'A view given as a file: URL needs a runtime with a file system');
  const handle = await fs.open(url, 'r');
  try {
    const { size } = await handle.stat();
    // Four bytes a character at most in UTF-8: a file past this cannot be within the bound.
    if (size > MAX_VIEW_CHARS * 4) throw tooLarge();
    return await handle.readFile('utf8');
  } finally {
    await handle.close();
  }
}
