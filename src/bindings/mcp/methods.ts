import { clientSpeaksApps } from '../../core/apps/ui.js';
import { McpLiteError } from '../../core/errors.js';
import { type MaybePromise, mapMaybe } from '../../core/maybe-promise.js';
import type { ToolServer } from '../../core/server.js';
import type { WireTool } from '../../core/tool.js';
import { completeArgument } from '../common/completion.js';
import { echoName } from '../common/echo.js';
import { isObject, type JsonRpcId, type JsonRpcRequest } from '../common/jsonrpc.js';
import { resourcesFor, withAppsCapability, withToolUi } from './apps.js';
import { paginate } from './cursor.js';
import type { Exchange } from './exchange.js';
import { Flights } from './flights.js';
import { HANDSHAKE_TASKS_REVISION, HandshakeTasks } from './handshake-tasks.js';
import { LOG_LEVELS } from './log-levels.js';
import { type McpNativePrompt, type McpNativeTool, nativeContext } from './native.js';
import { META, negotiateHandshake, STATELESS_REVISION } from './revisions.js';
import { SKILL_METHODS, skillMethod, skillsCapability } from './skills.js';
import type { TaskOptions, TaskRegistry } from './tasks.js';
import { ToolCalls } from './tool-call.js';
import { toMcpTool } from './wire.js';

/** Options of the engine (and of the tasks extension: its bounds, and the tools that need it). */
export interface EngineOptions extends TaskOptions {
  /** Most items per page of the list methods. Default 100. */
  pageSize?: number;
  /** `ttlMs` on cacheable results of the stateless revision. Default 0 (re-fetch every time). */
  cacheTtlMs?: number;
  /** Free-text guidance returned by `initialize` and `server/discover`. */
  instructions?: string;
  /**
   * Tools written against the MCP wire itself, for what core has no concept of yet (sampling, roots, several
   * input requests in one round). Listed after the core tools on the MCP binding only.
   */
  nativeTools?: readonly McpNativeTool[];
  /** Prompts written against the MCP wire (e.g. a `prompts/get` that answers `input_required`). */
  nativePrompts?: readonly McpNativePrompt[];
  /**
   * The engine of the server's other MCP transports, to share rather than build one from these options: one
   * server, one set of MCP methods, whichever transport a request came by (`serve` passes the Streamable HTTP
   * binding's to WebSocket and legacy SSE).
   */
  engine?: McpEngine;
}

/** Methods the stateless revision removed (answered 404 / -32601 there). */
const REMOVED_IN_STATELESS = new Set([
  'initialize',
  'ping',
  'logging/setLevel',
  'resources/subscribe',
  'resources/unsubscribe',
  'notifications/initialized',
]);
/** Results that carry caching hints on the stateless revision. */
const CACHEABLE = new Set([
  'server/discover',
  'tools/list',
  'prompts/list',
  'resources/list',
  'resources/templates/list',
  'resources/read',
  'skills/list',
  'skills/get',
  'resources/directory/read',
]);

/** A tool that may run as a 2025-11-25 task or answer in its call. */
const TASK_EXECUTION = Object.freeze({ taskSupport: 'optional' });
/** A tool that runs only as a 2025-11-25 task (the binding's `tasksRequired`). */
const TASK_REQUIRED_EXECUTION = Object.freeze({ taskSupport: 'required' });

/** What `initialize` settled: the revision, what the client declared, and the result to send. */
export interface Initialized {
  revision: string;
  clientCapabilities: Record<string, unknown>;
  clientInfo: unknown;
  result: Record<string, unknown>;
}

/**
 * The MCP methods over one tool server, transport-neutral: one request and its exchange in, one result out (or an
 * error thrown). The JSON-RPC loop (`loop.ts`) feeds it; `tools/call` runs in `tool-call.ts`, the tasks methods in
 * `tasks.ts`.
 */
export class McpEngine {
  private readonly pageSize: number;
  private readonly cacheTtlMs: number;
  private readonly instructions: string | undefined;
  private readonly flights = new Flights();
  private readonly native = new Map<string, McpNativeTool>();
  private readonly nativePrompts = new Map<string, McpNativePrompt>();
  private readonly toolCalls: ToolCalls;
  /** The 2025-11-25 revision's experimental tasks, when promises are on. */
  private readonly handshakeTasks: HandshakeTasks | undefined;
  /**
   * The listing as sent, by what it carries: the 2025-11-25 tasks' `execution`, and MCP Apps' views and app-only
   * tools (one entry per combination, keyed `tasks|apps`).
   */
  private readonly toolsCache = new Map<string, { version: number; tools: Record<string, unknown>[] }>();

