import { McpLiteError } from '../core/errors.js';
import type { Logger } from '../core/logger.js';
import type { ToolServer } from '../core/server.js';
import type { ToolDefinition } from '../core/tool.js';
import { reconcile } from './reconcile.js';
import { schemaProblem } from './servable.js';
import type { SourceExtras, ToolSource } from './source.js';
import type { UpstreamStatus } from './upstream.js';

/** Options of `Gateway`. */
export interface GatewayServeOptions {
  /** Where refused tools, failed listings and retries are told (default: the server's logger). */
  logger?: Logger;
  /** The wait before listing a source again after a failed listing, doubled each time (default 200 ms). */
  minBackoffMs?: number;
  /** The longest such wait (default 30 000 ms). */
  maxBackoffMs?: number;
  /**
   * Most listings of one source started within any `relistWindowMs` (default 2): counted, so that an upstream
   * flooding `list_changed` costs at most this many listings per window, not a busy loop. A change past it is
   * listed once the window has room (the changes meanwhile are folded into that one listing).
   */
  maxRelists?: number;
  /** The window of `maxRelists` (default 1000 ms). */
  relistWindowMs?: number;
}

/** One source's part of the catalog. */
interface Served {
  source: ToolSource;
  /** The names it holds in the catalog now. */
  names: Set<string>;
  /** The definitions behind them, to tell a changed tool from an unchanged one. */
  wire: Map<string, string>;
  /** The listing in progress (one at a time), and whether another was asked for meanwhile. */
  syncing: Promise<void> | undefined;
  again: boolean;
  retry: NodeJS.Timeout | undefined;
  /** A failed listing is not retried (a strict `add`'s first: its caller gives up instead). */
  noRetry: boolean;
  failures: number;
  /** When its listings in the current window started (at most `maxRelists`). */
  listings: number[];
  /** Names already refused (logged once, not at every listing). */
  refused: Set<string>;
  /** Its resources (by URI), resource templates (by URI template) and prompts (by name) in the catalogs now. */
  resources: Map<string, string>;
  templates: Map<string, string>;
  prompts: Map<string, string>;
}

/**
 * Many servers behind one ToolServer: each source's tools (and resources, templates and prompts, for sources that
 * list them) go into the server's catalogs and follow it (a
 * `list_changed` upstream, a restarted upstream back), so connected clients are told of each change through the
 * catalog's own notifications. A source whose listing fails keeps the tools it had (their calls fail fast with
 * `unavailable` naming it) and is listed again with backoff; the others are never touched.
 */
export class Gateway {
  private readonly served = new Map<string, Served>();
  private readonly logger: Logger;
  private closed = false;

  constructor(
    private readonly server: ToolServer,
    private readonly options: GatewayServeOptions = {},
  ) {
    this.logger = options.logger ?? server.logger;
  }

  /**
   * Adds a source under `name` (unique) and lists it; resolves once its first listing succeeded, or failed (then
   * it is listed again with backoff; `strict` rejects with the failure instead, and announces no retry).
   */
  async add(name: string, source: ToolSource, strict = false): Promise<void> {
    if (this.served.has(name)) throw new McpLiteError('config_invalid', `Duplicate server name "${name}"`);
    const entry: Served = {
      source,
      names: new Set(),
      wire: new Map(),
      syncing: undefined,
      again: false,
      retry: undefined,
      noRetry: strict,
      failures: 0,
      listings: [],
      refused: new Set(),
      resources: new Map(),
      templates: new Map(),
      prompts: new Map(),
    };
    this.served.set(name, entry);
    source.onChange(() => void this.sync(name).catch(() => {}));
    try {
      await this.sync(name);
    } catch (err) {
      if (strict) throw err;
    } finally {
      entry.noRetry = false;
    }
  }

  /** The tool names each server holds in the catalog now. */
  toolsOf(name: string): string[] {
    return [...(this.served.get(name)?.names ?? [])];
  }

  /** Each server's connection state (sources without one count as up). */
  statuses(): Record<string, UpstreamStatus | { state: 'up' | 'listing'; upstream: string }> {
    const out: Record<string, UpstreamStatus | { state: 'up' | 'listing'; upstream: string }> = {};
    for (const [name, s] of this.served) {
      out[name] = s.source.status() ?? {
        state: s.failures > 0 ? 'listing' : 'up',
        upstream: s.source.label,
      };
    }
    return out;
  }

  /**
   * For `/readyz`: rejects only when no server is up, since a replica that serves some tools is still worth
   * sending calls to (a server that is down costs only its own tools).
   */
  async readiness(): Promise<void> {
    const states = Object.values(this.statuses());
    if (states.length === 0 || states.some((s) => s.state === 'up')) return;
    throw new Error(`every upstream is down: ${states.map((s) => s.upstream).join(', ')}`.slice(0, 200));
  }

