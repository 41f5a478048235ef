import { checkIpv6Prefix, DEFAULT_IPV6_CALLER_PREFIX } from './address-key.js';
import { AnswerBudget, type PendingCall } from './answer-budget.js';
import { ViewResources } from './apps/views.js';
import type { Authenticate, Principal, RequestTarget } from './auth.js';
import type { CallRequest } from './call-request.js';
import { callerKey } from './caller.js';
import { CallerSessions, DEFAULT_SESSION_TTL_MS } from './caller-session.js';
import { Catalog, type CompiledTool, type Listing } from './catalog.js';
import { assembleChain } from './chain-assembly.js';
import { CallContext } from './context.js';
import type { ElicitationNonceStore } from './elicitation-nonces.js';
import { Elicitations } from './elicitations.js';
import { McpLiteError, toMcpLiteError } from './errors.js';
import { isAsyncIterable, isThenable, runHandler, toOutcome } from './handler-value.js';
import { InFlight } from './in-flight.js';
import { LocalWorkQueue } from './local-work-queue.js';
import { toLogger } from './log-output.js';
import type { Logger } from './logger.js';
import { type MaybePromise, mapMaybe } from './maybe-promise.js';
import { authenticateHeaders } from './middleware/authentication.js';
import { assertToolScopes } from './oauth/tool-scopes.js';
import type { Middleware, OperationMethod } from './operation.js';
import { type CallerSource, PlainOperation } from './operation-caller.js';
import { targetOf } from './operation-target.js';
import type { CallResult, Outcome, ResponseMeta } from './outcomes.js';
import type { Pipeline, Terminal } from './pipeline.js';
import { toolAccess } from './promise-access.js';
import { handlerError, PromisedWork, settleValue } from './promised-work.js';
import { PromiseManager, toSettlement } from './promises/manager.js';
import type { PromiseStore } from './promises/store.js';
import { PromptCatalog } from './prompts.js';
import { type RateLimiter, rateLimiterOf } from './rate-limit.js';
import { ResourceCatalog } from './resources.js';
import type { ToolServerOptions } from './server-options.js';
import { SkillCatalog } from './skills/skills.js';
import {
  CANCEL_TOOL,
  offerSystemTools,
  offersPromises,
  REDEEM_TOOL,
  type SystemCall,
  unknownTool,
} from './system-tools.js';
import type { ElicitationAnswers } from './tool.js';
import { ToolCallOperation } from './tool-call-operation.js';
import { ToolResolution } from './tool-resolution.js';
import { WebtoolCatalog } from './webtools.js';
import type { WorkQueue } from './work-queue.js';

/**
 * The protocol-neutral tool server: the catalog, invocation, validation, outcomes and promises. Bindings are
 * codecs: they decode their wire into operations, hand them in (`call` for tools/call, `listToolsFor`,
 * `operate` for the rest), where each walks the one middleware chain (`Pipeline`), and encode the result back.
 */
export class ToolServer {
  /** The versioned tool catalog (user tools plus system tools). */
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
  /** The promise manager, when a store was given. */
  readonly promises: PromiseManager | undefined;
  /** Resources and resource templates (skill files among them). */
  readonly resources: ResourceCatalog;
  /** The Agent Skills served, when any (`ToolServerOptions.skills`). */
  readonly skills: SkillCatalog | undefined;
  /** Prompt templates. */
  readonly prompts: PromptCatalog;
  /** The webtools (declared, or the catalog as one). */
  readonly webtools: WebtoolCatalog;
  /** Bits of an IPv6 peer address that name one caller (`ToolServerOptions.ipv6CallerPrefix`). */
  readonly ipv6CallerPrefix: number;

  /** The middleware chain every operation walks: metrics observer, rate limiter, the user's middleware. */
  readonly pipeline: Pipeline;
  /** No built-in stage runs before user middleware: a tool call is resolved before the chain, not in a stage. */
  private readonly resolveFirst: boolean;
  private readonly resolution: ToolResolution;

  private readonly store: PromiseStore | undefined;
  private readonly limiter: RateLimiter | undefined;
  private readonly answerBudgetMs: number;
  /** How long MCP's `tools/call` waits for a promise's work before answering with it (`ToolServerOptions`). */
  readonly mcpInlineWaitMs: number;
  private readonly logArguments: boolean;
  private readonly maxRunMs: number;
  private readonly elicitations: Elicitations;
  private readonly nonces: ElicitationNonceStore | undefined;
  private readonly sessions: CallerSessions;
  private readonly systemCalls: ReadonlyMap<string, SystemCall> = new Map();
  /** Calls waiting for their answer, promoted to promises past the budget. */
  private readonly budget: AnswerBudget;
  private readonly queue: WorkQueue | undefined;
  private readonly work: PromisedWork | undefined;
  private readonly inFlightCalls = new InFlight();
  private closed = false;
  /** The tools' views (MCP Apps), served as `ui://` resources and kept in line with the catalog. */
  readonly views: ViewResources;