  constructor(
    readonly server: ToolServer,
    options: EngineOptions = {},
    /** The tasks extension, when promises are on (see `taskRegistryFor`). */
    private readonly tasks?: TaskRegistry,
  ) {
    this.pageSize = options.pageSize ?? 100;
    this.cacheTtlMs = options.cacheTtlMs ?? 0;
    this.instructions = options.instructions;
    for (const t of options.nativeTools ?? []) this.native.set(t.tool.name, t);
    for (const p of options.nativePrompts ?? []) this.nativePrompts.set(p.prompt.name, p);
    this.handshakeTasks =
      server.promisesEnabled && tasks ? new HandshakeTasks(server, tasks, this.pageSize) : undefined;
    this.toolCalls = new ToolCalls(server, this.native, this.flights, tasks, this.handshakeTasks);
  }

  /** The server's capabilities (what it implements; the same on every revision apart from extensions). */
  capabilities(stateless: boolean): Record<string, unknown> {
    const caps: Record<string, unknown> = { tools: { listChanged: true }, logging: {}, completions: {} };
    if (!this.server.resources.empty) caps.resources = { subscribe: true, listChanged: true };
    if (!this.server.prompts.empty || this.nativePrompts.size > 0) caps.prompts = { listChanged: true };
    if (stateless && this.tasks) caps.extensions = { 'io.modelcontextprotocol/tasks': {} };
    const skills = skillsCapability(this.server);
    if (skills) caps.extensions = { ...(caps.extensions as object | undefined), ...skills };
    return withAppsCapability(caps);
  }

  /** `initialize`: negotiates the revision (the draft's `mcpVersion` is read too). */
  initialize(params: Record<string, unknown>): Initialized {
    const requested = params.protocolVersion ?? params.mcpVersion;
    const revision = negotiateHandshake(requested);
    const caps = params.capabilities ?? params.clientCapabilities;
    const clientCapabilities = isObject(caps) ? caps : {};
    const capabilities = this.capabilities(false);
    if (this.handshakeTasks && revision >= HANDSHAKE_TASKS_REVISION)
      capabilities.tasks = HandshakeTasks.capability();
    const result: Record<string, unknown> = {
      protocolVersion: revision,
      capabilities,
      serverInfo: { name: this.server.name, version: this.server.version },
      ...(this.instructions ? { instructions: this.instructions } : {}),
    };
    return { revision, clientCapabilities, clientInfo: params.clientInfo, result };
  }

  /**
   * Runs one request: its result object, or a thrown McpLiteError. A tools/call whose tool
   * answers synchronously is answered synchronously (errors found at once are thrown), since every promise turn
   * costs each call; anything else resolves or rejects later.
   */
  handle(m: JsonRpcRequest, x: Exchange): MaybePromise<Record<string, unknown>> {
    const result =
      m.method === 'tools/call' || m.method === 'tools/invoke'
        ? this.toolCalls.call(m, x)
        : this.dispatch(m, x);
    return x.stateless ? mapMaybe(result, (r) => this.statelessResult(m, r)) : result;
  }

  /** Handles a notification (no answer). */
  notification(m: JsonRpcRequest, x: Pick<Exchange, 'session' | 'principal'>): void {
    const params = isObject(m.params) ? m.params : {};
    switch (m.method) {
      case 'notifications/initialized':
      case 'initialized':
        // Kept in the store (any replica may serve the session next); a store that fails costs list_changed.
        x.session
          ?.markInitialized()
          .catch((err) =>
            this.server.logger.warn({ err: String(err) }, 'could not mark a session initialized'),
          );
        return;
      case 'notifications/cancelled':
      case 'cancel': {
        const id = params.requestId ?? params.id;
        if (id !== undefined) this.flights.cancel(x, id as JsonRpcId, params.reason);
        return;
      }
      default:
      // notifications/progress, notifications/roots/list_changed and unknown notifications need nothing.
    }
  }

