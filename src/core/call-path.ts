import { AnswerBudget } from './answer-budget.js';
import type { Authenticate, Principal } from './auth.js';
import type { CallRequest } from './call-request.js';
import type { CallerSessions } from './caller-session.js';
import type { Catalog, CompiledTool } from './catalog.js';
import { CallContext } from './context.js';
import type { Elicitations } from './elicitations.js';
import { McpLiteError } from './errors.js';
import { isAsyncIterable, isThenable, runHandler, toOutcome } from './handler-value.js';
import type { InFlight } from './in-flight.js';
import type { Logger } from './logger.js';
import { type MaybePromise, mapMaybe } from './maybe-promise.js';
import { assertToolScopes } from './oauth/tool-scopes.js';
import type { CallResult, Outcome, ResponseMeta } from './outcomes.js';
import type { Pipeline, Terminal } from './pipeline.js';
import { handlerError, type PromisedWork, settleValue } from './promised-work.js';
import { type PromiseManager, toSettlement } from './promises/manager.js';
import { type SystemCall, unknownTool } from './system-tools.js';
import type { ElicitationAnswers } from './tool.js';
import { ToolCallOperation } from './tool-call-operation.js';
import { ToolResolution } from './tool-resolution.js';
import type { WebtoolCatalog } from './webtools.js';

/** What the call path works with, made by the server (server.ts) once. */
export interface CallPathInit {
  catalog: Catalog;
  pipeline: Pipeline;
  authenticate: Authenticate | undefined;
  elicitations: Elicitations;
  sessions: CallerSessions;
  systemCalls: ReadonlyMap<string, SystemCall>;
  webtools: WebtoolCatalog;
  logger: Logger;
  logArguments: boolean;
  inFlight: InFlight;
  /** The promise manager and promised work, when a store was given. */
  promises: PromiseManager | undefined;
  work: PromisedWork | undefined;
  /** How long a foreground call may run before it is promoted, in ms; 0: never. */
  answerBudgetMs: number;
  /** `_meta.server_version`. */
  version: string;
  callerKey: (caller: { principal?: Principal | undefined; remoteAddress?: string | undefined }) => string;
}

/**
 * The path of one tool call, from request to result: resolve the tool (as the caller may see it), its scopes, the
 * argument check, an elicitation answer's check (and the re-ask of a partly answered one), the invocation (system
 * tool, promised work, or the handler in the foreground under the answer budget) and the result's `_meta`.
 */
export class CallPath {
  /** How a call's tool is found and its arguments checked (the resolving stage screens with it). */
  readonly resolution: ToolResolution;
  private readonly budget: AnswerBudget;

  constructor(private readonly init: CallPathInit) {
    this.resolution = new ToolResolution(init.catalog, init.pipeline, init.authenticate);
    this.budget = new AnswerBudget(init.answerBudgetMs, {
      promote: (call, request) =>
        init.work!.promote(call.tool, call.running, call.context, init.callerKey(request), call.startedAt),
      result: (outcome, ms) => this.result(outcome, ms),
      ended: () => init.inFlight.end(),
    });
  }

  /** `ToolServer.call`: answered synchronously when nothing has to be waited for. */
  call(request: CallRequest): MaybePromise<CallResult> {
    const pipeline = this.init.pipeline;
    if (pipeline.empty) {
      const startedAt = performance.now();
      const tool = request.action ?? this.init.catalog.get(request.name);
      if (!tool) throw unknownTool(request.name, this.init.catalog.modelNames());
      // Before the arguments: a caller who may not call the tool learns nothing from its validation.
      assertToolScopes(tool.definition.auth?.scopes, request.principal, this.init.authenticate);
      const args = this.resolution.checkArguments(tool, request.arguments);
      return this.proceed(tool, args, request, startedAt, undefined);
    }
    const op = new ToolCallOperation(request, performance.now());
    const outcome = pipeline.run(op, this.finishCall);
    // Mapped in this turn when the chain answered synchronously: no closure, no promise turn.
    return outcome instanceof Promise
      ? outcome.then((o) => this.resultOf(op, o))
      : this.resultOf(op, outcome);
  }

