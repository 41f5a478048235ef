import { asErrorCode, McpLiteError } from '../../core/errors.js';
import type { CallResult, Outcome, PromiseOutcome } from '../../core/outcomes.js';
import type { PromiseRecord } from '../../core/promises/store.js';
import type { ToolServer } from '../../core/server.js';
import type { SessionStateStore } from '../../core/session-state.js';
import { CANCEL_TOOL, REDEEM_TOOL } from '../../core/system-tools.js';
import { MemorySessionStore } from '../../stores/memory-sessions.js';
import { echoName } from '../common/echo.js';
import type { Exchange } from './exchange.js';
import { inputRequests, toElicitationReply } from './input-requests.js';
import { type TaskLimits, type TaskOrigin, TaskOrigins } from './task-origins.js';
import { toCallToolResult, toMcpError } from './wire.js';

/** The extension's identifier, as declared in capabilities. */
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

/** How often clients are told to poll `tasks/get`. */
const POLL_INTERVAL_MS = 500;

/** Options of the tasks extension. */
export interface TaskOptions extends TaskLimits {
  /**
   * Tools that only run as tasks (MCP `taskSupport: "required"`): a stateless client that did not declare the
   * tasks extension gets -32021 for them; a 2025-11-25 session sees them listed `taskSupport: "required"` and gets
   * -32601 for a call that asks for no task.
   */
  tasksRequired?: readonly string[];
}

/**
 * The tasks extension for a server, when it has promises (tasks are promises under another name); task origins
 * live in `store` (the binding's session store, so that replicas sharing it resume each other's tasks; default: a
 * memory store of its own).
 */
export function taskRegistryFor(
  server: ToolServer,
  options: TaskOptions = {},
  store?: SessionStateStore,
): TaskRegistry | undefined {
  return server.promisesEnabled
    ? new TaskRegistry(server, new Set(options.tasksRequired ?? []), options, store)
    : undefined;
}

/**
 * The tasks extension (`io.modelcontextprotocol/tasks`, SEP-2663) on the stateless revision: a promise becomes a
 * task for a client that declared the extension. Tasks are promises under another name, so the promise store
 * holds their state; the task id is the promise token. A task whose work ends by eliciting reports
 * `input_required`, and `tasks/update` resumes it as a new call of the same tool (the binding's session store
 * keeps the arguments for that, bounded: `task-origins.ts`). With auth on, a task belongs to the principal that made it.
 */
export class TaskRegistry {
  private readonly origins: TaskOrigins;

  constructor(
    readonly server: ToolServer,
    /** Tools that cannot run without the extension (MCP `taskSupport: "required"`). */
    private readonly required: ReadonlySet<string> = new Set(),
    limits: TaskLimits = {},
    /** Where the task origins live (default: a memory store of this registry). */
    store: SessionStateStore = new MemorySessionStore(),
  ) {
    this.origins = new TaskOrigins(store, limits);
  }

  /** Refuses (`resource_exhausted`) a call that could become a task when its caller holds as many as allowed. */
  admit(x: Pick<Exchange, 'principal' | 'remoteAddress'>): Promise<void> {
    return this.origins.admit(this.server.callerKey(x));
  }

  /**
   * Keeps a 2025-11-25 task (`handshake-tasks.ts`: its id is its promise's token) among its caller's tasks, under
   * the same bounds as the extension's, for `tasks/list`. Over a bound the promise is cancelled and the caller gets
   * `resource_exhausted`.
   */
  async track(
    name: string,
    promise: { token: string; expiresAt: number },
    x: Pick<Exchange, 'principal' | 'remoteAddress'>,
  ): Promise<void> {
    try {
      await this.origins.add(promise.token, {
        tool: name,
        arguments: undefined,
        token: promise.token,
        owner: this.server.callerKey(x),
        expiresAt: promise.expiresAt,
        notResumable: 'its revision has no tasks/update',
      });
    } catch (err) {
      this.server.promises!.cancel(promise.token, x).catch(() => {});
      throw err;
    }
  }

