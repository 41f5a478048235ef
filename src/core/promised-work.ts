import { backgroundWork, type WorkEnd } from './background-work.js';
import type { CallRequest } from './call-request.js';
import type { Catalog, CompiledTool } from './catalog.js';
import { CallContext } from './context.js';
import { revivedAnswers, unansweredOutcome } from './declined-elicitation.js';
import type { Elicitations } from './elicitations.js';
import { logInternal, type McpLiteError, toMcpLiteError } from './errors.js';
import { drainGenerator, isAsyncIterable, isThenable, runHandler, toOutcome } from './handler-value.js';
import type { InFlight } from './in-flight.js';
import { LazyAbort } from './lazy-abort.js';
import type { Logger } from './logger.js';
import type { Outcome, PromiseOutcome } from './outcomes.js';
import { jobOf, type LeasedJob, type PromiseManager, toSettlement } from './promises/manager.js';
import type { PromiseRecord, PromiseStore } from './promises/store.js';
import { toolNotFound } from './suggest.js';
import { currentTraceCarrier, traceWork } from './telemetry/work-tracing.js';
import { asToolError } from './tool-errors.js';
import type { WebtoolCatalog } from './webtools.js';
import type { JobRunner, LocalSlot, WorkQueue } from './work-queue.js';

/**
 * Awaits a handler's value (promise or async generator) and normalises it into an outcome. A promise is followed
 * with two callbacks rather than awaited in an async function: promised work waits here for as long as it runs,
 * and a suspended async function holds more than the callbacks.
 */
export function settleValue(
  tool: CompiledTool,
  value: unknown,
  context: CallContext,
  elicitations: Elicitations,
): Promise<Outcome> {
  try {
    if (!isThenable(value)) return settleResolved(tool, value, context, elicitations);
    return Promise.resolve(value).then(
      (v) => settleResolved(tool, v, context, elicitations),
      (err) => unanswered(tool, err, context, elicitations),
    );
  } catch (err) {
    return Promise.reject(err);
  }
}

/** `settleValue` of a value that is not a promise (an async generator is drained here). */
async function settleResolved(
  tool: CompiledTool,
  value: unknown,
  context: CallContext,
  elicitations: Elicitations,
): Promise<Outcome> {
  let v = value;
  if (isAsyncIterable(v)) {
    try {
      v = await drainGenerator(v, context);
    } catch (err) {
      return unanswered(tool, err, context, elicitations);
    }
  }
  return toOutcome(tool, v, elicitations, context);
}

/** A handler that read the answers of a declined round ends as declined (core/declined-elicitation.ts). */
function unanswered(
  tool: CompiledTool,
  err: unknown,
  context: CallContext,
  elicitations: Elicitations,
): Outcome {
  const v = unansweredOutcome(err);
  if (v === undefined) throw err;
  return toOutcome(tool, v, elicitations, context);
}

/**
 * What a handler threw, as the one error type and the tool's own (`asToolError`); an internal error is logged
 * here, the one place that does.
 */
export function handlerError(err: unknown, context: CallContext, tool: CompiledTool): McpLiteError {
  const e = toMcpLiteError(err);
  if (e.code === 'internal') {
    // On the server's logger: `context.log` binds the tool already, and naming it again wrote "tool" twice.
    const fields: Record<string, unknown> = { tool: tool.wire.name };
    if (context.requestId !== undefined) fields.requestId = context.requestId;
    logInternal(context.serverLog, e, fields, 'tool handler failed');
  }
  return asToolError(e);
}

/** What promised work needs from the server that owns it. */
export interface PromisedWorkInit {
  catalog: Catalog;
  webtools: WebtoolCatalog;
  elicitations: Elicitations;
  logger: Logger;
  /** Log each job's arguments with its records (`ToolServerOptions.logArguments`). */
  logArguments?: boolean;
  inFlight: InFlight;
  promises: PromiseManager;
  store: PromiseStore;
  queue: WorkQueue;
  /** Hard limit for promised work. */
  maxRunMs: number;
  /** The server's `callerKey` (its IPv6 prefix applied): who owns a promise. */
  callerKey: (caller: CallRequest) => string;
}

/**
 * Promised work, in every form: a long-running tool's call handed to the work queue, a job run from that queue
 * (here or in a worker process), and a call promoted past the answer budget, which keeps running here under a
 * lease. The promise store holds the state; this only starts and settles work.
 */
export class PromisedWork {
  constructor(private readonly init: PromisedWorkInit) {}

  /**
   * Runs one job (`WorkQueue` calls this, here or in a worker process): the tool's handler as background work,
   * aborted by `abort` or after `maxRunMs`, ended as the settlement to store.
   */
  readonly runJob: JobRunner = (job, abort, onPartial) => {
    const { catalog, webtools, logger } = this.init;
    const tool = catalog.get(job.tool);
    if (!tool) return Promise.resolve(toSettlement({ error: toolNotFound(job.tool, catalog.names()) }, 0));
    const context = new CallContext({
      tool: job.tool,
      arguments: job.arguments,
      principal: job.principal,
      elicitation: revivedAnswers(job.elicitation),
      background: true,
      client: {},
      onPartial,
      streaming: job.streaming === true,
      logger: this.init.logArguments ? logger.child({ arguments: job.arguments }) : logger,
      requestId: job.requestId,
      config: job.config ?? webtools.configFor(job.tool),
      abort,
    });
    const controller = context.detach();
    return traceWork(job, () =>
      this.inProcess(tool, () => runHandler(tool, job.arguments, context), context, controller),
    );
  };

