import type { Principal } from '../../core/auth.js';
import type { ElicitationReply } from '../../core/elicitations.js';
import { McpLiteError, toMcpLiteError } from '../../core/errors.js';
import { noticeKind } from '../../core/notices.js';
import type { CallResult, ElicitationOutcome, ElicitationRequestOutcome } from '../../core/outcomes.js';
import type { CallRequest, ToolServer } from '../../core/server.js';
import type { JsonRpcId, JsonRpcRequest } from '../common/jsonrpc.js';
import { inputRequests, toElicitationReply } from './input-requests.js';
import {
  checkStateless,
  isHandshakeRevision,
  META,
  negotiateHandshake,
  STATELESS_REVISION,
  SUPPORTED_REVISIONS,
} from './revisions.js';
import type { McpSession } from './sessions.js';
import type { TaskRegistry } from './tasks.js';
import { LOG_LEVELS, logPasses, McpProtocolError, paginate, toCallToolResult, toMcpTool } from './wire.js';

/**
 * The transport-neutral MCP engine: one JSON-RPC message in, one result out. Streamable HTTP and stdio give it
 * an `Exchange` (what the request declared, and how to reach the client while it runs).
 */

/** One request as the engine sees it. */
export interface Exchange {
  /** The revision in effect. */
  revision: string;
  /** True on the stateless revision (2026-07-28). */
  stateless: boolean;
  /** What the client declared it can do. */
  clientCapabilities: Record<string, unknown>;
  /** The threshold for `notifications/message`; undefined sends none. */
  logLevel: string | undefined;
  /** The session, on a handshake revision that has one. */
  session: McpSession | undefined;
  /** The authenticated caller. */
  principal: Principal | undefined;
  /** Aborts when the client goes away. */
  signal: AbortSignal;
  /** Whether `notify` reaches the client (SSE accepted, or stdio). */
  canNotify: boolean;
  /** Sends a notification tied to this request; resolves when the transport took it. */
  notify(message: Record<string, unknown>): Promise<void>;
  /** Sends a request to the client and resolves with its result (handshake revisions on a stream). */
  request: ((method: string, params: Record<string, unknown>) => Promise<unknown>) | undefined;
}

/** Options of the engine. */
export interface EngineOptions {
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
  /**
   * Tools that only run as tasks (MCP `taskSupport: "required"`): a stateless client that did not declare the
   * tasks extension gets -32021 for them.
   */
  tasksRequired?: readonly string[];
  /** Prompts written against the MCP wire (e.g. a `prompts/get` that answers `input_required`). */
  nativePrompts?: readonly McpNativePrompt[];
}

/** A prompt implemented directly on the MCP wire: raw `prompts/get` params in, a raw result out. */
export interface McpNativePrompt {
  /** The `Prompt` as listed. */
  prompt: { name: string; [key: string]: unknown };
  handler: (
    params: Record<string, unknown>,
    ctx: McpNativeContext,
  ) => Record<string, unknown> | Promise<Record<string, unknown>>;
}

/** What a native MCP tool's handler gets. */
export interface McpNativeContext extends Exchange {
  /** The progress token the client sent, if any. */
  progressToken: string | number | undefined;
}

/** A tool implemented directly on the MCP wire: raw `tools/call` params in, a raw result out. */
export interface McpNativeTool {
  /** The `Tool` as listed (name, description, inputSchema, …). */
  tool: { name: string; inputSchema: Record<string, unknown>; [key: string]: unknown };
  /** Returns the result object (`CallToolResult`, `InputRequiredResult`, …); throw McpProtocolError for errors. */
  handler: (
    params: Record<string, unknown>,
    ctx: McpNativeContext,
  ) => Record<string, unknown> | Promise<Record<string, unknown>>;
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
]);
/** Most elicitation rounds of one handshake-revision tools/call. */
const MAX_ELICITATION_ROUNDS = 8;

/** Methods known to the engine, for "method not found" help. */
export const MCP_METHODS = [
  'initialize',
  'ping',
  'server/discover',
  'tools/list',
  'tools/call',
  'resources/list',
  'resources/templates/list',
  'resources/read',
  'resources/subscribe',
  'resources/unsubscribe',
  'prompts/list',
  'prompts/get',
  'completion/complete',
  'logging/setLevel',
  'subscriptions/listen',
];

