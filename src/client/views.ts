import { APP_MIME_TYPE, DEPRECATED_RESOURCE_URI, type ToolAudience } from '../core/apps/ui.js';
import { fromBase64 } from '../core/base64.js';
import type { ResourceContents } from '../core/content.js';
import { McpLiteError } from '../core/errors.js';
import type { ToolInfo } from './types.js';
import { isRecord } from './wire-errors.js';

/** Options of `client.view`. */
export interface ViewOptions {
  /** Aborts the listing and the read. */
  signal?: AbortSignal;
  /** Milliseconds the read may take (default: the client's `timeout`; 0: none). */
  timeout?: number;
  /** Read the view's HTML too (`resources/read` of its `ui://` URI). Default false: the link alone. */
  html?: boolean;
}

/** A tool's interactive view (MCP Apps), as the server links it, and its HTML when asked for. */
export interface ToolViewInfo {
  /** The tool it belongs to. */
  tool: string;
  /** The view's `ui://` resource. */
  resourceUri: string;
  /** Who the tool is for, as listed (absent: model and app). */
  visibility?: ToolAudience[];
  /** The HTML document (with `html: true`). */
  html?: string;
  /** Its media type as served (`text/html;profile=mcp-app`), with `html: true`. */
  mimeType?: string;
  /** The resource's `_meta.ui` (csp, permissions, prefersBorder, domain), with `html: true`. */
  meta?: Record<string, unknown>;
}

/** The `ui://` URI a listed tool links its view to (`_meta.ui.resourceUri`), if any. */
export function viewUriOf(tool: Pick<ToolInfo, 'ui'>): string | undefined {
  const uri = tool.ui?.resourceUri;
  return typeof uri === 'string' && uri.startsWith('ui://') ? uri : undefined;
}

/**
 * The `ui` of a listed tool: `_meta.ui`, or a view named only by the deprecated flat key (hosts built on older
 * helpers write it alone), as one shape.
 */
export function toolUiOf(meta: Record<string, unknown>): Record<string, unknown> | undefined {
  const ui = isRecord(meta.ui) ? meta.ui : undefined;
  const flat = meta[DEPRECATED_RESOURCE_URI];
  if (typeof flat === 'string' && ui?.resourceUri === undefined) return { ...ui, resourceUri: flat };
  return ui;
}

/**
 * The view of tool `name` (undefined for a tool without one), and its HTML on request: what a host needs to render
 * a call's result. Only MCP carries views; other wires list none.
 */
export async function toolView(
  client: {
    listTools(options: { signal?: AbortSignal }): Promise<ToolInfo[]>;
    readResource(
      uri: string,
      options: { signal?: AbortSignal; timeout?: number },
    ): Promise<ResourceContents[]>;
  },
  name: string,
  options: ViewOptions = {},
): Promise<ToolViewInfo | undefined> {
  const tools = await client.listTools(options.signal ? { signal: options.signal } : {});
  const tool = tools.find((t) => t.name === name);
  if (!tool) throw new McpLiteError('tool_not_found', `Unknown tool: ${name}`, { requested_tool: name });
  const resourceUri = viewUriOf(tool);
  if (!resourceUri) return undefined;
  const visibility = Array.isArray(tool.ui?.visibility) ? (tool.ui.visibility as ToolAudience[]) : undefined;
  const view: ToolViewInfo = { tool: name, resourceUri, ...(visibility ? { visibility } : {}) };
  if (!options.html) return view;
  const { html: _h, ...read } = options;
  const contents = await client.readResource(resourceUri, read);
  const document = contents.find((c) => c.uri === resourceUri) ?? contents[0];
  if (!document) throw new McpLiteError('resource_not_found', `The view ${resourceUri} has no contents`);
  return {
    ...view,
    html: htmlOf(document),
    mimeType: document.mimeType ?? APP_MIME_TYPE,
    ...(isRecord(document._meta?.ui) ? { meta: document._meta.ui } : {}),
  };
}

function htmlOf(contents: ResourceContents): string {
  if (typeof contents.text === 'string') return contents.text;
  if (typeof contents.blob === 'string') return new TextDecoder().decode(fromBase64(contents.blob));
  return '';
}