  /** One page of the ids of the caller's own live tasks (`callerKey`), soonest to expire first. */
  ownTaskIds(
    x: Pick<Exchange, 'principal' | 'remoteAddress'>,
    offset: number,
    limit: number,
  ): Promise<{ ids: string[]; more: boolean }> {
    return this.origins.ids(this.server.callerKey(x), offset, limit);
  }

  /** Whether the request declared the extension. */
  optedIn(x: Pick<Exchange, 'clientCapabilities'>): boolean {
    const ext = x.clientCapabilities.extensions;
    return (
      typeof ext === 'object' &&
      ext !== null &&
      (ext as Record<string, unknown>)[TASKS_EXTENSION] !== undefined
    );
  }

  /** Whether a tool runs only as a task (listed `taskSupport: "required"` to a 2025-11-25 session). */
  requires(name: string): boolean {
    return this.required.has(name);
  }

  /**
   * Refuses a task-required tool called other than as a task: to a client without the extension, -32021; on a
   * 2025-11-25 session (`handshakeTasks`: the revision's own tasks apply, but the call did not ask for one),
   * -32601, as that revision says for a tool listed `taskSupport: "required"`.
   */
  checkRequired(name: string, x: Exchange, handshakeTasks = false): void {
    if (!this.required.has(name) || this.optedIn(x)) return;
    if (!handshakeTasks) throw missingExtension();
    throw new McpLiteError(
      'method_not_found',
      `Tool ${echoName(name)} requires task augmentation (taskSupport: "required")`,
    );
  }

  /**
   * A promise outcome as a `CreateTaskResult`, keeping the task's origin. Over a bound (calls racing past `admit`)
   * the promise is cancelled and the caller gets `resource_exhausted`.
   */
  async fromPromise(
    name: string,
    args: unknown,
    outcome: PromiseOutcome,
    x: Pick<Exchange, 'principal' | 'remoteAddress'>,
    previous?: { taskId: string; origin: TaskOrigin },
  ): Promise<Record<string, unknown>> {
    const now = Date.now();
    const expiresAt = now + this.server.promises!.ttlMs;
    const taskId = previous?.taskId ?? outcome.token;
    if (previous) await this.origins.renew(previous.origin, outcome.token, expiresAt, now);
    else {
      try {
        await this.origins.add(
          taskId,
          { tool: name, arguments: args, token: outcome.token, owner: this.server.callerKey(x), expiresAt },
          now,
        );
      } catch (err) {
        this.server.promises!.cancel(outcome.token, x).catch(() => {});
        throw err;
      }
    }
    return {
      resultType: 'task',
      taskId,
      status: 'working',
      createdAt: new Date(now).toISOString(),
      lastUpdatedAt: new Date(now).toISOString(),
      ttlMs: this.server.promises!.ttlMs,
      pollIntervalMs: POLL_INTERVAL_MS,
    };
  }

  /**
   * tasks/get, tasks/update, tasks/cancel. `tasks/get` and `tasks/cancel` walk the server's chain as the `redeem`
   * and `cancel` calls they are (the same operation a middleware sees for those tools, so one policy holds for
   * both); `tasks/update` resumes the tool as the answer to its elicitation, a tool call that walks the chain.
   */
  async handle(
    method: string,
    params: Record<string, unknown>,
    x: Exchange,
  ): Promise<Record<string, unknown>> {
    if (!this.optedIn(x)) throw missingExtension();
    const taskId = params.taskId;
    if (typeof taskId !== 'string')
      throw new McpLiteError('invalid_params', 'Invalid params: "taskId" must be a string');
    switch (method) {
      case 'tasks/get': {
        let found: { record: PromiseRecord; origin: TaskOrigin | undefined } | undefined;
        const outcome = await this.server.operate(
          'tools/call',
          REDEEM_TOOL,
          { promise: taskId },
          x,
          async () => {
            found = await this.find(taskId, x);
            return redeemed(found.record);
          },
        );
        if (!found)
          throw new McpLiteError('internal', 'A middleware answered tasks/get without reading the task');
        return this.detailed(taskId, found.record, found.origin, outcome);
      }
      case 'tasks/cancel':
        await this.server.operate('tools/call', CANCEL_TOOL, { promise: taskId }, x, async () => {
          const { record, origin } = await this.find(taskId, x);
          const r =
            record.status === 'pending'
              ? await this.server.promises!.cancel(record.token, x)
              : { cancelled: false, status: record.status };
          if (origin) await this.origins.ended(origin);
          return { type: 'answer', result: { promise: taskId, ...r } } satisfies Outcome;
        });
        return {};
      case 'tasks/update': {
        const { record, origin } = await this.find(taskId, x);
        await this.update(taskId, params, record, origin, x);
        return {};
      }
      default:
        throw new McpLiteError('method_not_found', `Method not found: ${echoName(method)}`);
    }
  }

