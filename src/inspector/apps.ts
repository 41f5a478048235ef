import { McpLiteError } from '../core/errors.js';
import type { NeutralResponse } from '../core/http.js';
import { randomId } from '../core/random-id.js';
import type { InspectorTarget, RoundOptions } from './target.js';

/**
 * The inspector as an MCP Apps host, server side (docs/inspector.md, "MCP Apps"): reads a tool's `ui://` view
 * through the target, builds the view's Content-Security-Policy from the origins the server declared (and nothing
 * else), and keeps the view for a moment so that a sandboxed iframe can load it from `view/<id>` with that policy
 * as an HTTP header. A header, unlike a `srcdoc` or blob document (which inherit the page's policy) or a `<meta>`
 * tag, is one no byte of the view can loosen.
 */

/** The media type of an MCP Apps view (SEP-1865). */
export const VIEW_MIME_TYPE = 'text/html;profile=mcp-app';

/** Bounds of the views the inspector keeps for their iframe. */
export interface ViewLimits {
  /** Views kept at once; the oldest goes first. Default 16 (the page shows one at a time). */
  maxViews?: number;
  /** Largest view document, in bytes. Default 4 MiB. */
  maxViewBytes?: number;
  /** How long a view stays loadable, in ms. Default 30 minutes. */
  viewTtlMs?: number;
}

/** The CSP domain lists of `_meta.ui.csp`, as accepted: origins only. */
export interface ViewCsp {
  connectDomains: string[];
  resourceDomains: string[];
  frameDomains: string[];
  baseUriDomains: string[];
}

/** What the page gets for a view it asked for. */
export interface PreparedView {
  /** Where the iframe loads it from, relative to the page. */
  path: string;
  /** The policy sent with it. */
  csp: string;
  /** The declared domains kept, by list. */
  approved: ViewCsp;
  /** Declared entries that are not plain origins, dropped (shown to the user: the audit trail). */
  dropped: string[];
  /** The iframe's `allow` attribute, from `_meta.ui.permissions`. */
  allow: string;
  /** `_meta.ui.permissions` as granted (the keys mapped to `allow`). */
  permissions: Record<string, Record<string, never>>;
  /** `_meta.ui.prefersBorder`, when declared. */
  prefersBorder?: boolean;
}

interface Kept {
  html: string;
  csp: string;
  expires: number;
}

