import { asErrorCode, McpLiteError } from '../../../core/errors.js';
import type { ToolServer } from '../../../core/server.js';
import { errorMessage, isValidId } from '../../common/jsonrpc.js';
import { toMcpError } from '../wire.js';
import {
  DRAFT_NOTIFICATIONS,
  draftError,
  draftInvokeResult,
  draftProgress,
  draftServerCapabilities,
} from './wire.js';

/** What the dialect needs to know of the server: the tools and resources now, to tell a client what changed. */
export interface DraftCatalog {
  tools(): ReadonlyArray<{ name: string; description?: string }>;
  /** The resources' URIs. */
  resources(): readonly string[];
}

/** The catalog a draft client's dialect reads: the server's tools and resource URIs now, on every transport. */
export function draftCatalogOf(server: ToolServer): DraftCatalog {
  return {
    tools: () => server.listTools().tools,
    resources: () => server.resources.list().map((r) => r.uri),
  };
}

/**
 * The binding name (`op.caller.binding`) of an operation from a client speaking `dialect`: `draft` for the draft
 * seed's, on Streamable HTTP and on every connection alike, so that a middleware tells them apart the same way
 * everywhere; `mcp` for MCP's own.
 */
export function bindingOfDialect(dialect: Pick<DraftDialect, 'outbound'> | undefined): 'draft' | 'mcp' {
  return dialect ? 'draft' : 'mcp';
}

/** What to do with an incoming message of a draft client. */
export interface DraftInbound {
  /** The message to hand to the MCP loop (rewritten where the draft differs), if any. */
  message?: unknown;
  /** An answer the dialect gives itself (`shutdown`), to send back as is. */
  reply?: string;
  /** `exit`: close the connection. */
  exit?: boolean;
}

/**
 * Whether an `initialize` is the draft seed's (section 3.1: `mcpVersion` and `clientCapabilities`, no
 * `protocolVersion`): its client gets the draft's shapes for the rest of its connection or session.
 */
export function isDraftInitialize(body: unknown): boolean {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return false;
  const m = body as Record<string, unknown>;
  const params = m.params as Record<string, unknown> | undefined;
  return (
    m.method === 'initialize' &&
    typeof params === 'object' &&
    params !== null &&
    'mcpVersion' in params &&
    'clientCapabilities' in params &&
    !('protocolVersion' in params)
  );
}

/**
 * The draft-seed dialect of one connection or session, as a rewriting of MCP messages both ways: the MCP engine
 * serves it (it reads `mcpVersion`, `clientCapabilities`, `tools/invoke`, `cancel` and `initialized` already) and
 * this turns what it answers into the draft's shapes (`{server, serverCapabilities}`, tools as an array,
 * `{status, output}`, `progress`, `tools/changed`, `resources/changed`, error 4001), answers `shutdown` with null
 * and asks the framing to close on `exit`. It keeps the method of each request in flight (to know how to shape its
 * answer), at most `maxPending` of them, and the tools and resources the client last saw.
 */
export class DraftDialect {
  private readonly pending = new Map<unknown, string>();
  private knownTools = new Map<string, { name: string; description?: string }>();
  private knownResources = new Set<string>();
  private progress = false;

  constructor(
    private readonly catalog: DraftCatalog,
    private readonly maxPending = 1024,
  ) {
    this.snapshot();
  }

  /** Rewrites one incoming message (or batch). */
  inbound(body: unknown): DraftInbound {
    if (Array.isArray(body)) return { message: body.map((m) => this.inbound(m).message ?? m) };
    if (typeof body !== 'object' || body === null) return { message: body };
    const m = body as Record<string, unknown>;
    if (typeof m.method !== 'string') return { message: body };
    if (!('id' in m)) return m.method === 'exit' ? { exit: true } : { message: body };
    if (m.method === 'shutdown') {
      return {
        reply: `{"jsonrpc":"2.0","id":${JSON.stringify(isValidId(m.id) ? m.id : null)},"result":null}`,
      };
    }
    if (this.pending.size >= this.maxPending) {
      const e = new McpLiteError(
        'resource_exhausted',
        `Too many requests in flight (at most ${this.maxPending})`,
      );
      return { reply: errorMessage(isValidId(m.id) ? m.id : null, toMcpError(e, false)) };
    }
    if (isValidId(m.id)) this.pending.set(m.id, m.method);
    const params = m.params as Record<string, unknown> | undefined;
    if (m.method === 'initialize') this.declared(params?.clientCapabilities);
    if (m.method === 'tools/list') this.snapshot();
    if (m.method === 'tools/invoke' && this.progress && typeof params === 'object' && params !== null) {
      const meta = (params._meta ?? {}) as Record<string, unknown>;
      return { message: { ...m, params: { ...params, _meta: { progressToken: m.id, ...meta } } } };
    }
    return { message: body };
  }

