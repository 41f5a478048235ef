import { checkIpv6Prefix, DEFAULT_IPV6_CALLER_PREFIX } from './address-key.js';
import { ViewResources } from './apps/views.js';
import type { Authenticate, Principal, RequestTarget } from './auth.js';
import { authenticateHeaders } from './authenticate-headers.js';
import { CallPath } from './call-path.js';
import type { CallRequest } from './call-request.js';
import { callerKey } from './caller.js';
import { CallerSessions, DEFAULT_SESSION_TTL_MS } from './caller-session.js';
import { Catalog, type Listing } from './catalog.js';
import { assembleChain } from './chain-assembly.js';
import type { ElicitationNonceStore } from './elicitation-nonces.js';
import { Elicitations } from './elicitations.js';
import { McpLiteError } from './errors.js';
import { InFlight } from './in-flight.js';
import { LocalWorkQueue } from './local-work-queue.js';
import { toLogger } from './log-output.js';
import type { Logger } from './logger.js';
import { type MaybePromise, mapMaybe } from './maybe-promise.js';
import type { OperationMethod } from './operation.js';
import { type CallerSource, PlainOperation } from './operation-caller.js';
import { targetOf } from './operation-target.js';
import type { CallResult } from './outcomes.js';
import type { Pipeline } from './pipeline.js';
import { toolAccess } from './promise-access.js';
import { PromisedWork } from './promised-work.js';
import { PromiseManager } from './promises/manager.js';
import type { PromiseStore } from './promises/store.js';
import { PromptCatalog } from './prompts.js';
import { type RateLimiter, rateLimiterOf } from './rate-limit.js';
import { ResourceCatalog } from './resources.js';
import { groupedOptions, type ToolServerOptions } from './server-options.js';
import { SkillCatalog } from './skills/skills.js';
import {
  CANCEL_TOOL,
  offerSystemTools,
  offersPromises,
  REDEEM_TOOL,
  type SystemCall,
} from './system-tools.js';
import { WebtoolCatalog } from './webtools.js';
import type { WorkQueue } from './work-queue.js';

/**
 * The protocol-neutral tool server: the catalog, invocation, validation, outcomes and promises. Bindings are
 * codecs: they decode their wire into operations, hand them in (`call` for tools/call, `listToolsFor`,
 * `operate` for the rest), where each walks the one middleware chain (`Pipeline`), and encode the result back.
 */
export class ToolServer {
  /**
   * The versioned tool catalog (user tools plus system tools). Internal: the bindings' and the gateway's, left out
   * of the published type (`stripInternal`); a user reads tools through `listTools`/`listToolsFor`.
   * @internal
   */
  readonly catalog: Catalog;
  /** Server name. */
  readonly name: string;
  /** Server version (`_meta.server_version`). */
  readonly version: string;
  /** What discovery documents say of the server (`title`, `description`, `card`): docs/discovery.md. */
  readonly discovery: Pick<ToolServerOptions, 'title' | 'description' | 'card'>;
  /** The logger. */
  readonly logger: Logger;
  /** The authentication hook, if any. */
  readonly authenticate: Authenticate | undefined;
  /**
   * The promise manager, when a store was given. Internal, like `catalog`: a user redeems and cancels through the
   * system tools, which walk the chain.
   * @internal
   */
  readonly promises: PromiseManager | undefined;
  /** Resources and resource templates (skill files among them). */
  readonly resources: ResourceCatalog;
  /** The Agent Skills served, when any (`ToolServerOptions.skills`). */
  readonly skills: SkillCatalog | undefined;
  /** Prompt templates. */
  readonly prompts: PromptCatalog;
  /**
   * The webtools (declared, or the catalog as one). Internal, like `catalog`: the Webtools binding's.
   * @internal
   */
  readonly webtools: WebtoolCatalog;
  /** Bits of an IPv6 peer address that name one caller (`ToolServerOptions.ipv6CallerPrefix`). */
  readonly ipv6CallerPrefix: number;

  /**
   * The middleware chain every operation walks (chain-assembly.ts: the built-in stages, then the user's). Internal,
   * like `catalog`: operations enter it through `call` and `operate`.
   * @internal
   */
  readonly pipeline: Pipeline;
  /** The path of a tool call, from its request to its result (call-path.ts). */
  private readonly calls: CallPath;

  private readonly store: PromiseStore | undefined;
  private readonly limiter: RateLimiter | undefined;
  /** How long MCP's `tools/call` waits for a promise's work before answering with it (`ToolServerOptions`). */
  readonly mcpInlineWaitMs: number;
  private readonly nonces: ElicitationNonceStore | undefined;
  private readonly queue: WorkQueue | undefined;
  private readonly inFlightCalls = new InFlight();
  private closed = false;
  /** The tools' views (MCP Apps), served as `ui://` resources and kept in line with the catalog. */
  readonly views: ViewResources;

