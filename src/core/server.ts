import type { Authenticate, Principal } from './auth.js';
import { Catalog, type CompiledTool, type Listing } from './catalog.js';
import { CallContext } from './context.js';
import { type ElicitationReply, Elicitations } from './elicitations.js';
import { McpLiteError, toMcpLiteError } from './errors.js';
import { type Logger, silentLogger } from './logger.js';
import { type CallResult, isHandlerOutcome, type Outcome, type ResponseMeta } from './outcomes.js';
import { MAX_REDEEM_WAIT_MS, PromiseManager, toSettlement } from './promises/manager.js';
import type { PromiseStore, Settlement } from './promises/store.js';
import { PromptCatalog, type PromptDefinition } from './prompts.js';
import { ResourceCatalog, type ResourceDefinition, type ResourceTemplateDefinition } from './resources.js';
import { closestName } from './suggest.js';
import type { ElicitationAnswers, ToolDefinition } from './tool.js';

/** Options of a tool server (the protocol-neutral part every binding shares). */
export interface ToolServerOptions {
  /** The tools, defined once for every binding. */
  tools: readonly ToolDefinition[];
  /** Server name, reported by bindings that have a place for it. Default "mcplite". */
  name?: string;
  /** Server version, sent as `_meta.server_version`. Default "0.0.0". */
  version?: string;
  /** Where promises live. Without a store there are no promises: no `redeem`, no long-running tools. */
  promiseStore?: PromiseStore;
  /**
   * A call still running after this many milliseconds is answered with a promise and goes on as background
   * work (non-streaming calls only). 0 turns this off. Default 10 000.
   */
  answerBudgetMs?: number;
  /** How long a promise can be redeemed. Default one hour. */
  promiseTtlMs?: number;
  /** Hard limit for promised (background) work; it is aborted after this. Default ten minutes. */
  maxRunMs?: number;
  /** Key that signs elicitation states; replicas must share it. Default: random per process. */
  secret?: string | Uint8Array;
  /** How long an elicitation state stays valid. Default ten minutes. */
  elicitationTtlMs?: number;
  /** Structured logger (pino-compatible). Default: silent. */
  logger?: Logger;
  /** Optional authentication hook every binding applies (see `bearerAuth`). */
  authenticate?: Authenticate;
  /** Resources at fixed URIs, defined once for every binding that has resources (MCP). */
  resources?: readonly ResourceDefinition[];
  /** Resource templates (RFC 6570 URI templates). */
  resourceTemplates?: readonly ResourceTemplateDefinition[];
  /** Prompt templates, defined once (MCP prompts, MCP-lite HTTP `prompts`). */
  prompts?: readonly PromptDefinition[];
}

/** One tool call as a binding hands it to core. */
export interface CallRequest {
  /** The tool's name. */
  name: string;
  /** The arguments; must be an object (undefined means `{}`). */
  arguments?: unknown;
  /**
   * Present when the call answers an elicitation: the signed state and the user's answers. When only some of
   * several requests are answered, the call ends in a new elicitation for the others and the handler does not run.
   */
  elicitation?: ElicitationReply;
  /** The authenticated caller. */
  principal?: Principal;
  /** Aborts the call (client hang-up, cancel, deadline: the abort reason says which). */
  signal?: AbortSignal;
  /** Set for streaming calls: receives each partial result. May return a promise for backpressure. */
  onPartial?: (data: unknown) => void | Promise<void>;
  /** The binding's request id, for logs. */
  requestId?: string | number;
}

/** Names of the system tools. */
export const REDEEM_TOOL = 'redeem';
export const CANCEL_TOOL = 'cancel';

type SystemCall = (
  args: Record<string, unknown>,
  signal: AbortSignal | undefined,
) => Promise<{ outcome: Outcome; processingTimeMs: number }>;

interface PendingCall {
  startedAt: number;
  tool: CompiledTool;
  context: CallContext;
  running: Promise<Outcome>;
  promoted: boolean;
  resolve: (r: CallResult) => void;
  reject: (e: unknown) => void;
}

