import type { Principal } from './auth.js';
import { toBase64 } from './base64.js';
import type { ContentAnnotations, ResourceContents } from './content.js';
import { McpLiteError } from './errors.js';
import type { CallerSource } from './operation-caller.js';

/** What a resource reader gets besides the URI. */
export interface ResourceContext {
  /** Aborts when the client goes away or cancels. */
  readonly signal: AbortSignal;
  /** The caller, when an authentication hook is configured. */
  readonly principal: Principal | undefined;
  /** Who reads (the binding's request), for readers that decide by the caller as tools do (a tool's view). */
  readonly caller?: CallerSource | undefined;
}

/**
 * What a reader may return: a string (text), bytes (sent base64), one contents object or several. Strings and
 * bytes get the resource's URI and media type.
 */
export type ResourceReadValue = string | Uint8Array | ResourceContents | ResourceContents[];

/** What describes a resource or a resource template in a listing (the fields both share). */
export interface ResourceDescription {
  /** Short name. */
  name: string;
  /** Optional display title. */
  title?: string;
  /** What it holds, for people and models. */
  description?: string;
  /** Media type of its contents. */
  mimeType?: string;
  /** Optional hints (audience, priority, lastModified). */
  annotations?: ContentAnnotations;
}

/** A resource as listed on the wire. */
export interface WireResource extends ResourceDescription {
  /** The URI that names it (any scheme: `file://`, `db://`, `test://`…). */
  uri: string;
  /** Size in bytes, when known. */
  size?: number;
}

/** A resource template as listed on the wire. */
export interface WireResourceTemplate extends ResourceDescription {
  /** E.g. `file:///{path}` or `test://template/{id}/data`. */
  uriTemplate: string;
}

/** A resource at a fixed URI, defined once for every binding. */
export interface ResourceDefinition extends WireResource {
  /** Reads the contents. */
  read: (ctx: ResourceContext) => ResourceReadValue | Promise<ResourceReadValue>;
}

/** Suggests values for one template variable (completion), given what the user typed so far. */
export type Completer = (
  value: string,
  context: { arguments: Record<string, string> },
) => string[] | Promise<string[]>;

/** A family of resources whose URIs follow an RFC 6570 template (`{var}` and `{+var}` expansions). */
export interface ResourceTemplateDefinition extends WireResourceTemplate {
  /** Reads the resource at `uri`; `variables` are the template's values taken from it. */
  read: (
    uri: string,
    variables: Record<string, string>,
    ctx: ResourceContext,
  ) => ResourceReadValue | Promise<ResourceReadValue>;
  /** Completion of the template's variables, by variable name. */
  complete?: Record<string, Completer>;
}

interface CompiledTemplate {
  definition: ResourceTemplateDefinition;
  wire: WireResourceTemplate;
  pattern: RegExp;
  names: string[];
}

/**
 * The versioned set of resources and templates. Listings are built once per version; a change tells listeners
 * (list_changed notifications), and `updated(uri)` tells subscribers that one resource changed.
 */
export class ResourceCatalog {
  private readonly fixed = new Map<string, { definition: ResourceDefinition; wire: WireResource }>();
  private readonly templateList: CompiledTemplate[] = [];
  private readonly changeListeners = new Set<() => void>();
  private readonly updateListeners = new Set<(uri: string) => void>();
  private cachedList: WireResource[] | undefined;
  private cachedTemplates: WireResourceTemplate[] | undefined;

  constructor(
    resources: readonly ResourceDefinition[] = [],
    templates: readonly ResourceTemplateDefinition[] = [],
  ) {
    for (const r of resources) this.insert(r);
    for (const t of templates) this.insertTemplate(t);
  }

  /** Whether there is anything to list or read. */
  get empty(): boolean {
    return this.fixed.size === 0 && this.templateList.length === 0;
  }

  /** Adds a resource (tells list listeners). */
  add(definition: ResourceDefinition): void {
    this.insert(definition);
    this.changed();
  }

  /** Adds a template (tells list listeners). */
  addTemplate(definition: ResourceTemplateDefinition): void {
    this.insertTemplate(definition);
    this.changed();
  }

  /** Removes a resource; returns whether it was there. */
  remove(uri: string): boolean {
    const removed = this.fixed.delete(uri);
    if (removed) this.changed();
    return removed;
  }

  /** Removes a template (what a gateway does when its upstream stops serving it); returns whether it was there. */
  removeTemplate(uriTemplate: string): boolean {
    const at = this.templateList.findIndex((t) => t.wire.uriTemplate === uriTemplate);
    if (at < 0) return false;
    this.templateList.splice(at, 1);
    this.changed();
    return true;
  }

  /** The fixed resources, in definition order. */
  list(): readonly WireResource[] {
    this.cachedList ??= [...this.fixed.values()].map((r) => r.wire);
    return this.cachedList;
  }

  /** The templates, in definition order. */
  templates(): readonly WireResourceTemplate[] {
    this.cachedTemplates ??= this.templateList.map((t) => t.wire);
    return this.cachedTemplates;
  }