  /**
   * A long-running tool's call: a pending promise of the caller, its work handed to the queue, or run here at once
   * when the queue has a local slot free (under a lease, the job kept with the promise so that another worker can
   * run it if this replica dies). A pinned webtool version's own action is not in the catalog a worker loads, so
   * it runs here under a lease, with no job kept.
   */
  async start(
    tool: CompiledTool,
    args: Record<string, unknown>,
    context: CallContext,
    request: CallRequest,
  ): Promise<PromiseOutcome> {
    const { promises, catalog } = this.init;
    const owner = this.init.callerKey(request);
    const estimate = tool.longRunningEstimateMs ?? 0;
    if (tool !== catalog.get(request.name)) {
      const controller = context.detach();
      const work = () => this.inProcess(tool, () => runHandler(tool, args, context), context, controller);
      return promises.register(tool.wire.name, estimate, controller, work, owner);
    }
    // Built key by key: on Node 20, spreading optional keys in (`...(x ? { x } : {})`) made this object cost
    // more than the rest of making a promise.
    const leased: LeasedJob = { tool: tool.wire.name, arguments: args, config: context.config };
    if (request.principal) leased.principal = request.principal;
    if (context.elicitation) leased.elicitation = context.elicitation;
    if (request.requestId !== undefined) leased.requestId = request.requestId;
    if (request.onPartial) leased.streaming = true;
    const trace = currentTraceCarrier();
    if (trace) leased.trace = trace;
    const slot = this.init.queue.reserveLocal?.();
    if (slot) return this.runHere(leased, estimate, owner, slot, request.onPartial);
    const record = await promises.pending(tool.wire.name, estimate, owner);
    const job = jobOf(leased, record);
    try {
      await this.init.queue.submit(job, request.onPartial);
    } catch (err) {
      // Never hand out a promise that nothing will keep.
      await this.init.store.cancel(record.token).catch(() => {});
      throw toMcpLiteError(err);
    }
    return {
      type: 'promise',
      token: record.token,
      estimatedCompletion: new Date(record.estimatedCompletion).toISOString(),
    };
  }

  /**
   * A call that outlived the answer budget becomes a promise of `owner`; its work goes on here, under a lease.
   * The estimate for work of unknown length: as long again as it has run so far.
   */
  promote(
    tool: CompiledTool,
    running: Promise<Outcome>,
    context: CallContext,
    owner: string,
    startedAt: number,
  ): Promise<PromiseOutcome> {
    const controller = context.detach();
    const work = backgroundWork(
      () => running,
      controller,
      this.init.maxRunMs,
      new HandlerEnd(tool, context, undefined),
      startedAt,
    );
    const elapsed = performance.now() - startedAt;
    return this.init.promises.register(
      tool.wire.name,
      Math.max(1000, elapsed),
      controller,
      () => work,
      owner,
    );
  }

  /**
   * A job run here in the queue's local slot, exactly as a worker would run it (`runJob`), under a lease with the
   * job kept. Its partials go to the submitting call and to whoever watches it (`slot.publish`).
   */
  private async runHere(
    leased: LeasedJob,
    estimate: number,
    owner: string,
    slot: LocalSlot,
    onPartial: ((data: unknown) => void | Promise<void>) | undefined,
  ): Promise<PromiseOutcome> {
    const controller = new LazyAbort();
    let streamed = false;
    const run = (record: PromiseRecord) => {
      const job = jobOf(leased, record);
      const forward = (data: unknown) => {
        streamed = true;
        void slot.publish(job.token, data);
        return onPartial?.(data);
      };
      return this.runJob(job, controller, forward).finally(() => slot.release(job.token, streamed));
    };
    try {
      return await this.init.promises.register(leased.tool, estimate, controller, run, owner, leased);
    } catch (err) {
      // The promise could not be stored (a bound, Redis down): the job never started.
      slot.release(undefined, false);
      throw err;
    }
  }

  /** The handler as background work counted in flight, ended as a settlement. */
  private inProcess(
    tool: CompiledTool,
    run: () => unknown,
    context: CallContext,
    controller: LazyAbort,
  ): ReturnType<JobRunner> {
    const { inFlight, elicitations, maxRunMs } = this.init;
    inFlight.begin();
    return backgroundWork(
      run,
      controller,
      maxRunMs,
      new HandlerEnd(tool, context, elicitations),
      performance.now(),
      inFlight,
    );
  }
}

/**
 * How a handler's background work ends (`WorkEnd`): with `elicitations`, its value settled as `settleValue` settles a
 * call's (a generator drained, the outcome checked); without, the value is the outcome already (a promoted call's
 * settling ran in the call). What it threw is `handlerError`'s.
 */
class HandlerEnd implements WorkEnd {
  constructor(
    private readonly tool: CompiledTool,
    private readonly context: CallContext,
    private readonly elicitations: Elicitations | undefined,
  ) {}

  resolved(value: unknown): Outcome | Promise<Outcome> {
    if (!this.elicitations) return value as Outcome;
    return settleResolved(this.tool, value, this.context, this.elicitations);
  }

  rejected(err: unknown): Outcome {
    if (!this.elicitations) throw err;
    return unanswered(this.tool, err, this.context, this.elicitations);
  }

  error(err: unknown): McpLiteError {
    return handlerError(err, this.context, this.tool);
  }
}
