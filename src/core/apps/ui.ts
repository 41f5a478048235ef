import { McpLiteError } from '../errors.js';

/**
 * MCP Apps (extension `io.modelcontextprotocol/ui`, stable 2026-01-26): what a tool declares about its view, checked
 * when the tool is defined, and the wire shapes every binding and the client share (docs/apps.md).
 */

/** The extension's identifier, in `capabilities.extensions` of both sides. */
export const APPS_EXTENSION = 'io.modelcontextprotocol/ui';
/** The media type of a view's HTML (`resources/read` contents and the resource listing). */
export const APP_MIME_TYPE = 'text/html;profile=mcp-app';
/** The flat key older hosts read the view's URI from, written beside `_meta.ui.resourceUri` (deprecated by the spec). */
export const DEPRECATED_RESOURCE_URI = 'ui/resourceUri';
/** What mcplite declares for the extension, as a server (`capabilities.extensions`) and as a client. */
export const APPS_CAPABILITY = { mimeTypes: [APP_MIME_TYPE] } as const;

/** Who may see a tool: the model (a host's agent), the app (a view of this server), or both (the default). */
export type ToolAudience = 'model' | 'app';

/** The origins a view may reach, each mapped by the host into its Content-Security-Policy. */
export interface ViewCsp {
  /** Origins for fetch/XHR/WebSocket (`connect-src`). */
  connectDomains?: readonly string[];
  /** Origins for scripts, styles, images, fonts and media (`script-src`, `style-src`, `img-src`, …). */
  resourceDomains?: readonly string[];
  /** Origins of nested iframes (`frame-src`; none without). */
  frameDomains?: readonly string[];
  /** Origins a `<base>` may name (`base-uri`; `'self'` without). */
  baseUriDomains?: readonly string[];
}

/** Browser features a view asks for (the host may grant them through the iframe's `allow`). */
export interface ViewPermissions {
  camera?: Record<string, never>;
  microphone?: Record<string, never>;
  geolocation?: Record<string, never>;
  clipboardWrite?: Record<string, never>;
}

/** A view's HTML: the document itself, a `file:` URL read at each `resources/read`, or a function that makes it. */
export type ViewHtml = string | URL | (() => string | Promise<string>);

/**
 * A tool's interactive view (MCP Apps): a self-contained HTML document a host renders in a sandboxed iframe, fed
 * the tool's input and result over the view protocol. Without `html` it links to a `ui://` resource served
 * otherwise (a resource of the server, or an upstream's through a gateway).
 */
export interface ToolView {
  /** The HTML. Absent: `uri` names a view this server serves by other means. */
  html?: ViewHtml;
  /** The resource's `ui://` URI. Default `ui://<tool name>/view`. Tools that share one view give the same object. */
  uri?: string;
  /** The resource's name in listings. Default the tool's name. */
  name?: string;
  /** The resource's description. */
  description?: string;
  /** The origins the view reaches beyond itself; each must be an origin (`https://api.example.com`, `https://*.cdn.net`). */
  csp?: ViewCsp;
  /** Browser features the view asks for. */
  permissions?: ViewPermissions;
  /** Whether the host draws a border and background around the view (the host decides when unset). */
  prefersBorder?: boolean;
  /** A dedicated sandbox origin, in the form the host documents. */
  domain?: string;
}

/**
 * What a tool's view receives, typed from the tool (`ViewData<typeof myTool>`, a `defineTool` result): `input`,
 * the `arguments` of `ui/notifications/tool-input`, and `output`, the `structuredContent` of
 * `ui/notifications/tool-result` (an answer that is not an object arrives as `{ result }`).
 */
export type ViewData<Tool> = Tool extends {
  readonly '~types'?: { readonly input: infer I; readonly output: infer O };
}
  ? { input: I; output: O extends object ? O : { result: O } }
  : { input: Record<string, unknown>; output: Record<string, unknown> };