/** Whether a message answers a request of ours rather than asking something. */
export function isResponse(m: unknown): m is { id: JsonRpcId; result?: unknown; error?: unknown } {
  return (
    typeof m === 'object' && m !== null && !('method' in m) && 'id' in m && ('result' in m || 'error' in m)
  );
}

/** The MCP protocol engine over one tool server. */
export class McpEngine {
  readonly pageSize: number;
  private readonly cacheTtlMs: number;
  private readonly instructions: string | undefined;
  private readonly inFlight = new Map<string, AbortController>();
  private readonly native = new Map<string, McpNativeTool>();
  private readonly nativePrompts = new Map<string, McpNativePrompt>();
  private readonly headerCache = new Map<string, Array<{ field: string; header: string; label: string }>>();
  private headerCacheVersion = -1;
  private toolsCache: { version: number; tools: Record<string, unknown>[] } | undefined;
  /** The tasks extension, when promises are on. */
  tasks: TaskRegistry | undefined;

  constructor(
    readonly server: ToolServer,
    options: EngineOptions = {},
  ) {
    this.pageSize = options.pageSize ?? 100;
    this.cacheTtlMs = options.cacheTtlMs ?? 0;
    this.instructions = options.instructions;
    for (const t of options.nativeTools ?? []) this.native.set(t.tool.name, t);
    for (const p of options.nativePrompts ?? []) this.nativePrompts.set(p.prompt.name, p);
  }

  /** The server's capabilities (what it implements; the same on every revision apart from extensions). */
  capabilities(stateless: boolean): Record<string, unknown> {
    const caps: Record<string, unknown> = { tools: { listChanged: true }, logging: {}, completions: {} };
    if (!this.server.resources.empty) caps.resources = { subscribe: true, listChanged: true };
    if (!this.server.prompts.empty || this.nativePrompts.size > 0) caps.prompts = { listChanged: true };
    if (stateless && this.tasks) caps.extensions = { 'io.modelcontextprotocol/tasks': {} };
    return caps;
  }

  /** `initialize`: negotiates the revision (the draft's `mcpVersion` is read too). */
  initialize(params: Record<string, unknown>): {
    revision: string;
    clientCapabilities: Record<string, unknown>;
    clientInfo: unknown;
    result: Record<string, unknown>;
  } {
    const requested = params.protocolVersion ?? params.mcpVersion;
    const revision = negotiateHandshake(requested);
    const caps = params.capabilities ?? params.clientCapabilities;
    const clientCapabilities = isObject(caps) ? caps : {};
    const result: Record<string, unknown> = {
      protocolVersion: revision,
      capabilities: this.capabilities(false),
      serverInfo: { name: this.server.name, version: this.server.version },
      ...(this.instructions ? { instructions: this.instructions } : {}),
    };
    return { revision, clientCapabilities, clientInfo: params.clientInfo, result };
  }

  /** Reads the per-request declaration of the stateless revision (throws the spec's errors). */
  statelessDeclaration(
    params: Record<string, unknown> | undefined,
    header: string | undefined,
    headerRequired: boolean,
  ) {
    return checkStateless(params, header, headerRequired);
  }