  /**
   * The task's record and origin, through the promise manager's one rule (owner, the tool's scopes and visibility):
   * a task this caller may not reach is unknown, like one that never was.
   */
  private async find(
    taskId: string,
    x: Pick<Exchange, 'principal' | 'remoteAddress' | 'headers' | 'binding'>,
  ): Promise<{ record: PromiseRecord; origin: TaskOrigin | undefined }> {
    const origin = await this.origins.get(taskId);
    try {
      return { record: await this.server.promises!.record(origin?.token ?? taskId, x), origin };
    } catch (err) {
      if (err instanceof McpLiteError && err.code !== 'forbidden') throw unknownTask(taskId);
      throw err;
    }
  }

  /** The task as tasks/get shows it; a completed one with `outcome`, the chain's (a middleware may rewrite it). */
  private async detailed(
    taskId: string,
    record: PromiseRecord,
    origin: TaskOrigin | undefined,
    outcome: unknown,
  ): Promise<Record<string, unknown>> {
    const base = {
      taskId,
      createdAt: new Date(record.createdAt).toISOString(),
      lastUpdatedAt: new Date(Math.max(record.createdAt, origin?.lastUpdatedAt ?? 0)).toISOString(),
      ttlMs: Math.max(0, Math.round(record.expiresAt - record.createdAt)),
      pollIntervalMs: POLL_INTERVAL_MS,
    };
    if (record.status === 'pending') return { ...base, status: 'working' };
    const settlement = record.settlement;
    const inputRequired = settlement && 'outcome' in settlement && settlement.outcome.type === 'elicitation';
    if (origin && !inputRequired) await this.origins.ended(origin);
    if (record.status === 'cancelled' || !settlement) return { ...base, status: 'cancelled' };
    if ('error' in settlement) {
      const e = settlement.error;
      return {
        ...base,
        status: 'failed',
        error: toMcpError(new McpLiteError(asErrorCode(e.code), e.message, e.data), true),
      };
    }
    if (settlement.outcome.type === 'elicitation') {
      const open = Object.entries(inputRequests(settlement.outcome)).filter(
        ([key]) => !origin?.answered.has(key),
      );
      return { ...base, status: 'input_required', inputRequests: Object.fromEntries(open) };
    }
    const tool = this.server.catalog.get(record.tool);
    return {
      ...base,
      status: 'completed',
      result: {
        ...toCallToolResult(
          { outcome: isOutcome(outcome) ? outcome : settlement.outcome, meta: emptyMeta() },
          // As listed (wire.ts toMcpTool): a long-running tool lists no outputSchema.
          {
            hasOutputSchema:
              tool?.wire.outputSchema !== undefined && tool.longRunningEstimateMs === undefined,
          },
        ),
        resultType: 'complete',
      },
    };
  }