  /** The stateless revision's additions to a result: its type and, for listings and reads, caching hints. */
  private statelessResult(m: JsonRpcRequest, result: Record<string, unknown>): Record<string, unknown> {
    if (result.resultType === undefined) result.resultType = 'complete';
    if (CACHEABLE.has(m.method)) {
      result.ttlMs ??= this.cacheTtlMs;
      result.cacheScope ??= this.server.authenticate ? 'private' : 'public';
    }
    return result;
  }

  private async dispatch(m: JsonRpcRequest, x: Exchange): Promise<Record<string, unknown>> {
    const params = (isObject(m.params) ? m.params : {}) as Record<string, unknown>;
    if (x.stateless && REMOVED_IN_STATELESS.has(m.method)) throw methodNotFound(m.method);
    const server = this.server;
    switch (m.method) {
      case 'ping':
        return {};
      case 'server/discover':
        if (!x.stateless) throw methodNotFound(m.method);
        return {
          supportedVersions: [STATELESS_REVISION],
          capabilities: this.capabilities(true),
          ...(this.instructions ? { instructions: this.instructions } : {}),
          _meta: { [META.serverInfo]: { name: server.name, version: server.version } },
        };
      // Each operation walks the server's chain with the exchange as its caller (principal, address, headers).
      case 'tools/list':
        return this.page('tools', await this.mcpTools(x), params.cursor);
      case 'resources/list':
        return this.page(
          'resources',
          resourcesFor(
            await server.operate('resources/list', undefined, undefined, x, () => server.resources.list()),
            clientSpeaksApps(x.clientCapabilities),
          ),
          params.cursor,
        );
      case 'resources/templates/list':
        return this.page(
          'resourceTemplates',
          await server.operate('resources/templates/list', undefined, undefined, x, () =>
            server.resources.templates(),
          ),
          params.cursor,
        );
      case 'resources/read': {
        const uri = typeof params.uri === 'string' ? params.uri : undefined;
        return {
          contents: await server.operate('resources/read', uri, undefined, x, () =>
            this.flights.run(m, x, (flight) =>
              server.resources.read(params.uri, { signal: flight.signal, principal: x.principal, caller: x }),
            ),
          ),
        };
      }
      case 'resources/subscribe':
      case 'resources/unsubscribe': {
        if (typeof params.uri !== 'string')
          throw new McpLiteError('invalid_params', 'Invalid params: "uri" must be a string');
        const uri = params.uri;
        await server.operate(m.method, uri, undefined, x, () =>
          m.method === 'resources/subscribe' ? x.session?.subscribe(uri) : x.session?.unsubscribe(uri),
        );
        return {};
      }
      case 'prompts/list': {
        const all = await server.operate('prompts/list', undefined, undefined, x, () => [
          ...server.prompts.list(),
          ...[...this.nativePrompts.values()].map((p) => p.prompt),
        ]);
        return this.page('prompts', all, params.cursor);
      }
      case 'prompts/get': {
        const name = typeof params.name === 'string' ? params.name : undefined;
        const args = isObject(params.arguments) ? params.arguments : undefined;
        return server.operate('prompts/get', name, args, x, () => this.getPrompt(m, params, x));
      }
      case 'completion/complete':
        return server.operate('completion/complete', undefined, params, x, () =>
          completeArgument(server, params),
        );
      case 'logging/setLevel': {
        const level = params.level;
        if (typeof level !== 'string' || !(LOG_LEVELS as readonly string[]).includes(level)) {
          throw new McpLiteError(
            'invalid_params',
            `Invalid params: "level" must be one of ${LOG_LEVELS.join(', ')}`,
          );
        }
        await server.operate('logging/setLevel', level, undefined, x, () => x.session?.setLogLevel(level));
        return {};
      }
      case 'shutdown':
        return {};
      case 'tasks/list':
      case 'tasks/get':
      case 'tasks/result':
      case 'tasks/update':
      case 'tasks/cancel':
        if (
          this.handshakeTasks &&
          !x.stateless &&
          x.revision >= HANDSHAKE_TASKS_REVISION &&
          m.method !== 'tasks/update'
        )
          return this.handshakeTasks.handle(m.method, params, x);
        if (this.tasks && m.method !== 'tasks/result' && m.method !== 'tasks/list')
          return this.tasks.handle(m.method, params, x);
        throw methodNotFound(m.method);
      default:
        if (SKILL_METHODS.has(m.method))
          return skillMethod(server, m.method, params, x, (key, items, cursor) =>
            this.page(key, items, cursor),
          );
        throw methodNotFound(m.method);
    }
  }

