import type { Authenticate } from './auth.js';
import { backgroundWork } from './background-work.js';
import type { CallRequest } from './call-request.js';
import { Catalog, type CompiledTool, type Listing } from './catalog.js';
import { CallContext } from './context.js';
import { Elicitations } from './elicitations.js';
import { logInternal, McpLiteError, toMcpLiteError } from './errors.js';
import { drainGenerator, isAsyncIterable, isThenable, toOutcome } from './handler-value.js';
import { type Logger, silentLogger } from './logger.js';
import type { MaybePromise } from './maybe-promise.js';
import type { CallResult, Outcome, ResponseMeta } from './outcomes.js';
import { PromiseManager, toSettlement } from './promises/manager.js';
import type { PromiseStore } from './promises/store.js';
import { PromptCatalog } from './prompts.js';
import { type RateLimiter, rateLimiterOf } from './rate-limit.js';
import { ResourceCatalog } from './resources.js';
import type { ToolServerOptions } from './server-options.js';
import { toolNotFound } from './suggest.js';
import { addSystemTools, CANCEL_TOOL, REDEEM_TOOL, type SystemCall } from './system-tools.js';
import type { ElicitationAnswers } from './tool.js';
import { WebtoolCatalog } from './webtools.js';

interface PendingCall {
  startedAt: number;
  tool: CompiledTool;
  context: CallContext;
  running: Promise<Outcome>;
  promoted: boolean;
  resolve: (r: CallResult) => void;
  reject: (e: unknown) => void;
}

/**
 * The protocol-neutral tool server: the catalog, invocation, validation, outcomes and promises. Bindings turn
 * their wire into `callTool` / `listTools` and the results back into their wire.
 */
export class ToolServer {
  /** The versioned tool catalog (user tools plus system tools). */
  readonly catalog: Catalog;
  /** Server name. */
  readonly name: string;
  /** Server version (`_meta.server_version`). */
  readonly version: string;
  /** The logger. */
  readonly logger: Logger;
  /** The authentication hook, if any. */
  readonly authenticate: Authenticate | undefined;
  /** The promise manager, when a store was given. */
  readonly promises: PromiseManager | undefined;
  /** Resources and resource templates. */
  readonly resources: ResourceCatalog;
  /** Prompt templates. */
  readonly prompts: PromptCatalog;
  /** The webtools (declared, or the catalog as one). */
  readonly webtools: WebtoolCatalog;

  private readonly store: PromiseStore | undefined;
  private readonly limiter: RateLimiter | undefined;
  private readonly answerBudgetMs: number;
  private readonly maxRunMs: number;
  private readonly elicitations: Elicitations;
  private readonly systemCalls: ReadonlyMap<string, SystemCall> = new Map();
  private readonly pending = new Set<PendingCall>();
  private sweeper: NodeJS.Timeout | undefined;
  private inFlightCount = 0;
  private idleWaiters: Array<() => void> = [];
  private closed = false;

  constructor(options: ToolServerOptions) {
    this.name = options.name ?? 'mcplite';
    this.version = options.version ?? '0.0.0';
    this.logger = options.logger ?? silentLogger;
    this.authenticate = options.authenticate;
    this.store = options.promiseStore;
    this.answerBudgetMs = this.store ? (options.answerBudgetMs ?? 10_000) : 0;
    this.maxRunMs = options.maxRunMs ?? 600_000;
    this.elicitations = new Elicitations(options.secret, options.elicitationTtlMs ?? 600_000);
    const reserved = new Set(this.store ? [REDEEM_TOOL, CANCEL_TOOL] : []);
    if (!this.store && options.tools.some((t) => t.longRunning)) {
      throw new McpLiteError('invalid_request', 'Long-running tools need a promise store');
    }
    this.catalog = new Catalog([], reserved);
    this.resources = new ResourceCatalog(options.resources, options.resourceTemplates);
    this.prompts = new PromptCatalog(options.prompts);
    if (this.store) {
      this.promises = new PromiseManager({
        store: this.store,
        ttlMs: options.promiseTtlMs ?? 3_600_000,
        logger: this.logger,
      });
      this.systemCalls = addSystemTools(this.catalog, this.promises);
    }
    for (const tool of options.tools) this.catalog.add(tool);
    this.webtools = new WebtoolCatalog(options.webtools, this.catalog, this, options.config);
    this.limiter = rateLimiterOf(options.rateLimit);
    // Every binding calls `call`: one allowance per caller on every wire.
    if (this.limiter) this.call = this.limiter.limit(this.call.bind(this));
  }