  /** Aborts every foreground call still waiting within the budget (the server is closing). */
  close(reason: McpLiteError): void {
    this.budget.close(reason);
  }

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
    if (result instanceof Promise) return result.then((r) => CallPath.kept(call, r));
    return CallPath.kept(call, result);
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
      const caller = this.init.callerKey(request);
      const call = { arguments: args, principal: request.principal };
      return this.init.elicitations
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
    const system = tool.system ? this.init.systemCalls.get(request.name) : undefined;
    if (system) {
      return system(args, () => request.signal, request, request.onPartial).then(
        ({ outcome, processingTimeMs }) => this.result(outcome, processingTimeMs),
      );
    }
    const init = this.init;
    const context = new CallContext({
      tool: request.name,
      arguments: args,
      principal: request.principal,
      elicitation,
      background: false,
      client: request,
      onPartial: request.onPartial,
      logger: init.logArguments ? init.logger.child({ arguments: args }) : init.logger,
      requestId: request.requestId,
      config: request.config ?? init.webtools.configFor(request.name),
      headers: request.headers,
      binding: request.binding,
      callerKeyOf: this.keyOfCaller,
      session: request.session ? { token: request.session, read: this.readSession } : undefined,
    });
    if (op) op.context = context;
    // The session a tool set rides on the call's own result; promised work's later ones are ignored (context.ts).
    const withSession = (r: CallResult) =>
      init.sessions.withSession(r, context.takeSession(), () => context.callerKey);
    if (tool.longRunningEstimateMs !== undefined && init.work) {
      return init.work
        .start(tool, args, context, request)
        .then((promised) => withSession(this.result(promised, performance.now() - startedAt)));
    }
    return mapMaybe(this.runForeground(tool, args, context, request, startedAt), withSession);
  }

  /** `callerKey` as one function made once, for the contexts that ask it lazily (`ctx.callerKey`). */
  private readonly keyOfCaller = (caller: { principal?: Principal; remoteAddress?: string }): string =>
    this.init.callerKey(caller);

  private readonly readSession = (token: string, key: string): unknown => this.init.sessions.read(token, key);

  /** The handler in the foreground: a synchronous answer at once, else its caller waits under the answer budget. */
  private runForeground(
    tool: CompiledTool,
    args: Record<string, unknown>,
    context: CallContext,
    request: CallRequest,
    startedAt: number,
  ): MaybePromise<CallResult> {
    const inFlight = this.init.inFlight;
    inFlight.begin();
    let value: unknown;
    try {
      value = runHandler(tool, args, context);
    } catch (err) {
      inFlight.end();
      throw handlerError(err, context, tool);
    }
    // Fast path: a synchronous handler needs no promise bookkeeping at all.
    if (!isThenable(value) && !isAsyncIterable(value)) {
      inFlight.end();
      try {
        return this.result(
          toOutcome(tool, value, this.init.elicitations, context),
          performance.now() - startedAt,
        );
      } catch (err) {
        throw handlerError(err, context, tool);
      }
    }
    const running = settleValue(tool, value, context, this.init.elicitations);
    // Only a server that lists `redeem` promotes: a promise nobody can redeem would be a lost answer.
    const promotable = this.init.systemCalls.size > 0 && !context.streaming;
    return this.budget.wait({ startedAt, tool, context, running }, request, promotable);
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
    const promises = this.init.promises;
    if (tool.longRunningEstimateMs === undefined || !promises) {
      return this.result(outcome, performance.now() - startedAt);
    }
    const promised = await promises.settled(
      tool.wire.name,
      toSettlement({ outcome }, performance.now() - startedAt),
      owner,
    );
    return this.result(promised, performance.now() - startedAt);
  }

  /** The result of an outcome: the outcome and its `_meta`. */
  private result(outcome: Outcome, processingTimeMs: number): CallResult {
    const meta: ResponseMeta = {
      response_type: outcome.type,
      timestamp: Date.now(),
      processing_time_ms: Math.round(processingTimeMs),
      server_version: this.init.version,
    };
    // Assigned rather than spread in: same key order, without two throwaway objects on every call.
    if (outcome.type === 'promise') {
      meta.promise_token = outcome.token;
      meta.estimated_completion = Date.parse(outcome.estimatedCompletion);
    }
    return { outcome, meta };
  }
}