  /**
   * Takes what the client declared in its `initialize` (`clientCapabilities`): with `supportsProgress`, a
   * `tools/invoke` gets its id as progress token. A Streamable HTTP session's requests each get a dialect of their
   * own, told what the session's record keeps.
   */
  declared(clientCapabilities: unknown): this {
    const caps = clientCapabilities as Record<string, unknown> | undefined;
    this.progress = caps?.supportsProgress === true;
    return this;
  }

  /** Rewrites one outgoing message (its JSON text) into the draft's shape; what the draft lacks passes unchanged. */
  outbound(text: string): string {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      return text;
    }
    const shaped = Array.isArray(parsed) ? parsed.map((m) => this.shape(m)) : this.shape(parsed);
    return JSON.stringify(shaped);
  }

  private shape(message: unknown): unknown {
    if (typeof message !== 'object' || message === null) return message;
    const m = message as Record<string, unknown>;
    if (typeof m.method === 'string') return 'id' in m ? m : this.notification(m);
    const method = this.pending.get(m.id);
    this.pending.delete(m.id);
    if (m.error) return { ...m, error: draftError(m.error as Record<string, unknown>) };
    const result = m.result as Record<string, unknown>;
    switch (method) {
      case 'initialize':
        return {
          ...m,
          result: {
            server: result.serverInfo,
            serverCapabilities: draftServerCapabilities(result.capabilities as Record<string, unknown>),
          },
        };
      case 'tools/list':
        return { ...m, result: result.tools };
      case 'tools/invoke': {
        // MCP answers a tool execution error (invalid arguments, a failing handler) as an isError result; the
        // draft keeps its error codes for them (4001 for invalid params).
        const toolError = (result._meta as Record<string, unknown> | undefined)?.['mcplite/error'] as
          | { code: string; message?: string; data?: Record<string, unknown> }
          | undefined;
        if (result.isError === true && toolError) {
          const err = new McpLiteError(
            asErrorCode(toolError.code),
            toolError.message ?? 'Error',
            toolError.data,
          );
          return {
            jsonrpc: '2.0',
            id: m.id,
            error: draftError({ ...toMcpError(err, false) }),
          };
        }
        return { ...m, result: draftInvokeResult(result) };
      }
      default:
        return m;
    }
  }

  private notification(m: Record<string, unknown>): Record<string, unknown> {
    const method = DRAFT_NOTIFICATIONS[m.method as string];
    if (!method) return m;
    const params = (m.params ?? {}) as Record<string, unknown>;
    switch (m.method) {
      case 'notifications/progress':
        return { jsonrpc: '2.0', method, params: draftProgress(params) };
      case 'notifications/tools/list_changed': {
        const before = this.knownTools;
        this.snapshot();
        const added = [...this.knownTools.values()].filter((t) => !before.has(t.name));
        const removed = [...before.keys()].filter((name) => !this.knownTools.has(name));
        return { jsonrpc: '2.0', method, params: { added, removed } };
      }
      case 'notifications/resources/list_changed': {
        const before = this.knownResources;
        this.knownResources = new Set(this.catalog.resources());
        const updated = [
          ...[...this.knownResources].filter((uri) => !before.has(uri)),
          ...[...before].filter((uri) => !this.knownResources.has(uri)),
        ];
        return { jsonrpc: '2.0', method, params: { updated } };
      }
      default:
        // notifications/resources/updated
        return { jsonrpc: '2.0', method, params: { updated: [params.uri] } };
    }
  }

  /** Remembers the tools and resources as the client now knows them. */
  private snapshot(): void {
    this.knownTools = new Map(
      this.catalog
        .tools()
        .map((t) => [t.name, { name: t.name, ...(t.description ? { description: t.description } : {}) }]),
    );
    this.knownResources = new Set(this.catalog.resources());
  }
}