  /** Whether promises are possible (a store is configured), hence whether `redeem` is listed. */
  get promisesEnabled(): boolean {
    return this.promises !== undefined;
  }

  /** Calls running now (foreground and promised work). */
  get inFlight(): number {
    return this.inFlightCount;
  }

  /** The cached listing of the current catalog version. */
  listTools(): Listing {
    return this.catalog.listing();
  }

  /**
   * Calls a tool. Resolves with the outcome and its `_meta`; rejects with an McpLiteError for protocol errors
   * (unknown tool, invalid arguments, cancelled, deadline, internal).
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
    const startedAt = performance.now();
    const tool = request.action ?? this.catalog.get(request.name);
    if (!tool) throw toolNotFound(request.name, this.catalog.names());
    const args = this.checkArguments(tool, request.arguments);
    let elicitation: ElicitationAnswers | undefined;
    if (request.elicitation !== undefined) {
      const checked = this.elicitations.check(request.name, request.elicitation);
      if (checked.reask) return this.reask(tool, checked.reask, startedAt);
      elicitation = checked.complete;
    }
    const system = tool.system ? this.systemCalls.get(request.name) : undefined;
    if (system) {
      return system(args, request.signal).then(({ outcome, processingTimeMs }) =>
        this.result(outcome, processingTimeMs),
      );
    }
    const context = new CallContext({
      tool: request.name,
      principal: request.principal,
      elicitation,
      background: false,
      client: request,
      onPartial: request.onPartial,
      logger: this.logger,
      requestId: request.requestId,
      config: request.config ?? this.webtools.configFor(request.name),
    });
    if (tool.longRunningEstimateMs !== undefined && this.promises) {
      return this.startPromised(tool, args, context, startedAt);
    }
    return this.runForeground(tool, args, context, request, startedAt);
  }

  /** Waits until no call is running, up to `graceMs`; true when everything finished in time. */
  async drain(graceMs: number): Promise<boolean> {
    if (this.inFlightCount === 0) return true;
    let timer: NodeJS.Timeout | undefined;
    const idle = new Promise<boolean>((resolve) => this.idleWaiters.push(() => resolve(true)));
    const timeout = new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), graceMs);
    });
    const finished = await Promise.race([idle, timeout]);
    clearTimeout(timer);
    return finished;
  }

  /** Aborts what still runs, stops timers and closes the promise store. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.sweeper) clearInterval(this.sweeper);
    const reason = new McpLiteError('unavailable', 'The server is shutting down');
    for (const p of this.pending) p.context.abortController().abort(reason);
    this.promises?.abortAll(reason);
    this.promises?.close();
    await this.store?.close();
    await this.limiter?.close();
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
      value = tool.definition.handler(args, context);
    } catch (err) {
      this.end();
      throw this.handlerError(err, context, tool);
    }
    // Fast path: a synchronous handler needs no promise bookkeeping at all.
    if (!isThenable(value) && !isAsyncIterable(value)) {
      this.end();
      try {
        return this.result(toOutcome(tool, value, this.elicitations), performance.now() - startedAt);
      } catch (err) {
        throw this.handlerError(err, context, tool);
      }
    }
    const running = this.settleValue(tool, value, context);
    const canPromote = this.answerBudgetMs > 0 && !context.streaming;
    return new Promise<CallResult>((resolve, reject) => {
      const call: PendingCall = { startedAt, tool, context, running, promoted: false, resolve, reject };
      const signal = request.signal;
      const onAbort = () => {
        if (call.promoted) return;
        this.pending.delete(call);
        reject(toMcpLiteError(signal?.reason ?? new McpLiteError('cancelled', 'The call was cancelled')));
      };
      if (signal) {
        if (signal.aborted) onAbort();
        else signal.addEventListener('abort', onAbort, { once: true });
      }
      if (canPromote) {
        this.pending.add(call);
        this.startSweeper();
      }
      running.then(
        (outcome) => {
          this.end();
          if (call.promoted) return;
          this.pending.delete(call);
          signal?.removeEventListener('abort', onAbort);
          resolve(this.result(outcome, performance.now() - startedAt));
        },
        (err) => {
          this.end();
          if (call.promoted) return;
          this.pending.delete(call);
          signal?.removeEventListener('abort', onAbort);
          reject(this.handlerError(err, context, tool));
        },
      );
    });
  }

  /** Long-running tools: answer with a promise at once and run the handler as background work. */
  private async startPromised(
    tool: CompiledTool,
    args: Record<string, unknown>,
    context: CallContext,
    startedAt: number,
  ): Promise<CallResult> {
    const controller = context.detach();
    this.begin();
    const work = backgroundWork(
      () => this.settleValue(tool, tool.definition.handler(args, context), context),
      controller,
      this.maxRunMs,
      (err) => this.handlerError(err, context, tool),
    ).finally(() => this.end());
    const outcome = await this.promises!.register(
      tool.wire.name,
      tool.longRunningEstimateMs!,
      controller,
      work,
    );
    return this.result(outcome, performance.now() - startedAt);
  }

  /**
   * A partly answered multi-request elicitation: core asks again for the open requests without running the
   * handler. A long-running tool still answers with a promise (settled at once), so that its clients, and the
   * MCP tasks built on promises, see one shape whatever the round.
   */
  private async reask(tool: CompiledTool, outcome: Outcome, startedAt: number): Promise<CallResult> {
    if (tool.longRunningEstimateMs === undefined || !this.promises) {
      return this.result(outcome, performance.now() - startedAt);
    }
    const promised = await this.promises.settled(
      tool.wire.name,
      toSettlement({ outcome }, performance.now() - startedAt),
    );
    return this.result(promised, performance.now() - startedAt);
  }

  /** Promotes a call that outlived the answer budget into a promise. */
  private promote(call: PendingCall): void {
    call.promoted = true;
    this.pending.delete(call);
    const controller = call.context.detach();
    const elapsed = performance.now() - call.startedAt;
    const work = backgroundWork(
      () => call.running,
      controller,
      this.maxRunMs,
      (err) => this.handlerError(err, call.context, call.tool),
      call.startedAt,
    );
    // The estimate for work of unknown length: as long again as it has run so far.
    this.promises!.register(call.tool.wire.name, Math.max(1000, elapsed), controller, work).then(
      (outcome) => call.resolve(this.result(outcome, performance.now() - call.startedAt)),
      (err) => call.reject(err),
    );
  }

  /** Awaits a handler's value (promise or async generator) and normalises it into an outcome. */
  private async settleValue(tool: CompiledTool, value: unknown, context: CallContext): Promise<Outcome> {
    let v = value;
    if (isThenable(v)) v = await v;
    if (isAsyncIterable(v)) v = await drainGenerator(v, context);
    return toOutcome(tool, v, this.elicitations);
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

  private checkArguments(tool: CompiledTool, raw: unknown): Record<string, unknown> {
    const args = raw === undefined || raw === null ? {} : raw;
    if (typeof args !== 'object' || Array.isArray(args)) {
      throw new McpLiteError('invalid_params', 'Invalid arguments: must be an object', {
        errors: [{ field: 'arguments', message: 'must be an object', expected: 'object' }],
      });
    }
    return tool.validateInput(args) as Record<string, unknown>;
  }

  private handlerError(err: unknown, context: CallContext, tool: CompiledTool): McpLiteError {
    const e = toMcpLiteError(err);
    if (e.code === 'internal') logInternal(context.log, e, { tool: tool.wire.name }, 'tool handler failed');
    return e;
  }

  private begin(): void {
    this.inFlightCount++;
  }

  private end(): void {
    this.inFlightCount--;
    if (this.inFlightCount === 0 && this.idleWaiters.length > 0) {
      const waiters = this.idleWaiters;
      this.idleWaiters = [];
      for (const w of waiters) w();
    }
  }

  private startSweeper(): void {
    if (this.sweeper || this.closed) return;
    const every = Math.max(10, Math.min(250, Math.floor(this.answerBudgetMs / 4)));
    this.sweeper = setInterval(() => {
      if (this.pending.size === 0) return;
      const now = performance.now();
      for (const call of this.pending) if (now - call.startedAt >= this.answerBudgetMs) this.promote(call);
    }, every);
    this.sweeper.unref();
  }
}