  constructor(options: ToolServerOptions) {
    // The option groups, the deprecated flat names mapped onto them (server-options.ts).
    const { promises: p, elicitation: e, observability: o } = groupedOptions(options);
    this.name = options.name ?? 'mcplite';
    this.version = options.version ?? '0.0.0';
    this.discovery = { title: options.title, description: options.description, card: options.card };
    this.logger = toLogger(o.logger);
    this.authenticate = options.authenticate;
    this.ipv6CallerPrefix = options.ipv6CallerPrefix ?? DEFAULT_IPV6_CALLER_PREFIX;
    checkIpv6Prefix(this.ipv6CallerPrefix);
    this.store = p.store;
    this.mcpInlineWaitMs = Math.max(0, p.mcpInlineWaitMs ?? 50_000);
    const elicitations = new Elicitations(options.secret, e.ttlMs ?? 600_000, e.nonceStore);
    this.nonces = e.nonceStore;
    const sessions = new CallerSessions(
      options.secret,
      this.name,
      options.sessionTtlMs ?? DEFAULT_SESSION_TTL_MS,
      this.logger,
    );
    const reserved = new Set(this.store ? [REDEEM_TOOL, CANCEL_TOOL] : []);
    if (!this.store && options.tools.some((t) => t.longRunning)) {
      throw new McpLiteError('invalid_request', 'Long-running tools need a promise store');
    }
    this.catalog = new Catalog([], reserved);
    this.skills = options.skills?.length ? new SkillCatalog(options.skills) : undefined;
    const skillFiles = this.skills?.resources() ?? [];
    this.resources = new ResourceCatalog(
      [...(options.resources ?? []), ...skillFiles],
      options.resourceTemplates,
    );
    this.prompts = new PromptCatalog(options.prompts);
    let systemCalls: ReadonlyMap<string, SystemCall> = new Map();
    if (this.store) {
      const queue: WorkQueue =
        p.workQueue ?? new LocalWorkQueue({ concurrency: p.maxConcurrentWork, logger: this.logger });
      this.queue = queue;
      this.promises = new PromiseManager({
        store: this.store,
        ttlMs: p.ttlMs ?? 3_600_000,
        maxPerOwner: p.maxPerCaller ?? 1000,
        leaseMs: p.leaseMs ?? 30_000,
        logger: this.logger,
        callerKey: (caller) => this.callerKey(caller),
        mayUseTool: toolAccess(this.catalog, () => this.pipeline, this.authenticate),
        ...(queue.requeue ? { requeue: (job, back) => queue.requeue!(job, back) } : {}),
      });
      const offered = offersPromises({ ...options, answerBudgetMs: p.answerBudgetMs });
      systemCalls = offerSystemTools(this.catalog, this.promises, offered, (...a) => queue.watch(...a));
    }
    for (const tool of options.tools) this.catalog.add(tool);
    this.webtools = new WebtoolCatalog(options.webtools, this.catalog, this, options.config);
    let work: PromisedWork | undefined;
    if (this.promises && this.store && this.queue) {
      work = new PromisedWork({
        catalog: this.catalog,
        webtools: this.webtools,
        elicitations,
        logger: this.logger,
        logArguments: o.logArguments === true,
        inFlight: this.inFlightCalls,
        promises: this.promises,
        store: this.store,
        queue: this.queue,
        maxRunMs: p.maxRunMs ?? 600_000,
        callerKey: (caller) => this.callerKey(caller),
      });
      this.queue.bind(work.runJob, this.store);
    }
    this.limiter = rateLimiterOf(options.rateLimit, this.ipv6CallerPrefix);
    // Every binding's operations walk this one chain (chain-assembly.ts).
    this.pipeline = assembleChain({
      telemetry: o.telemetry,
      onCallEnd: o.onCallEnd,
      limiter: this.limiter,
      middleware: options.middleware,
      targets: targetOf({ tools: this.catalog, prompts: this.prompts, resources: this.resources }),
      screen: (op) => this.calls.resolution.screen(op),
    });
    this.calls = new CallPath({
      catalog: this.catalog,
      pipeline: this.pipeline,
      authenticate: this.authenticate,
      elicitations,
      sessions,
      systemCalls,
      webtools: this.webtools,
      logger: this.logger,
      logArguments: o.logArguments === true,
      inFlight: this.inFlightCalls,
      promises: this.promises,
      work,
      answerBudgetMs: this.store ? (p.answerBudgetMs ?? 10_000) : 0,
      version: this.version,
      callerKey: (caller) => this.callerKey(caller),
    });
    // The tools' views (MCP Apps) as ui:// resources, read through the chain by who may see their tools.
    this.views = new ViewResources(this.catalog, this.resources, {
      pipeline: () => this.pipeline,
      authenticate: this.authenticate,
    });
  }