const CSP_LISTS = ['connectDomains', 'resourceDomains', 'frameDomains', 'baseUriDomains'] as const;
const MAX_DOMAINS = 32;
const MAX_URI = 2048;
// scheme://host[:port], the host a DNS name (optionally `*.` for any subdomain, as the spec allows), an IPv4
// address or a bracketed IPv6 one. No path, query, quote, space or semicolon: nothing that could end a directive.
const ORIGIN =
  /^(?:https?|wss?):\/\/(?:(?:\*\.)?[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*|\[[0-9a-f:.]{2,45}\])(?::\d{1,5})?$/i;
const PERMISSIONS: Readonly<Record<string, string>> = {
  camera: 'camera',
  microphone: 'microphone',
  geolocation: 'geolocation',
  clipboardWrite: 'clipboard-write',
};

/** Whether `value` is a plain origin a CSP source list may hold. */
export function isCspOrigin(value: unknown): value is string {
  return typeof value === 'string' && value.length <= 260 && ORIGIN.test(value);
}

/**
 * The declared domains, origins only: anything else (a path, a keyword, `https://x; script-src *`) is dropped and
 * reported, so a server cannot write its own directives into the host's policy.
 */
export function acceptCsp(declared: unknown): { approved: ViewCsp; dropped: string[] } {
  const approved: ViewCsp = { connectDomains: [], resourceDomains: [], frameDomains: [], baseUriDomains: [] };
  const dropped: string[] = [];
  const lists = isRecord(declared) ? declared : {};
  for (const key of CSP_LISTS) {
    const list = Array.isArray(lists[key]) ? (lists[key] as unknown[]) : [];
    for (const entry of list.slice(0, MAX_DOMAINS)) {
      if (isCspOrigin(entry)) approved[key].push(entry.toLowerCase());
      else dropped.push(String(entry).slice(0, 200));
    }
    if (list.length > MAX_DOMAINS) dropped.push(`${key}: ${list.length - MAX_DOMAINS} more`);
  }
  return { approved, dropped };
}

/**
 * The view's policy: the spec's restrictive default, widened by the approved origins of each list. `connect-src`
 * leaves out `'self'` (the spec's example has it): the view's `'self'` is the inspector, which it has no business
 * calling (the host MAY restrict further).
 */
export function viewCsp(csp: ViewCsp): string {
  const res = csp.resourceDomains.join(' ');
  const with_ = (base: string, extra: string) => (extra ? `${base} ${extra}` : base);
  return [
    "default-src 'none'",
    `script-src ${with_("'self' 'unsafe-inline'", res)}`,
    `style-src ${with_("'self' 'unsafe-inline'", res)}`,
    `img-src ${with_("'self' data:", res)}`,
    `font-src ${with_("'self'", res)}`,
    `media-src ${with_("'self' data:", res)}`,
    `connect-src ${csp.connectDomains.join(' ') || "'none'"}`,
    `frame-src ${csp.frameDomains.join(' ') || "'none'"}`,
    "object-src 'none'",
    `base-uri ${csp.baseUriDomains.join(' ') || "'self'"}`,
    // Only the inspector page may frame it.
    "frame-ancestors 'self'",
  ].join('; ');
}

/** The views read for the page, kept until their iframe loads them (and reloads, within the TTL). */
export class ViewStore {
  private readonly views = new Map<string, Kept>();
  private readonly max: number;
  private readonly maxBytes: number;
  private readonly ttlMs: number;

  constructor(
    private readonly target: InspectorTarget,
    limits: ViewLimits = {},
  ) {
    this.max = limits.maxViews ?? 16;
    this.maxBytes = limits.maxViewBytes ?? 4 * 1024 * 1024;
    this.ttlMs = limits.viewTtlMs ?? 30 * 60_000;
  }

  /** `{ uri }`: reads the `ui://` resource, checks it is a view, keeps it; answers where and how it is served. */
  async prepare(uri: unknown, options: RoundOptions): Promise<PreparedView> {
    const wanted = uiUri(uri);
    const contents = await this.read(wanted, options);
    const content = contents.find((c) => isRecord(c) && c.uri === wanted) ?? contents[0];
    if (!isRecord(content))
      throw new McpLiteError('invalid_params', `The server sent no contents for ${wanted}`);
    const mime =
      typeof content.mimeType === 'string' ? content.mimeType.replace(/\s+/g, '').toLowerCase() : '';
    if (mime !== VIEW_MIME_TYPE) {
      throw new McpLiteError(
        'invalid_params',
        `${wanted} is not an MCP Apps view: its mimeType is ${JSON.stringify(content.mimeType)}, not ${VIEW_MIME_TYPE}`,
      );
    }
    const html = this.document(content);
    const meta = isRecord(content._meta) && isRecord(content._meta.ui) ? content._meta.ui : {};
    const { approved, dropped } = acceptCsp(meta.csp);
    const csp = viewCsp(approved);
    const granted = isRecord(meta.permissions) ? meta.permissions : {};
    const permissions = Object.fromEntries(
      Object.keys(PERMISSIONS)
        .filter((k) => granted[k] !== undefined)
        .map((k) => [k, {}]),
    ) as Record<string, Record<string, never>>;
    const id = this.keep(html, csp);
    return {
      path: `view/${id}`,
      csp,
      approved,
      dropped,
      allow: Object.keys(permissions)
        .map((k) => PERMISSIONS[k])
        .join('; '),
      permissions,
      ...(typeof meta.prefersBorder === 'boolean' ? { prefersBorder: meta.prefersBorder } : {}),
    };
  }

  /** `{ uri }` from a view: the resource's contents, as the view's `resources/read` answers them. */
  async readForView(uri: unknown, options: RoundOptions): Promise<{ contents: unknown[] }> {
    if (typeof uri !== 'string' || uri.length === 0 || uri.length > MAX_URI) {
      throw new McpLiteError('invalid_params', `"uri" must be a string of 1 to ${MAX_URI} characters`);
    }
    return { contents: await this.read(uri, options) };
  }

  /** The view document of `view/<id>`, with its policy; undefined when unknown or expired. */
  serve(id: string): NeutralResponse | undefined {
    this.sweep();
    const kept = this.views.get(id);
    if (!kept) return undefined;
    return {
      status: 200,
      headers: {
        'content-type': 'text/html; charset=utf-8',
        'content-security-policy': kept.csp,
        'cache-control': 'no-store',
        'x-content-type-options': 'nosniff',
        'referrer-policy': 'no-referrer',
      },
      body: kept.html,
    };
  }

  private async read(uri: string, options: RoundOptions): Promise<unknown[]> {
    if (!this.target.readResource) {
      throw new McpLiteError(
        'method_not_found',
        `The ${this.target.binding} binding carries no resources, so no MCP Apps view can be read through it: ` +
          "inspect the server's MCP endpoint (mcplite inspect http://host:port/mcp) to render its views",
      );
    }
    return this.target.readResource(uri, options);
  }

  private document(content: Record<string, unknown>): string {
    const tooLarge = () =>
      new McpLiteError('payload_too_large', `The view is larger than ${this.maxBytes} bytes`);
    let html: string;
    if (typeof content.text === 'string') html = content.text;
    else if (typeof content.blob === 'string') {
      // Base64 takes four characters for three bytes: a longer blob is too large before it is decoded.
      if (content.blob.length > Math.ceil(this.maxBytes / 3) * 4) throw tooLarge();
      html = Buffer.from(content.blob, 'base64').toString('utf8');
    } else throw new McpLiteError('invalid_params', 'The view has neither text nor blob');
    if (Buffer.byteLength(html) > this.maxBytes) throw tooLarge();
    return html;
  }

  private keep(html: string, csp: string): string {
    this.sweep();
    while (this.views.size >= this.max) this.views.delete(this.views.keys().next().value as string);
    const id = randomId(16, 'base64url');
    this.views.set(id, { html, csp, expires: Date.now() + this.ttlMs });
    return id;
  }

  private sweep(): void {
    const now = Date.now();
    for (const [id, v] of this.views) if (v.expires <= now) this.views.delete(id);
  }
}

function uiUri(uri: unknown): string {
  if (typeof uri !== 'string' || !uri.startsWith('ui://') || uri.length > MAX_URI) {
    throw new McpLiteError('invalid_params', `"uri" must be a ui:// URI of at most ${MAX_URI} characters`);
  }
  return uri;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