const MAX_TOOL_NAME_ECHO = 256;

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

  private readonly store: PromiseStore | undefined;
  private readonly answerBudgetMs: number;
  private readonly maxRunMs: number;
  private readonly elicitations: Elicitations;
  private readonly systemCalls = new Map<string, SystemCall>();
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
      this.addSystemTools(this.promises);
    }
    for (const tool of options.tools) this.catalog.add(tool);
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
  call(request: CallRequest): CallResult | Promise<CallResult> {
    const startedAt = performance.now();
    const tool = this.catalog.get(request.name);
    if (!tool) throw this.toolNotFound(request.name);
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
  }

  // ---- invocation ----

  private runForeground(
    tool: CompiledTool,
    args: Record<string, unknown>,
    context: CallContext,
    request: CallRequest,
    startedAt: number,
  ): CallResult | Promise<CallResult> {
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
        return this.result(this.normalize(tool, value), performance.now() - startedAt);
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
    const work = this.backgroundWork(tool, context, controller, () =>
      this.settleValue(tool, tool.definition.handler(args, context), context),
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
    const work = this.backgroundWork(call.tool, call.context, controller, () => call.running, call.startedAt);
    // The estimate for work of unknown length: as long again as it has run so far.
    this.promises!.register(call.tool.wire.name, Math.max(1000, elapsed), controller, work).then(
      (outcome) => call.resolve(this.result(outcome, performance.now() - call.startedAt)),
      (err) => call.reject(err),
    );
  }

  /** Wraps promised work: bounded by maxRunMs, ends as a settlement, never rejects. */
  private backgroundWork(
    tool: CompiledTool,
    context: CallContext,
    controller: AbortController,
    run: () => Promise<Outcome>,
    startedAt = performance.now(),
  ): Promise<Settlement> {
    const limit = setTimeout(
      () => controller.abort(new McpLiteError('deadline_exceeded', 'The promised work ran out of time')),
      this.maxRunMs,
    );
    limit.unref();
    const aborted = new Promise<never>((_, reject) => {
      if (controller.signal.aborted) reject(controller.signal.reason);
      controller.signal.addEventListener('abort', () => reject(controller.signal.reason), { once: true });
    });
    aborted.catch(() => {});
    let work: Promise<Outcome>;
    try {
      work = run();
    } catch (err) {
      work = Promise.reject(err);
    }
    return Promise.race([work, aborted])
      .then(
        (outcome) => toSettlement({ outcome }, performance.now() - startedAt),
        (err) =>
          toSettlement({ error: this.handlerError(err, context, tool) }, performance.now() - startedAt),
      )
      .finally(() => clearTimeout(limit));
  }

  /** Awaits a handler's value (promise or async generator) and normalises it into an outcome. */
  private async settleValue(tool: CompiledTool, value: unknown, context: CallContext): Promise<Outcome> {
    let v = value;
    if (isThenable(v)) v = await v;
    if (isAsyncIterable(v)) v = await drainGenerator(v, context);
    return this.normalize(tool, v);
  }

  /** A handler's return value as an outcome; answers are checked against the outputSchema. */
  private normalize(tool: CompiledTool, value: unknown): Outcome {
    if (!isHandlerOutcome(value)) return this.checkedAnswer(tool, value === undefined ? null : value);
    switch (value.type) {
      case 'answer':
        return this.checkedAnswer(tool, value.result);
      case 'failure':
        return {
          type: 'failure',
          message: value.message,
          ...(value.code !== undefined ? { code: value.code } : {}),
          ...(value.details !== undefined ? { details: value.details } : {}),
        };
      case 'request-for-more-resource': {
        const { type, resource, requested, granted, unit, message } = value;
        return {
          type,
          resource,
          requested,
          message,
          ...(granted !== undefined ? { granted } : {}),
          ...(unit ? { unit } : {}),
        };
      }
      case 'elicit':
        return this.elicitations.outcome(tool.wire.name, value);
    }
  }

  private checkedAnswer(tool: CompiledTool, result: unknown): Outcome {
    if (tool.validateOutput) {
      try {
        tool.validateOutput(result, 'result');
      } catch (err) {
        throw new McpLiteError('internal', 'Internal error', undefined, {
          cause: new Error(
            `Tool "${tool.wire.name}" returned a result that does not match its outputSchema`,
            { cause: err },
          ),
        });
      }
    }
    return { type: 'answer', result };
  }

  private result(outcome: Outcome, processingTimeMs: number): CallResult {
    const meta: ResponseMeta = {
      response_type: outcome.type,
      timestamp: isoNow(),
      processing_time_ms: Math.round(processingTimeMs),
      server_version: this.version,
    };
    // Assigned rather than spread in: same key order, without two throwaway objects on every call.
    if (outcome.type === 'promise') {
      meta.promise_token = outcome.token;
      meta.estimated_completion = outcome.estimatedCompletion;
    }
    return { outcome, meta };
  }

  // ---- checks ----

  private checkArguments(tool: CompiledTool, raw: unknown): Record<string, unknown> {
    const args = raw === undefined || raw === null ? {} : raw;
    if (typeof args !== 'object' || Array.isArray(args)) {
      throw new McpLiteError('invalid_params', 'Invalid arguments: must be an object', {
        errors: [{ field: 'arguments', message: 'must be an object', expected: 'object' }],
      });
    }
    return tool.validateInput(args) as Record<string, unknown>;
  }

  private toolNotFound(name: string): McpLiteError {
    const available = this.catalog.names();
    // Tool names are at most 128 characters: a much longer request gets no (quadratic) suggestion and is not
    // echoed back whole.
    const plausible = name.length <= MAX_TOOL_NAME_ECHO;
    const suggestion = plausible ? closestName(name, available) : undefined;
    return new McpLiteError('tool_not_found', 'Tool not found', {
      requested_tool: plausible ? name : `${name.slice(0, MAX_TOOL_NAME_ECHO)}…`,
      available_tools: available,
      // Spec A.5 always carries a suggestion; when no name is close, the useful advice is where to look.
      suggestion: suggestion
        ? `Did you mean '${suggestion}'?`
        : 'No tool has a similar name: pick one of available_tools (tools/list describes each)',
    });
  }

  private handlerError(err: unknown, context: CallContext, tool: CompiledTool): McpLiteError {
    const e = toMcpLiteError(err);
    if (e.code === 'internal')
      context.log.error({ err: e.cause ?? err, tool: tool.wire.name }, 'tool handler failed');
    return e;
  }

  // ---- bookkeeping ----

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

  private addSystemTools(promises: PromiseManager): void {
    const tokenSchema = {
      type: 'string',
      description: 'The promise token received from a previous operation',
    };
    this.catalog.add(
      {
        name: REDEEM_TOOL,
        '@type': 'system',
        description:
          'Redeem a promise token to get the result of a long-running operation. Returns the final result or a new promise.',
        inputSchema: {
          type: 'object',
          required: ['promise'],
          properties: {
            promise: tokenSchema,
            wait_ms: {
              type: 'integer',
              minimum: 0,
              maximum: MAX_REDEEM_WAIT_MS,
              description:
                'Wait up to this long for the work to finish before answering with a fresh promise',
            },
          },
        },
        handler: unreachable,
      },
      true,
    );
    this.catalog.add(
      {
        name: CANCEL_TOOL,
        '@type': 'system',
        description: 'Cancel the long-running operation behind a promise token.',
        inputSchema: { type: 'object', required: ['promise'], properties: { promise: tokenSchema } },
        handler: unreachable,
      },
      true,
    );
    this.systemCalls.set(REDEEM_TOOL, (args, signal) =>
      promises.redeem(args.promise, typeof args.wait_ms === 'number' ? args.wait_ms : 0, signal),
    );
    this.systemCalls.set(CANCEL_TOOL, async (args) => {
      const r = await promises.cancel(args.promise);
      return { outcome: { type: 'answer', result: { promise: args.promise, ...r } }, processingTimeMs: 0 };
    });
  }
}