  constructor(options: ToolServerOptions) {
    this.name = options.name ?? 'mcplite';
    this.version = options.version ?? '0.0.0';
    this.discovery = { title: options.title, description: options.description, card: options.card };
    this.logger = toLogger(options.logger);
    this.logArguments = options.logArguments === true;
    this.authenticate = options.authenticate;
    this.ipv6CallerPrefix = options.ipv6CallerPrefix ?? DEFAULT_IPV6_CALLER_PREFIX;
    checkIpv6Prefix(this.ipv6CallerPrefix);
    this.store = options.promiseStore;
    this.answerBudgetMs = this.store ? (options.answerBudgetMs ?? 10_000) : 0;
    this.budget = new AnswerBudget(this.answerBudgetMs, (call) => this.promote(call));
    this.mcpInlineWaitMs = Math.max(0, options.mcpInlineWaitMs ?? 50_000);
    this.maxRunMs = options.maxRunMs ?? 600_000;
    this.elicitations = new Elicitations(
      options.secret,
      options.elicitationTtlMs ?? 600_000,
      options.elicitationNonceStore,
    );
    this.nonces = options.elicitationNonceStore;
    this.sessions = new CallerSessions(
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
    if (this.store) {
      const queue: WorkQueue =
        options.workQueue ??
        new LocalWorkQueue({ concurrency: options.maxConcurrentWork, logger: this.logger });
      this.queue = queue;
      this.promises = new PromiseManager({
        store: this.store,
        ttlMs: options.promiseTtlMs ?? 3_600_000,
        maxPerOwner: options.maxPromisesPerCaller ?? 1000,
        leaseMs: options.leaseMs ?? 30_000,
        logger: this.logger,
        callerKey: (caller) => this.callerKey(caller),
        mayUseTool: toolAccess(this.catalog, () => this.pipeline, this.authenticate),
        ...(queue.requeue ? { requeue: (job, back) => queue.requeue!(job, back) } : {}),
      });
      this.systemCalls = offerSystemTools(this.catalog, this.promises, offersPromises(options), (...a) =>
        queue.watch(...a),
      );
    }
    for (const tool of options.tools) this.catalog.add(tool);
    this.webtools = new WebtoolCatalog(options.webtools, this.catalog, this, options.config);
    if (this.promises && this.store && this.queue) {
      this.work = new PromisedWork({
        catalog: this.catalog,
        webtools: this.webtools,
        elicitations: this.elicitations,
        logger: this.logger,
        logArguments: this.logArguments,
        inFlight: this.inFlightCalls,
        promises: this.promises,
        store: this.store,
        queue: this.queue,
        maxRunMs: this.maxRunMs,
        callerKey: (caller) => this.callerKey(caller),
      });
      this.queue.bind(this.work.runJob, this.store);
    }
    this.limiter = rateLimiterOf(options.rateLimit, this.ipv6CallerPrefix);
    // Every binding's operations walk this one chain (chain-assembly.ts).
    ({ pipeline: this.pipeline, resolveFirst: this.resolveFirst } = assembleChain({
      telemetry: options.telemetry,
      onCallEnd: options.onCallEnd,
      limiter: this.limiter,
      middleware: options.middleware,
      targets: targetOf({ tools: this.catalog, prompts: this.prompts, resources: this.resources }),
      resolve: this.resolveStage,
    }));
    this.resolution = new ToolResolution(this.catalog, this.pipeline, this.authenticate);
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

  /** `callerKey` as one function made once, for the contexts that ask it lazily (`ctx.callerKey`). */
  private readonly keyOfCaller = (caller: { principal?: Principal; remoteAddress?: string }): string =>
    this.callerKey(caller);

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
    if (this.pipeline.empty) {
      const startedAt = performance.now();
      const tool = request.action ?? this.catalog.get(request.name);
      if (!tool) throw unknownTool(request.name, this.catalog.modelNames());
      // Before the arguments: a caller who may not call the tool learns nothing from its validation.
      assertToolScopes(tool.definition.auth?.scopes, request.principal, this.authenticate);
      const args = this.resolution.checkArguments(tool, request.arguments);
      return this.proceed(tool, args, request, startedAt, undefined);
    }
    const op = new ToolCallOperation(request, performance.now());
    if (this.resolveFirst) this.resolution.screen(op);
    const outcome = this.pipeline.run(op, this.finishCall);
    // Mapped in this turn when the chain answered synchronously: no closure, no promise turn.
    return outcome instanceof Promise
      ? outcome.then((o) => this.resultOf(op, o))
      : this.resultOf(op, outcome);
  }

  /** The chain's stage before user middleware: finds the tool (as this caller may see it) and checks the arguments. */
  private readonly resolveStage: Middleware = (op, next) => {
    if (op instanceof ToolCallOperation) this.resolution.screen(op);
    return next();
  };

  /** The chain's end for a tool call: runs it, keeping core's result for `resultOf`. */
  private readonly finishCall: Terminal = (op) => {
    const call = op as ToolCallOperation;
    this.resolution.resolve(call);
    const result = this.proceed(
      call.tool!,
      call.arguments as Record<string, unknown>,
      call.request,
      call.startedAt,
      call,
    );
    if (result instanceof Promise) return result.then((r) => ToolServer.kept(call, r));
    return ToolServer.kept(call, result);
  };

  /** Keeps core's result on the operation (for `resultOf`) and hands the chain its outcome. */
  private static kept(op: ToolCallOperation, result: CallResult): Outcome {
    op.result = result;
    return result.outcome;
  }

  /** The call's result for the outcome the chain handed back: core's own when unchanged, else a new one. */
  private resultOf(op: ToolCallOperation, outcome: unknown): CallResult {
    // A refusal stands whatever a middleware made of it: a hidden tool stays unknown.
    if (op.error) throw op.error;
    if (op.result && op.result.outcome === outcome) return op.result;
    if (typeof outcome !== 'object' || outcome === null || typeof (outcome as Outcome).type !== 'string') {
      throw new McpLiteError('internal', 'A middleware returned no outcome for a tools/call');
    }
    return this.result(outcome as Outcome, performance.now() - op.startedAt);
  }

  /** Runs a found tool with checked arguments: an elicitation answer is checked first. */
  private proceed(
    tool: CompiledTool,
    args: Record<string, unknown>,
    request: CallRequest,
    startedAt: number,
    op: ToolCallOperation | undefined,
  ): MaybePromise<CallResult> {
    if (request.elicitation !== undefined) {
      const caller = this.callerKey(request);
      const call = { arguments: args, principal: request.principal };
      return this.elicitations
        .check(request.name, request.elicitation, call, caller)
        .then((checked) =>
          checked.reask
            ? this.reask(tool, checked.reask, startedAt, caller)
            : this.invoke(tool, args, request, checked.complete, startedAt, op),
        );
    }
    return this.invoke(tool, args, request, undefined, startedAt, op);
  }

  /** Runs a call whose arguments (and elicitation answers, if any) are checked. */
  private invoke(
    tool: CompiledTool,
    args: Record<string, unknown>,
    request: CallRequest,
    elicitation: ElicitationAnswers | undefined,
    startedAt: number,
    op: ToolCallOperation | undefined,
  ): MaybePromise<CallResult> {
    const system = tool.system ? this.systemCalls.get(request.name) : undefined;
    if (system) {
      return system(args, () => request.signal, request, request.onPartial).then(
        ({ outcome, processingTimeMs }) => this.result(outcome, processingTimeMs),
      );
    }
    const context = new CallContext({
      tool: request.name,
      arguments: args,
      principal: request.principal,
      elicitation,
      background: false,
      client: request,
      onPartial: request.onPartial,
      logger: this.logArguments ? this.logger.child({ arguments: args }) : this.logger,
      requestId: request.requestId,
      config: request.config ?? this.webtools.configFor(request.name),
      headers: request.headers,
      binding: request.binding,
      callerKeyOf: this.keyOfCaller,
      session: request.session ? { token: request.session, read: this.readSession } : undefined,
    });
    if (op) op.context = context;
    // The session a tool set rides on the call's own result; promised work's later ones are ignored (context.ts).
    const withSession = (r: CallResult) =>
      this.sessions.withSession(r, context.takeSession(), () => context.callerKey);
    if (tool.longRunningEstimateMs !== undefined && this.work) {
      return this.work
        .start(tool, args, context, request)
        .then((promised) => withSession(this.result(promised, performance.now() - startedAt)));
    }
    return mapMaybe(this.runForeground(tool, args, context, request, startedAt), withSession);
  }

  private readonly readSession = (token: string, key: string): unknown => this.sessions.read(token, key);

  /** Waits until no call is running, up to `graceMs`; true when everything finished in time. */
  drain(graceMs: number): Promise<boolean> {
    return this.inFlightCalls.drain(graceMs);
  }

  /** Aborts what still runs, stops timers and closes the promise store. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const reason = new McpLiteError('unavailable', 'The server is shutting down');
    this.budget.close(reason);
    await this.promises?.abortAll(reason);
    this.promises?.close();
    await this.queue?.close();
    await this.store?.close();
    await this.limiter?.close();
    await this.nonces?.close?.();
  }

  private runForeground(
    tool: CompiledTool,
    args: Record<string, unknown>,
    context: CallContext,
    request: CallRequest,
    startedAt: number,
  ): MaybePromise<CallResult> {
    this.begin();
    let value: unknown;
    try {
      value = runHandler(tool, args, context);
    } catch (err) {
      this.end();
      throw handlerError(err, context, tool);
    }
    // Fast path: a synchronous handler needs no promise bookkeeping at all.
    if (!isThenable(value) && !isAsyncIterable(value)) {
      this.end();
      try {
        return this.result(toOutcome(tool, value, this.elicitations, context), performance.now() - startedAt);
      } catch (err) {
        throw handlerError(err, context, tool);
      }
    }
    const running = settleValue(tool, value, context, this.elicitations);
    // Only a server that lists `redeem` promotes: a promise nobody can redeem would be a lost answer.
    const canPromote = this.answerBudgetMs > 0 && this.systemCalls.size > 0 && !context.streaming;
    return new Promise<CallResult>((resolve, reject) => {
      const call: PendingCall = {
        startedAt,
        request,
        tool,
        context,
        running,
        promoted: false,
        resolve,
        reject,
      };
      const signal = request.signal;
      const onAbort = () => {
        if (call.promoted) return;
        this.budget.release(call);
        reject(toMcpLiteError(signal?.reason ?? new McpLiteError('cancelled', 'The call was cancelled')));
      };
      if (signal) {
        if (signal.aborted) onAbort();
        else signal.addEventListener('abort', onAbort, { once: true });
      }
      if (canPromote) {
        this.budget.hold(call);
      }
      running.then(
        (outcome) => {
          this.end();
          if (call.promoted) return;
          this.budget.release(call);
          signal?.removeEventListener('abort', onAbort);
          resolve(this.result(outcome, performance.now() - startedAt));
        },
        (err) => {
          this.end();
          if (call.promoted) return;
          this.budget.release(call);
          signal?.removeEventListener('abort', onAbort);
          reject(handlerError(err, context, tool));
        },
      );
    });
  }

  /**
   * A partly answered multi-request elicitation: core asks again for the open requests without running the
   * handler. A long-running tool still answers with a promise (settled at once), so that its clients, and the
   * MCP tasks built on promises, see one shape whatever the round.
   */
  private async reask(
    tool: CompiledTool,
    outcome: Outcome,
    startedAt: number,
    owner: string,
  ): Promise<CallResult> {
    if (tool.longRunningEstimateMs === undefined || !this.promises) {
      return this.result(outcome, performance.now() - startedAt);
    }
    const promised = await this.promises.settled(
      tool.wire.name,
      toSettlement({ outcome }, performance.now() - startedAt),
      owner,
    );
    return this.result(promised, performance.now() - startedAt);
  }

  /** Promotes a call that outlived the answer budget into a promise. */
  private promote(call: PendingCall): void {
    call.promoted = true;
    const owner = this.callerKey(call.request!);
    call.request = undefined;
    this.work!.promote(call.tool, call.running, call.context, owner, call.startedAt).then(
      (outcome) => call.resolve(this.result(outcome, performance.now() - call.startedAt)),
      (err) => call.reject(err),
    );
  }

  private result(outcome: Outcome, processingTimeMs: number): CallResult {
    const meta: ResponseMeta = {
      response_type: outcome.type,
      timestamp: Date.now(),
      processing_time_ms: Math.round(processingTimeMs),
      server_version: this.version,
    };
    // Assigned rather than spread in: same key order, without two throwaway objects on every call.
    if (outcome.type === 'promise') {
      meta.promise_token = outcome.token;
      meta.estimated_completion = Date.parse(outcome.estimatedCompletion);
    }
    return { outcome, meta };
  }

  private begin(): void {
    this.inFlightCalls.begin();
  }

  private end(): void {
    this.inFlightCalls.end();
  }
}