  /**
   * What `uri` goes by where names must come from the server (span names): itself for a fixed resource, the
   * template it matches, undefined for neither.
   */
  nameOf(uri: string): string | undefined {
    if (this.fixed.has(uri)) return uri;
    return this.templateList.find((t) => t.pattern.test(uri))?.wire.uriTemplate;
  }

  /** Whether `uri` names a fixed resource or matches a template. */
  has(uri: string): boolean {
    return this.fixed.has(uri) || this.templateList.some((t) => t.pattern.test(uri));
  }

  /** Reads a resource; unknown URIs reject with `resource_not_found`. */
  async read(uri: unknown, ctx: ResourceContext): Promise<ResourceContents[]> {
    if (typeof uri !== 'string' || uri.length === 0) {
      throw new McpLiteError('invalid_params', 'Invalid params: "uri" must be a non-empty string');
    }
    const fixed = this.fixed.get(uri);
    if (fixed) return normalise(await fixed.definition.read(ctx), uri, fixed.definition.mimeType);
    for (const t of this.templateList) {
      const m = t.pattern.exec(uri);
      if (!m) continue;
      const variables: Record<string, string> = {};
      t.names.forEach((name, i) => {
        variables[name] = safeDecode(m[i + 1] ?? '');
      });
      return normalise(await t.definition.read(uri, variables, ctx), uri, t.definition.mimeType);
    }
    throw new McpLiteError('resource_not_found', `Resource not found: ${uri}`, { uri });
  }

  /** Completion values for a template variable; empty when the template has no completer for it. */
  async complete(
    uriTemplate: string,
    argument: string,
    value: string,
    args: Record<string, string>,
  ): Promise<string[]> {
    const t = this.templateList.find((x) => x.wire.uriTemplate === uriTemplate);
    const completer = t?.definition.complete?.[argument];
    return completer ? completer(value, { arguments: args }) : [];
  }

  /** Says that the contents at `uri` changed (subscribers get notifications/resources/updated). */
  updated(uri: string): void {
    for (const l of this.updateListeners) l(uri);
  }

  /** Calls `listener` after the list changes; returns an unsubscribe function. */
  onChange(listener: () => void): () => void {
    this.changeListeners.add(listener);
    return () => this.changeListeners.delete(listener);
  }

  /** Calls `listener` with the URI of every updated resource; returns an unsubscribe function. */
  onUpdate(listener: (uri: string) => void): () => void {
    this.updateListeners.add(listener);
    return () => this.updateListeners.delete(listener);
  }

  private changed(): void {
    this.cachedList = undefined;
    this.cachedTemplates = undefined;
    for (const l of this.changeListeners) l();
  }

  private insert(d: ResourceDefinition): void {
    if (typeof d.uri !== 'string' || d.uri.length === 0)
      throw new McpLiteError('invalid_request', 'A resource needs a uri');
    if (this.fixed.has(d.uri)) throw new McpLiteError('invalid_request', `Duplicate resource uri "${d.uri}"`);
    if (typeof d.read !== 'function')
      throw new McpLiteError('invalid_request', `Resource "${d.uri}" has no read function`);
    const { read: _r, ...wire } = d;
    this.fixed.set(d.uri, { definition: d, wire: dropUndefined(wire) });
  }

  private insertTemplate(d: ResourceTemplateDefinition): void {
    if (typeof d.read !== 'function') {
      throw new McpLiteError('invalid_request', `Resource template "${d.uriTemplate}" has no read function`);
    }
    const { pattern, names } = compileTemplate(d.uriTemplate);
    const { read: _r, complete: _c, ...wire } = d;
    this.templateList.push({ definition: d, wire: dropUndefined(wire), pattern, names });
  }
}

/** Turns an RFC 6570 template (simple `{a}` and reserved `{+a}` expressions) into a matcher. */
export function compileTemplate(template: string): { pattern: RegExp; names: string[] } {
  const names: string[] = [];
  let source = '^';
  let last = 0;
  for (const m of template.matchAll(/\{([+#]?)([A-Za-z0-9_.,]+)\}/g)) {
    source += escapeRegExp(template.slice(last, m.index));
    for (const name of m[2]!.split(',')) names.push(name);
    const part = m[1] === '' ? '([^/?#]+)' : '(.+)';
    source += m[2]!.includes(',')
      ? m[2]!
          .split(',')
          .map(() => part)
          .join(',')
      : part;
    last = m.index! + m[0].length;
  }
  source += `${escapeRegExp(template.slice(last))}$`;
  return { pattern: new RegExp(source), names };
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

function dropUndefined<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}

function normalise(value: ResourceReadValue, uri: string, mimeType: string | undefined): ResourceContents[] {
  const mime = mimeType ? { mimeType } : {};
  if (typeof value === 'string') return [{ uri, ...mime, text: value }];
  if (value instanceof Uint8Array) return [{ uri, ...mime, blob: toBase64(value) }];
  if (Array.isArray(value)) return value;
  return [value];
}