let isoMs = Number.NaN;
let isoText = '';
let isoSecond = Number.NaN;
let isoPrefix = '';

/**
 * The current time as ISO-8601, exactly as `new Date().toISOString()` writes it. Formatting a Date costs about
 * as much as a small tool call, so the text is reused within a millisecond (the format's resolution, and many
 * calls end within one under load) and otherwise only the milliseconds are appended to the cached rest.
 */
function isoNow(): string {
  const now = Date.now();
  if (now !== isoMs) {
    isoMs = now;
    const ms = now % 1000;
    const second = now - ms;
    if (second !== isoSecond) {
      isoSecond = second;
      // "2026-01-02T03:04:05.000Z" without "000Z"; slicing from the end also suits six-digit years.
      isoPrefix = new Date(second).toISOString().slice(0, -4);
    }
    isoText = `${isoPrefix}${ms < 10 ? '00' : ms < 100 ? '0' : ''}${ms}Z`;
  }
  return isoText;
}

function unreachable(): never {
  throw new McpLiteError('internal', 'System tools are answered by the server itself');
}

function isThenable(v: unknown): v is PromiseLike<unknown> {
  return typeof v === 'object' && v !== null && typeof (v as { then?: unknown }).then === 'function';
}

function isAsyncIterable(v: unknown): v is AsyncIterable<unknown> {
  return (
    typeof v === 'object' &&
    v !== null &&
    typeof (v as Record<symbol, unknown>)[Symbol.asyncIterator] === 'function'
  );
}

/** Runs an async generator handler: each yield is a partial, the return value is the answer; stops on abort. */
async function drainGenerator(iterable: AsyncIterable<unknown>, context: CallContext): Promise<unknown> {
  const iterator = iterable[Symbol.asyncIterator]();
  const signal = context.signal;
  // On a streaming call the client already has every partial, so they are not kept (a long stream stays flat in
  // memory); without streaming, a generator that returns nothing answers with the list of what it yielded.
  const partials: unknown[] | undefined = context.streaming ? undefined : [];
  for (;;) {
    if (signal.aborted) {
      await iterator.return?.();
      throw signal.reason;
    }
    const step = await iterator.next();
    if (step.done) return step.value === undefined ? (partials ?? null) : step.value;
    partials?.push(step.value);
    await context.partial(step.value);
  }
}

/** Creates the protocol-neutral tool server. Most users want `createServer` from `mcplite`, which adds defaults. */
export function createToolServer(options: ToolServerOptions): ToolServer {
  return new ToolServer(options);
}