  /**
   * The principal of a request with these headers, or `unauthenticated`: every binding authenticates here. A binding
   * that carries a token over HTTP or gRPC names the request's `target` (method, path), which a DPoP proof binds.
   */
  authenticateCaller(
    headers: Readonly<Record<string, string | undefined>>,
    target?: RequestTarget,
  ): MaybePromise<Principal | undefined> {
    return authenticateHeaders(this.authenticate, headers, target);
  }

  /**
   * The key this server counts a caller's state and bounds under (`callerKey` with this server's
   * `ipv6CallerPrefix`): every binding derives its per-caller keys here, so that one caller is one key everywhere.
   */
  callerKey(caller: { principal?: Principal | undefined; remoteAddress?: string | undefined }): string {
    return callerKey(caller, this.ipv6CallerPrefix);
  }

  /**
   * Whether a promise store is configured (promises and tasks can be kept). `redeem` and `cancel` are listed only
   * once a tool can return a promise (`offersPromises`, system-tools.ts).
   */
  get promisesEnabled(): boolean {
    return this.promises !== undefined;
  }

  /** Calls running now (foreground and promised work). */
  get inFlight(): number {
    return this.inFlightCalls.size;
  }

  /** Promised work waiting for its turn and running (metrics, health). */
  queueStats(): Promise<{ waiting: number; running: number }> {
    return this.queue?.stats() ?? Promise.resolve({ waiting: 0, running: 0 });
  }

  /** The cached listing of the current catalog version, as the server holds it (no caller's view). */
  listTools(): Listing {
    return this.catalog.listing();
  }

  /**
   * The `tools/list` of one caller, through the chain. Without user middleware this is the cached listing, so the
   * listing path stays as fast as it was; with it, a filtered or changed listing is serialised per request.
   * `forApps`: app-only tools too, for a client that declared MCP Apps (it keeps them from its model).
   */
  listToolsFor(caller: CallerSource, forApps = false): MaybePromise<Listing> {
    const listing = this.catalog.listing(forApps);
    if (!this.pipeline.seesEveryOperation) return listing;
    const op = new PlainOperation('tools/list', undefined, undefined, caller);
    return mapMaybe(
      this.pipeline.run(op, () => listing.tools),
      (tools) => {
        if (tools === listing.tools) return listing;
        if (!Array.isArray(tools))
          throw new McpLiteError('internal', 'A middleware returned no tool listing');
        return { version: listing.version, tools, json: JSON.stringify({ tools }) };
      },
    );
  }

  /**
   * Runs an operation other than a tool call or a listing (`resources/*`, `prompts/*`, `completion/complete`,
   * `logging/setLevel`, and MCP tasks as the `redeem` and `cancel` calls they are) through
   * the chain; `run` does the operation itself. Without a stage that would see it, `run` is called at once.
   */
  operate<T>(
    method: OperationMethod,
    name: string | undefined,
    args: Readonly<Record<string, unknown>> | undefined,
    caller: CallerSource,
    run: () => MaybePromise<T>,
  ): MaybePromise<T> {
    if (method === 'tools/call' ? this.pipeline.empty : !this.pipeline.seesEveryOperation) return run();
    return this.pipeline.run(new PlainOperation(method, name, args, caller), run) as MaybePromise<T>;
  }

  /**
   * `call`, always as a promise (for callers off the hot path). Resolves with the outcome and its `_meta`;
   * rejects with an McpLiteError for protocol errors (unknown tool, invalid arguments, cancelled, deadline,
   * internal).
   */
  callTool(request: CallRequest): Promise<CallResult> {
    try {
      const result = this.call(request);
      return result instanceof Promise ? result : Promise.resolve(result);
    } catch (err) {
      return Promise.reject(err);
    }
  }

  /**
   * `callTool` for bindings on a hot path: the same call, answered synchronously when nothing has to be waited
   * for (a synchronous handler, or an error found before the handler runs), which saves a request several
   * promise turns. Protocol errors are thrown when found synchronously, otherwise the promise rejects with them.
   */
  call(request: CallRequest): MaybePromise<CallResult> {
    return this.calls.call(request);
  }

  /** Waits until no call is running, up to `graceMs`; true when everything finished in time. */
  drain(graceMs: number): Promise<boolean> {
    return this.inFlightCalls.drain(graceMs);
  }

  /** Aborts what still runs, stops timers and closes the promise store. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const reason = new McpLiteError('unavailable', 'The server is shutting down');
    this.calls.close(reason);
    await this.promises?.abortAll(reason);
    this.promises?.close();
    await this.queue?.close();
    await this.store?.close();
    await this.limiter?.close();
    await this.nonces?.close?.();
  }
}