  /**
   * Runs one request: its result object, or an McpLiteError or McpProtocolError. A tools/call whose tool answers
   * synchronously is answered synchronously (errors found at once are thrown), since every promise turn costs
   * each call; anything else resolves or rejects later.
   */
  handle(m: JsonRpcRequest, x: Exchange): Record<string, unknown> | Promise<Record<string, unknown>> {
    const result =
      m.method === 'tools/call' || m.method === 'tools/invoke'
        ? this.callTool(m, (isObject(m.params) ? m.params : {}) as Record<string, unknown>, x)
        : this.dispatch(m, x);
    if (!x.stateless) return result;
    return result instanceof Promise
      ? result.then((r) => this.statelessResult(m, r))
      : this.statelessResult(m, result);
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

  /** Handles a notification (no answer). */
  notification(m: JsonRpcRequest, x: Pick<Exchange, 'session' | 'principal'>): void {
    const params = isObject(m.params) ? m.params : {};
    switch (m.method) {
      case 'notifications/initialized':
      case 'initialized':
        if (x.session) x.session.initialized = true;
        return;
      case 'notifications/cancelled':
      case 'cancel': {
        const id = params.requestId ?? params.id;
        if (id === undefined) return;
        this.inFlight
          .get(this.flightKey(x, id as JsonRpcId))
          ?.abort(
            new McpLiteError(
              'cancelled',
              typeof params.reason === 'string' ? `Cancelled: ${params.reason}` : 'Cancelled',
            ),
          );
        return;
      }
      default:
      // notifications/progress, notifications/roots/list_changed and unknown notifications need nothing.
    }
  }

  private async dispatch(m: JsonRpcRequest, x: Exchange): Promise<Record<string, unknown>> {
    const params = (isObject(m.params) ? m.params : {}) as Record<string, unknown>;
    if (x.stateless && REMOVED_IN_STATELESS.has(m.method)) throw methodNotFound(m.method);
    switch (m.method) {
      case 'ping':
        return {};
      case 'server/discover':
        if (!x.stateless) throw methodNotFound(m.method);
        return {
          supportedVersions: [STATELESS_REVISION],
          capabilities: this.capabilities(true),
          ...(this.instructions ? { instructions: this.instructions } : {}),
          _meta: { [META.serverInfo]: { name: this.server.name, version: this.server.version } },
        };
      case 'tools/list': {
        const { page, nextCursor } = paginate(this.mcpTools(), params.cursor, this.pageSize);
        return nextCursor ? { tools: page, nextCursor } : { tools: page };
      }
      case 'resources/list': {
        const { page, nextCursor } = paginate(this.server.resources.list(), params.cursor, this.pageSize);
        return nextCursor ? { resources: page, nextCursor } : { resources: page };
      }
      case 'resources/templates/list': {
        const { page, nextCursor } = paginate(
          this.server.resources.templates(),
          params.cursor,
          this.pageSize,
        );
        return nextCursor ? { resourceTemplates: page, nextCursor } : { resourceTemplates: page };
      }
      case 'resources/read':
        return {
          contents: await this.withFlight(m, x, (flight) =>
            this.server.resources.read(params.uri, { signal: flight.signal, principal: x.principal }),
          ),
        };
      case 'resources/subscribe':
      case 'resources/unsubscribe': {
        if (typeof params.uri !== 'string')
          throw new McpLiteError('invalid_params', 'Invalid params: "uri" must be a string');
        if (m.method === 'resources/subscribe') x.session?.subscriptions.add(params.uri);
        else x.session?.subscriptions.delete(params.uri);
        return {};
      }
      case 'prompts/list': {
        const all = [...this.server.prompts.list(), ...[...this.nativePrompts.values()].map((p) => p.prompt)];
        const { page, nextCursor } = paginate(all, params.cursor, this.pageSize);
        return nextCursor ? { prompts: page, nextCursor } : { prompts: page };
      }
      case 'prompts/get': {
        const native = typeof params.name === 'string' ? this.nativePrompts.get(params.name) : undefined;
        if (native && !this.server.prompts.has(native.prompt.name)) {
          return this.withFlight(m, x, async (flight) =>
            native.handler(params, this.nativeContext(x, flight, undefined)),
          );
        }
        return {
          ...(await this.withFlight(m, x, (flight) =>
            this.server.prompts.get(params.name, params.arguments, {
              signal: flight.signal,
              principal: x.principal,
            }),
          )),
        };
      }
      case 'completion/complete':
        return this.complete(params);
      case 'logging/setLevel': {
        const level = params.level;
        if (typeof level !== 'string' || !(LOG_LEVELS as readonly string[]).includes(level)) {
          throw new McpLiteError(
            'invalid_params',
            `Invalid params: "level" must be one of ${LOG_LEVELS.join(', ')}`,
          );
        }
        if (x.session) x.session.logLevel = level;
        return {};
      }
      case 'shutdown':
        return {};
      case 'tasks/get':
      case 'tasks/update':
      case 'tasks/cancel':
        if (this.tasks) return this.tasks.handle(m.method, params, x);
        throw methodNotFound(m.method);
      default:
        throw methodNotFound(m.method);
    }
  }

  /** The input schema of a core or native tool (for header checks). */
  inputSchemaOf(name: string): Record<string, unknown> | undefined {
    return this.server.catalog.get(name)?.wire.inputSchema ?? this.native.get(name)?.tool.inputSchema;
  }

  /** The arguments of a tool that travel as `Mcp-Param-*` headers (`x-mcp-header`), cached per catalog version. */
  headerParams(name: string): ReadonlyArray<{ field: string; header: string; label: string }> {
    const version = this.server.catalog.version;
    if (this.headerCacheVersion !== version) {
      this.headerCache.clear();
      this.headerCacheVersion = version;
    }
    let params = this.headerCache.get(name);
    if (!params) {
      const schema = this.inputSchemaOf(name);
      const props = isObject(schema?.properties) ? schema.properties : {};
      params = [];
      for (const [field, def] of Object.entries(props)) {
        const header = isObject(def) ? def['x-mcp-header'] : undefined;
        if (typeof header === 'string') {
          params.push({ field, header: `mcp-param-${header.toLowerCase()}`, label: `Mcp-Param-${header}` });
        }
      }
      if (this.headerCache.size < 10_000) this.headerCache.set(name, params);
    }
    return params;
  }

  /** The MCP form of the tool listing (user tools first, system tools last), rebuilt only when the catalog changes. */
  mcpTools(): Record<string, unknown>[] {
    const listing = this.server.listTools();
    if (this.toolsCache?.version !== listing.version) {
      const native = [...this.native.values()]
        .map((t) => t.tool)
        .filter((t) => !this.server.catalog.get(t.name));
      const user = listing.tools.filter((t) => t['@type'] !== 'system');
      const system = listing.tools.filter((t) => t['@type'] === 'system');
      this.toolsCache = {
        version: listing.version,
        tools: [...user.map(toMcpTool), ...native, ...system.map(toMcpTool)],
      };
    }
    return this.toolsCache.tools;
  }

  private async complete(params: Record<string, unknown>): Promise<Record<string, unknown>> {
    const ref = params.ref;
    const argument = params.argument;
    if (!isObject(ref) || !isObject(argument) || typeof argument.name !== 'string') {
      throw new McpLiteError(
        'invalid_params',
        'Invalid params: completion/complete needs ref and argument { name, value }',
      );
    }
    const value = typeof argument.value === 'string' ? argument.value : '';
    const context =
      isObject(params.context) && isObject(params.context.arguments) ? params.context.arguments : {};
    const args = Object.fromEntries(
      Object.entries(context).filter(([, v]) => typeof v === 'string'),
    ) as Record<string, string>;
    let values: string[];
    if (ref.type === 'ref/prompt' && typeof ref.name === 'string') {
      if (!this.server.prompts.has(ref.name)) {
        throw new McpLiteError('invalid_params', `Prompt not found: ${ref.name}`, {
          reason: 'prompt_not_found',
        });
      }
      values = await this.server.prompts.complete(ref.name, argument.name, value, args);
    } else if (ref.type === 'ref/resource' && typeof ref.uri === 'string') {
      values = await this.server.resources.complete(ref.uri, argument.name, value, args);
    } else {
      throw new McpLiteError(
        'invalid_params',
        'Invalid params: ref must be ref/prompt { name } or ref/resource { uri }',
      );
    }
    const total = values.length;
    return { completion: { values: values.slice(0, 100), total, hasMore: total > 100 } };
  }

  // ---- tools/call ----

  /**
   * Not `async`: it returns withFlight's promise as it is, where an async function would wrap it in one more
   * promise and cost every call extra microtask turns. Its only caller, `handle`, turns its throws into
   * rejections.
   */
  private callTool(
    m: JsonRpcRequest,
    params: Record<string, unknown>,
    x: Exchange,
  ): Record<string, unknown> | Promise<Record<string, unknown>> {
    const name = params.name;
    if (typeof name !== 'string')
      throw new McpLiteError('invalid_params', 'Invalid params: "name" must be a string');
    const meta = isObject(params._meta) ? params._meta : {};
    const progressToken = meta.progressToken;
    const hasProgress = typeof progressToken === 'string' || typeof progressToken === 'number';
    const native = this.native.get(name);
    if (native && !this.server.catalog.get(name)) {
      return this.withFlight(m, x, async (flight) =>
        native.handler(
          params,
          this.nativeContext(x, flight, hasProgress ? (progressToken as string | number) : undefined),
        ),
      );
    }
    const tool = this.server.catalog.get(name);
    const hasOutputSchema = tool?.wire.outputSchema !== undefined;
    let elicitation: CallRequest['elicitation'];
    if (x.stateless && params.requestState !== undefined) {
      elicitation = this.answersFromInputResponses(params);
    }
    this.tasks?.checkRequired(name, x);
    let progressCount = 0;
    const onPartial =
      x.canNotify && (hasProgress || x.logLevel !== undefined)
        ? (data: unknown) => {
            const kind = noticeKind(data);
            if (kind === 'log') {
              const n = data as { level: string; data: unknown; logger?: string };
              if (!logPasses(n.level, x.logLevel)) return undefined;
              return x.notify({
                jsonrpc: '2.0',
                method: 'notifications/message',
                params: { level: n.level, data: n.data, ...(n.logger ? { logger: n.logger } : {}) },
              });
            }
            if (!hasProgress) return undefined;
            progressCount++;
            const p =
              kind === 'progress'
                ? (data as { progress: number; total?: number; message?: string })
                : {
                    progress: progressCount,
                    message: typeof data === 'string' ? data : JSON.stringify(data),
                  };
            return x.notify({
              jsonrpc: '2.0',
              method: 'notifications/progress',
              params: {
                progressToken,
                progress: p.progress,
                ...(p.total !== undefined ? { total: p.total } : {}),
                ...(p.message !== undefined ? { message: p.message } : {}),
              },
            });
          }
        : undefined;
    const run = (flight: Flight, answers?: CallRequest['elicitation']) =>
      this.server.call(
        new EngineToolCall(
          name,
          params.arguments,
          x.principal,
          flight,
          m.id ?? undefined,
          onPartial,
          answers,
        ),
      );
    const complete = (result: CallResult): Record<string, unknown> =>
      result.outcome.type === 'promise' && this.tasks && x.stateless && this.tasks.optedIn(x)
        ? this.tasks.fromPromise(name, params.arguments, result.outcome)
        : toCallToolResult(result, { hasOutputSchema });
    return this.withFlight(m, x, (flight) => {
      const first = run(flight, elicitation);
      // A synchronous handler's answer is mapped in this turn; awaiting it would cost every call promise turns.
      if (!(first instanceof Promise) && first.outcome.type !== 'elicitation') return complete(first);
      return this.completeCall(first, flight, x, run, complete);
    });
  }

  /** The rest of a tools/call that has to wait: for the handler, and for the rounds of an elicitation. */
  private async completeCall(
    first: CallResult | Promise<CallResult>,
    flight: Flight,
    x: Exchange,
    run: (flight: Flight, answers?: CallRequest['elicitation']) => CallResult | Promise<CallResult>,
    complete: (result: CallResult) => Record<string, unknown>,
  ): Promise<Record<string, unknown>> {
    let result: CallResult = await first;
    for (let round = 0; result.outcome.type === 'elicitation'; round++) {
      const outcome = result.outcome;
      if (x.stateless) {
        if (!isObject(x.clientCapabilities.elicitation)) {
          throw new McpProtocolError(-32021, 'Missing required client capability: elicitation', {
            requiredCapabilities: { elicitation: {} },
          });
        }
        return {
          resultType: 'input_required',
          inputRequests: inputRequests(outcome),
          requestState: outcome.state,
        };
      }
      if (!x.request || !isObject(x.clientCapabilities.elicitation) || round >= MAX_ELICITATION_ROUNDS) break;
      const reply = await this.askClient(x.request, x.revision, outcome);
      if ('refused' in reply) {
        return {
          content: [{ type: 'text', text: `The user did not provide the input (${reply.refused}).` }],
          isError: true,
        };
      }
      result = await run(flight, reply);
    }
    return complete(result);
  }

  /** What a native tool or prompt handler gets: the exchange, with the flight's signal. */
  private nativeContext(
    x: Exchange,
    flight: Flight,
    progressToken: string | number | undefined,
  ): McpNativeContext {
    return {
      ...x,
      signal: flight.signal,
      notify: (message) => x.notify(message),
      request: x.request,
      progressToken,
    };
  }

  /** The answers of a stateless retry: `requestState` plus the elicitation's `inputResponses`. */
  private answersFromInputResponses(params: Record<string, unknown>): CallRequest['elicitation'] {
    if (params.inputResponses !== undefined && !isObject(params.inputResponses)) {
      throw new McpLiteError('invalid_params', 'Invalid params: inputResponses must be an object');
    }
    const responses = isObject(params.inputResponses) ? params.inputResponses : {};
    const reply = toElicitationReply(params.requestState, responses);
    if (!reply) {
      throw new McpLiteError('invalid_params', 'Invalid params: inputResponses.elicitation is missing', {
        reason: 'missing_input_response',
      });
    }
    return reply;
  }

  /**
   * Handshake revisions: asks the client with `elicitation/create`. A server request carries one form, so the
   * requests of a multi-request elicitation are asked one after the other, and core gets them all at once.
   */
  private async askClient(
    request: NonNullable<Exchange['request']>,
    revision: string,
    outcome: ElicitationOutcome,
  ): Promise<ElicitationReply | { refused: string }> {
    const forms: Array<[string, ElicitationRequestOutcome]> = outcome.requests
      ? Object.entries(outcome.requests)
      : [['', outcome]];
    const answers: Record<string, unknown> = {};
    for (const [name, form] of forms) {
      const reply = await request('elicitation/create', {
        ...(revision >= '2025-11-25' ? { mode: 'form' } : {}),
        message: form.message,
        requestedSchema: form.requestedSchema,
      });
      const action = isObject(reply) ? reply.action : undefined;
      if (action !== 'accept') return { refused: String(action ?? 'no answer') };
      answers[name] = isObject(reply) ? (reply.content ?? {}) : {};
    }
    return { state: outcome.state, answers: outcome.requests ? answers : answers[''] };
  }

  /**
   * Runs `work` registered under the request id, so that notifications/cancelled can abort it. `work` gets where
   * to read the signal from rather than the signal: the node adapter makes its signal (an AbortController and a
   * 'close' listener) on first read, and a call that answers within a tick never needs it.
   */
  private withFlight<T>(
    m: JsonRpcRequest,
    x: Exchange,
    work: (flight: Flight) => T | Promise<T>,
  ): T | Promise<T> {
    // Only a session (or stdio) can send notifications/cancelled for its own requests; a stateless or sessionless
    // request is cancelled by closing its connection, which the transport's signal already says.
    if (m.id === undefined || m.id === null || !x.session) return work(x);
    return this.tracked(m.id, x, work);
  }

  private async tracked<T>(id: JsonRpcId, x: Exchange, work: (flight: Flight) => T | Promise<T>): Promise<T> {
    const controller = new AbortController();
    const key = this.flightKey(x, id);
    const onAbort = () => controller.abort(x.signal.reason);
    if (x.signal.aborted) onAbort();
    else x.signal.addEventListener('abort', onAbort, { once: true });
    this.inFlight.set(key, controller);
    try {
      return await work(controller);
    } catch (err) {
      throw controller.signal.aborted ? toMcpLiteError(controller.signal.reason ?? err) : err;
    } finally {
      x.signal.removeEventListener('abort', onAbort);
      if (this.inFlight.get(key) === controller) this.inFlight.delete(key);
    }
  }

  private flightKey(x: Pick<Exchange, 'session' | 'principal'>, id: JsonRpcId): string {
    return `${x.session?.id ?? x.principal?.id ?? ''}|${JSON.stringify(id)}`;
  }
}

/** Where a request's signal is read from, on first use only (an Exchange, or a cancellable flight's controller). */
interface Flight {
  readonly signal: AbortSignal;
}

/**
 * A tools/call as core takes it. A class rather than an object literal so that `signal` can stay a getter (see
 * `withFlight`): core reads it only for calls that outlive a tick. (Literals with getters or spreads are also
 * slower to build.) Optional fields are left unset rather than undefined, as the literal it replaces did.
 */
class EngineToolCall implements CallRequest {
  readonly arguments: unknown;
  readonly onPartial?: (data: unknown) => void | Promise<void>;
  readonly elicitation?: CallRequest['elicitation'];

  constructor(
    readonly name: string,
    args: unknown,
    readonly principal: Principal | undefined,
    private readonly flight: Flight,
    readonly requestId: string | number | undefined,
    onPartial: ((data: unknown) => void | Promise<void>) | undefined,
    elicitation: CallRequest['elicitation'],
  ) {
    this.arguments = args;
    if (onPartial) this.onPartial = onPartial;
    if (elicitation) this.elicitation = elicitation;
  }

  get signal(): AbortSignal {
    return this.flight.signal;
  }
}

/** Whether a value is a plain object. */
export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function methodNotFound(method: string): McpLiteError {
  return new McpLiteError('method_not_found', `Method not found: ${method}`, { method });
}

/** Whether a header value names a revision this server knows (of either kind). */
export function isKnownRevision(v: string | undefined): boolean {
  return v !== undefined && SUPPORTED_REVISIONS.includes(v);
}

export { isHandshakeRevision };