  /** Stops listing and closes every source. */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(
      [...this.served.values()].map(async (s) => {
        clearTimeout(s.retry);
        await s.source.close().catch(() => {});
      }),
    );
  }

  /** Lists one source and brings the catalog in line; one listing at a time, a change meanwhile lists again. */
  private sync(name: string): Promise<void> {
    const entry = this.served.get(name)!;
    if (entry.syncing) {
      entry.again = true;
      return entry.syncing;
    }
    entry.syncing = (async () => {
      try {
        for (let first = true; first || entry.again; first = false) {
          await this.slot(entry);
          if (this.closed) return;
          entry.again = false;
          const tools = await entry.source.list();
          if (this.closed) return;
          this.apply(name, entry, tools);
          const extras = await entry.source.listExtras?.();
          if (this.closed) return;
          if (extras) this.applyExtras(name, entry, extras);
          entry.failures = 0;
        }
      } catch (err) {
        entry.failures++;
        if (!entry.noRetry) this.scheduleRetry(name, entry, err);
        throw err;
      } finally {
        entry.syncing = undefined;
      }
    })();
    return entry.syncing;
  }

  /** Waits until fewer than `maxRelists` listings of the source started within the window, and counts this one. */
  private async slot(entry: Served): Promise<void> {
    const max = this.options.maxRelists ?? 2;
    const window = this.options.relistWindowMs ?? 1000;
    for (;;) {
      const now = Date.now();
      while (entry.listings.length > 0 && entry.listings[0]! <= now - window) entry.listings.shift();
      if (entry.listings.length < max) {
        entry.listings.push(now);
        return;
      }
      await sleep(entry.listings[0]! + window - now);
      if (this.closed) return;
    }
  }

  private scheduleRetry(name: string, entry: Served, err: unknown): void {
    if (this.closed || entry.retry) return;
    const min = this.options.minBackoffMs ?? 200;
    const max = this.options.maxBackoffMs ?? 30_000;
    const delay = Math.min(max, min * 2 ** Math.min(entry.failures - 1, 30));
    this.logger.warn(
      { server: name, upstream: entry.source.label, error: messageOf(err), retryInMs: delay },
      'upstream tools not listed',
    );
    entry.retry = setTimeout(() => {
      entry.retry = undefined;
      void this.sync(name).catch(() => {});
    }, delay);
    entry.retry.unref();
  }

  /** Removes the tools it no longer lists, replaces those that changed, adds the new ones (refusals logged). */
  private apply(name: string, entry: Served, tools: ToolDefinition[]): void {
    const catalog = this.server.catalog;
    const next = new Map<string, string>();
    const refuse = (tool: string, reason: string) => {
      if (entry.refused.has(tool)) return;
      entry.refused.add(tool);
      this.logger.warn({ server: name, tool, reason }, 'upstream tool refused');
    };
    // One tool mcplite cannot serve is left out, named; the others are served.
    const servable = tools.filter((tool) => {
      const problem = schemaProblem(tool);
      if (problem) refuse(tool.name, problem);
      else next.set(tool.name, fingerprint(tool));
      return !problem;
    });
    for (const old of entry.names) {
      if (next.get(old) === entry.wire.get(old)) continue;
      catalog.remove(old);
      entry.names.delete(old);
      entry.wire.delete(old);
    }
    for (const tool of servable) {
      if (entry.names.has(tool.name)) continue;
      try {
        catalog.add(tool);
        entry.names.add(tool.name);
        entry.wire.set(tool.name, next.get(tool.name)!);
      } catch (err) {
        refuse(tool.name, messageOf(err));
      }
    }
  }

  /** The same for its resources, templates and prompts (a name another server holds is refused, logged once). */
  private applyExtras(name: string, entry: Served, extras: SourceExtras): void {
    const { resources, prompts } = this.server;
    const refuse = (key: string, err: unknown) => {
      if (entry.refused.has(key)) return;
      entry.refused.add(key);
      this.logger.warn(
        { server: name, entry: key, reason: messageOf(err) },
        'upstream resource or prompt refused',
      );
    };
    reconcile(
      entry.resources,
      extras.resources,
      { key: (r) => r.uri, add: (r) => resources.add(r), remove: (uri) => resources.remove(uri) },
      refuse,
    );
    reconcile(
      entry.templates,
      extras.resourceTemplates,
      {
        key: (t) => t.uriTemplate,
        add: (t) => {
          if (resources.templates().some((held) => held.uriTemplate === t.uriTemplate))
            throw new Error(`Duplicate resource template "${t.uriTemplate}"`);
          resources.addTemplate(t);
        },
        remove: (uriTemplate) => resources.removeTemplate(uriTemplate),
      },
      refuse,
    );
    reconcile(
      entry.prompts,
      extras.prompts,
      { key: (p) => p.name, add: (p) => prompts.add(p), remove: (n) => prompts.remove(n) },
      refuse,
    );
  }
}

/** What a client sees of a tool: a change here is a change of the catalog. */
function fingerprint(tool: ToolDefinition): string {
  const { handler: _handler, ...rest } = tool;
  return JSON.stringify(rest);
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}

function messageOf(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  return (message.split('\n')[0] ?? '').slice(0, 200);
}