  /** One page of a listing, under `key`, with the cursor of the next. */
  private page(key: string, items: readonly unknown[], cursor: unknown): Record<string, unknown> {
    const { page, nextCursor } = paginate(items, cursor, this.pageSize);
    return nextCursor ? { [key]: page, nextCursor } : { [key]: page };
  }

  private async getPrompt(
    m: JsonRpcRequest,
    params: Record<string, unknown>,
    x: Exchange,
  ): Promise<Record<string, unknown>> {
    const native = typeof params.name === 'string' ? this.nativePrompts.get(params.name) : undefined;
    if (native && !this.server.prompts.has(native.prompt.name)) {
      return this.flights.run(m, x, async (flight) =>
        native.handler(params, nativeContext(x, flight.signal, undefined)),
      );
    }
    return {
      ...(await this.flights.run(m, x, (flight) =>
        this.server.prompts.get(params.name, params.arguments, {
          signal: flight.signal,
          principal: x.principal,
        }),
      )),
    };
  }

  /**
   * The MCP form of the caller's tool listing (user tools first, system tools last): the catalog's is rebuilt only
   * when the catalog changes; one a middleware changed, per request.
   */
  private async mcpTools(x: Exchange): Promise<Record<string, unknown>[]> {
    // A client that declared MCP Apps gets the app-only tools and each tool's view (apps.ts); others, text tools.
    const apps = clientSpeaksApps(x.clientCapabilities);
    const catalog = this.server.catalog.listing(apps);
    const listed = this.server.listToolsFor(x, apps);
    const listing = listed instanceof Promise ? await listed : listed;
    const tasks = this.handshakeTasks?.applies(x) === true;
    if (listing !== catalog) return this.toMcpTools(listing.tools, tasks, apps);
    const key = `${tasks}|${apps}`;
    let cached = this.toolsCache.get(key);
    if (cached?.version !== listing.version) {
      cached = { version: listing.version, tools: this.toMcpTools(listing.tools, tasks, apps) };
      this.toolsCache.set(key, cached);
    }
    return cached.tools;
  }

  /**
   * The tools as MCP lists them; with `tasks` (a 2025-11-25 session), each core user tool says it may run as a task
   * (`execution.taskSupport`), so that the SDK's `callToolStream` asks for one (its `callTool` still answers in
   * the call), or, for the `tasksRequired` tools, that it runs only as one (the SDK's `callTool` then refuses
   * it). Native tools answer their call themselves, and the system tools are the promise flow itself. With `apps`
   * (a client that declared MCP Apps), each tool carries its view (`apps.ts`).
   */
  private toMcpTools(tools: readonly WireTool[], tasks: boolean, apps: boolean): Record<string, unknown>[] {
    const native = [...this.native.values()]
      .map((t) => t.tool)
      .filter((t) => !this.server.catalog.get(t.name));
    const user = tools.filter((t) => t['@type'] !== 'system');
    const system = tools.filter((t) => t['@type'] === 'system');
    // A long-running tool lists no outputSchema: its result is always a promise (ToolCalls agrees).
    const mcp = (t: WireTool) => {
      const compiled = this.server.catalog.get(t.name);
      const tool = toMcpTool(t, compiled?.longRunningEstimateMs !== undefined);
      return apps ? withToolUi(tool, compiled) : tool;
    };
    const execution = (name: string) =>
      this.tasks?.requires(name) ? TASK_REQUIRED_EXECUTION : TASK_EXECUTION;
    const listed = tasks ? user.map((t) => ({ ...mcp(t), execution: execution(t.name) })) : user.map(mcp);
    return [...listed, ...native, ...system.map(mcp)];
  }
}

/** An unknown method, named back to the client at most `MAX_ECHO_CHARS` long (it may have sent megabytes). */
function methodNotFound(method: string): McpLiteError {
  const name = echoName(method);
  return new McpLiteError('method_not_found', `Method not found: ${name}`, { method: name });
}