/** What a catalog keeps of a tool's view and audience. */
export interface CompiledToolUi {
  /** The view's `ui://` URI, for a tool with a view. */
  resourceUri: string | undefined;
  /** The declared audience, as listed (`undefined`: not declared, which means both). */
  visibility: readonly ToolAudience[] | undefined;
  /** Only a view may call the tool: never shown to a model. */
  appOnly: boolean;
}

const CSP_KEYS = ['connectDomains', 'resourceDomains', 'frameDomains', 'baseUriDomains'] as const;
const PERMISSIONS = ['camera', 'microphone', 'geolocation', 'clipboardWrite'] as const;
const AUDIENCES: readonly string[] = ['model', 'app'];
/** `scheme://host[:port]`, the host possibly `*.`-prefixed: nothing a policy could be extended with. */
const ORIGIN = /^(https?|wss?):\/\/(\*\.)?[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*(:\d{1,5})?$/;
/** Most domains one directive may list, and the longest URI: a view's declaration is served on every read. */
const MAX_DOMAINS = 32;
const MAX_URI = 512;

/** The URI a tool's view is served at when it names none. */
export function defaultViewUri(toolName: string): string {
  return `ui://${toolName}/view`;
}

/**
 * Checks a tool's view and audience as the catalog will, so that a definition fails where it is written: a URI
 * not under `ui://`, a CSP entry that is not an origin (a server could otherwise write `https://x; script-src *`
 * into a host's policy), unknown permissions or audiences.
 */
export function checkToolUi(definition: { name: string; ui?: unknown; visibility?: unknown }): void {
  compileToolUi(definition);
}

/** A tool's view and audience as the catalog keeps them (checked; see `checkToolUi`). */
export function compileToolUi(definition: {
  name: string;
  ui?: unknown;
  visibility?: unknown;
}): CompiledToolUi | undefined {
  const { name, ui, visibility } = definition;
  if (ui === undefined && visibility === undefined) return undefined;
  const bad = (problem: string) => new McpLiteError('invalid_request', `Tool "${name}": ${problem}`);
  let audience: ToolAudience[] | undefined;
  if (visibility !== undefined) {
    if (
      !Array.isArray(visibility) ||
      visibility.length === 0 ||
      !visibility.every((v) => AUDIENCES.includes(v as string))
    )
      throw bad('visibility must be a non-empty list of "model" and "app"');
    audience = [...new Set(visibility as ToolAudience[])];
  }
  let resourceUri: string | undefined;
  if (ui !== undefined) {
    if (typeof ui !== 'object' || ui === null) throw bad('ui must be an object');
    const view = ui as ToolView;
    resourceUri = view.uri ?? defaultViewUri(name);
    if (typeof resourceUri !== 'string' || !resourceUri.startsWith('ui://') || resourceUri.length > MAX_URI)
      throw bad(`ui.uri must be a ui:// URI of at most ${MAX_URI} characters`);
    if (view.html === undefined && view.uri === undefined)
      throw bad('ui needs its html, or the uri of a view served otherwise');
    const html = view.html;
    if (
      html !== undefined &&
      typeof html !== 'string' &&
      typeof html !== 'function' &&
      !(html instanceof URL && html.protocol === 'file:')
    )
      throw bad('ui.html must be a string, a file: URL or a function');
    checkCsp(view.csp, bad);
    if (view.permissions !== undefined) {
      if (typeof view.permissions !== 'object' || view.permissions === null)
        throw bad('ui.permissions must be an object');
      const unknown = Object.keys(view.permissions).filter(
        (k) => !(PERMISSIONS as readonly string[]).includes(k),
      );
      if (unknown.length > 0)
        throw bad(`unknown ui.permissions ${unknown.join(', ')}: use ${PERMISSIONS.join(', ')}`);
    }
    if (view.prefersBorder !== undefined && typeof view.prefersBorder !== 'boolean')
      throw bad('ui.prefersBorder must be a boolean');
    if (view.domain !== undefined && (typeof view.domain !== 'string' || view.domain.length > MAX_URI))
      throw bad('ui.domain must be a string');
  }
  return {
    resourceUri,
    visibility: audience,
    appOnly: audience !== undefined && !audience.includes('model'),
  };
}

function checkCsp(csp: unknown, bad: (problem: string) => McpLiteError): void {
  if (csp === undefined) return;
  if (typeof csp !== 'object' || csp === null) throw bad('ui.csp must be an object');
  for (const key of Object.keys(csp)) {
    if (!(CSP_KEYS as readonly string[]).includes(key))
      throw bad(`unknown ui.csp.${key}: use ${CSP_KEYS.join(', ')}`);
    const domains = (csp as Record<string, unknown>)[key];
    if (!Array.isArray(domains) || domains.length > MAX_DOMAINS)
      throw bad(`ui.csp.${key} must be a list of at most ${MAX_DOMAINS} origins`);
    for (const domain of domains) {
      if (typeof domain !== 'string' || domain.length > MAX_URI || !ORIGIN.test(domain))
        throw bad(
          `ui.csp.${key} holds ${JSON.stringify(String(domain).slice(0, 80))}, which is not an origin ` +
            '(scheme://host[:port], the host possibly *.-prefixed; no path, no spaces, no ;)',
        );
    }
  }
}

/** The `_meta.ui` of a view's resource contents: its CSP, permissions, border and domain, as declared. */
export function viewResourceMeta(view: ToolView): Record<string, unknown> | undefined {
  const ui: Record<string, unknown> = {
    ...(view.csp ? { csp: view.csp } : {}),
    ...(view.permissions ? { permissions: view.permissions } : {}),
    ...(view.domain !== undefined ? { domain: view.domain } : {}),
    ...(view.prefersBorder !== undefined ? { prefersBorder: view.prefersBorder } : {}),
  };
  return Object.keys(ui).length > 0 ? ui : undefined;
}

/**
 * The `_meta` a tool is listed with for a host that speaks MCP Apps: `ui.resourceUri` (and the deprecated flat
 * key, which hosts built on older helpers still read) and `ui.visibility`; undefined for a tool with neither.
 */
export function toolUiMeta(ui: CompiledToolUi | undefined): Record<string, unknown> | undefined {
  if (!ui || (ui.resourceUri === undefined && ui.visibility === undefined)) return undefined;
  return {
    ui: {
      ...(ui.resourceUri !== undefined ? { resourceUri: ui.resourceUri } : {}),
      ...(ui.visibility !== undefined ? { visibility: ui.visibility } : {}),
    },
    ...(ui.resourceUri !== undefined ? { [DEPRECATED_RESOURCE_URI]: ui.resourceUri } : {}),
  };
}

/**
 * Whether a client declared MCP Apps (`capabilities.extensions["io.modelcontextprotocol/ui"]`), with the HTML
 * profile among its `mimeTypes` (a declaration without the list is taken as the HTML profile, the only one).
 */
export function clientSpeaksApps(capabilities: Readonly<Record<string, unknown>> | undefined): boolean {
  const extensions = capabilities?.extensions;
  if (typeof extensions !== 'object' || extensions === null) return false;
  const ui = (extensions as Record<string, unknown>)[APPS_EXTENSION];
  if (typeof ui !== 'object' || ui === null) return false;
  const types = (ui as { mimeTypes?: unknown }).mimeTypes;
  return !Array.isArray(types) || types.includes(APP_MIME_TYPE);
}

/** Whether a listed tool's `_meta.ui.visibility` (as any server sends it) leaves the model out. */
export function isAppOnly(ui: Readonly<Record<string, unknown>> | undefined): boolean {
  const visibility = ui?.visibility;
  return Array.isArray(visibility) && visibility.length > 0 && !visibility.includes('model');
}