  private async update(
    taskId: string,
    params: Record<string, unknown>,
    record: PromiseRecord,
    origin: TaskOrigin | undefined,
    x: Exchange,
  ): Promise<void> {
    const responses = params.inputResponses;
    if (typeof responses !== 'object' || responses === null || Array.isArray(responses)) {
      throw new McpLiteError('invalid_params', 'Invalid params: "inputResponses" must be an object');
    }
    const settlement = record.settlement;
    if (
      record.status !== 'settled' ||
      !settlement ||
      !('outcome' in settlement) ||
      settlement.outcome.type !== 'elicitation'
    ) {
      return; // Nothing is waiting for input: the ack is all there is.
    }
    if (!origin || origin.notResumable !== undefined) {
      const why = origin?.notResumable ?? 'it was made on another replica';
      throw new McpLiteError('invalid_params', `Invalid params: this task cannot be resumed here: ${why}`, {
        taskId: echoName(taskId),
      });
    }
    const outcome = settlement.outcome;
    // Partial fulfilment: the client may answer some of the open requests; core then asks again for the rest
    // (a new elicitation, which becomes the task's state below) and runs the tool only once all are answered.
    const given = Object.keys(inputRequests(outcome)).filter(
      (key) => !origin.answered.has(key) && Object.hasOwn(responses, key),
    );
    if (given.length === 0) return;
    for (const key of given) origin.answered.add(key);
    await this.origins.save(origin);
    // A declined or cancelled request resumes the tool too: it gets the decline (ctx.elicitation.action).
    let result: CallResult;
    try {
      result = await this.server.callTool({
        name: origin.tool,
        arguments: origin.arguments,
        elicitation: toElicitationReply(outcome.state, responses as Record<string, unknown>, given)!,
        principal: x.principal,
        remoteAddress: x.remoteAddress,
        headers: x.headers,
        binding: x.binding ?? 'mcp',
      });
    } catch (err) {
      for (const key of given) origin.answered.delete(key);
      await this.origins.save(origin).catch(() => {});
      throw err;
    }
    const next = result.outcome;
    if (next.type === 'promise') {
      await this.fromPromise(origin.tool, origin.arguments, next, x, { taskId, origin });
      return;
    }
    // A tool that is not long-running answers (or asks again) at once: kept as a settled promise, so the task's
    // state stays in the store like every other task's.
    const settled = await this.server.promises!.settled(
      origin.tool,
      { outcome: next, processingTimeMs: result.meta.processing_time_ms },
      this.server.callerKey(x),
    );
    await this.fromPromise(origin.tool, origin.arguments, settled, x, { taskId, origin });
  }
}

/** What `redeem` would answer for this record, as the chain's value of a tasks/get (its `redeem` twin). */
function redeemed(record: PromiseRecord): Outcome {
  const settlement = record.settlement;
  if (record.status === 'pending') {
    const estimatedCompletion = new Date(record.estimatedCompletion).toISOString();
    return { type: 'promise', token: record.token, estimatedCompletion };
  }
  if (record.status === 'cancelled' || !settlement) {
    return {
      type: 'failure',
      code: 'cancelled',
      message: 'The promised work was cancelled before it finished',
    };
  }
  if ('error' in settlement)
    return { type: 'failure', code: settlement.error.code, message: settlement.error.message };
  return settlement.outcome;
}

function isOutcome(value: unknown): value is Exclude<Outcome, { type: 'promise' }> {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as Outcome).type === 'string' &&
    (value as Outcome).type !== 'promise'
  );
}

/** A task id this caller cannot reach: unknown, expired, or another principal's (they are told apart by no one). */
export function unknownTask(taskId: string): McpLiteError {
  const id = echoName(taskId);
  return new McpLiteError('task_not_found', `Unknown task: ${id}`, { taskId: id, reason: 'task_not_found' });
}

function missingExtension(): McpLiteError {
  return new McpLiteError(
    'missing_capability',
    `Missing required client capability: extension ${TASKS_EXTENSION}`,
    {
      requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } },
    },
  );
}

function emptyMeta() {
  return {
    response_type: 'answer' as const,
    timestamp: Date.now(),
    processing_time_ms: 0,
    server_version: '',
  };
}
