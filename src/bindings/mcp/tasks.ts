import { McpLiteError } from '../../core/errors.js';
import type { CallResult, PromiseOutcome } from '../../core/outcomes.js';
import type { PromiseRecord } from '../../core/promises/store.js';
import type { ToolServer } from '../../core/server.js';
import type { Exchange } from './engine.js';
import { inputRequests, toElicitationReply } from './input-requests.js';
import { McpProtocolError, toCallToolResult, toMcpError } from './wire.js';

/** The extension's identifier, as declared in capabilities. */
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

/** How often clients are told to poll `tasks/get`. */
const POLL_INTERVAL_MS = 500;

/** What a task needs to be resumed with `tasks/update` (kept by the replica that created the task). */
interface TaskOrigin {
  tool: string;
  arguments: unknown;
  /** The promise behind the task now (a resumed task runs as a new promise). */
  token: string;
  /** Input keys answered in the current round, hidden from tasks/get while their answer is being applied. */
  answered: Set<string>;
  lastUpdatedAt: number;
}

/**
 * The tasks extension (`io.modelcontextprotocol/tasks`, SEP-2663) on the stateless revision: a promise becomes a
 * task for a client that declared the extension. Tasks are promises under another name, so the promise store
 * holds their state; the task id is the promise token. A task whose work ends by eliciting reports
 * `input_required`, and `tasks/update` resumes it as a new call of the same tool (this replica remembers the
 * arguments for that).
 */
export class TaskRegistry {
  private readonly origins = new Map<string, TaskOrigin>();

  constructor(
    readonly server: ToolServer,
    /** Tools that cannot run without the extension (MCP `taskSupport: "required"`). */
    private readonly required: ReadonlySet<string> = new Set(),
  ) {}

  /** Whether the request declared the extension. */
  optedIn(x: Pick<Exchange, 'clientCapabilities'>): boolean {
    const ext = x.clientCapabilities.extensions;
    return (
      typeof ext === 'object' &&
      ext !== null &&
      (ext as Record<string, unknown>)[TASKS_EXTENSION] !== undefined
    );
  }

  /** Refuses a task-required tool to a client without the extension (-32021). */
  checkRequired(name: string, x: Exchange): void {
    if (this.required.has(name) && !this.optedIn(x)) throw missingExtension();
  }

  /** A promise outcome as a `CreateTaskResult`. */
  fromPromise(
    name: string,
    args: unknown,
    outcome: PromiseOutcome,
    previous?: string,
  ): Record<string, unknown> {
    const now = Date.now();
    const taskId = previous ?? outcome.token;
    const origin = this.origins.get(taskId);
    if (origin) {
      origin.token = outcome.token;
      origin.answered.clear();
      origin.lastUpdatedAt = now;
    } else {
      this.origins.set(taskId, {
        tool: name,
        arguments: args,
        token: outcome.token,
        answered: new Set(),
        lastUpdatedAt: now,
      });
    }
    return {
      resultType: 'task',
      taskId,
      status: 'working',
      createdAt: new Date(now).toISOString(),
      lastUpdatedAt: new Date(now).toISOString(),
      ttlMs: 3_600_000,
      pollIntervalMs: POLL_INTERVAL_MS,
    };
  }

  /** tasks/get, tasks/update, tasks/cancel. */
  async handle(
    method: string,
    params: Record<string, unknown>,
    x: Exchange,
  ): Promise<Record<string, unknown>> {
    if (!this.optedIn(x)) throw missingExtension();
    const taskId = params.taskId;
    if (typeof taskId !== 'string')
      throw new McpLiteError('invalid_params', 'Invalid params: "taskId" must be a string');
    const { record, origin } = await this.find(taskId);
    switch (method) {
      case 'tasks/get':
        return this.detailed(taskId, record, origin);
      case 'tasks/cancel':
        if (record.status === 'pending') await this.server.promises!.cancel(record.token);
        return {};
      case 'tasks/update':
        await this.update(taskId, params, record, origin, x);
        return {};
      default:
        throw new McpLiteError('method_not_found', `Method not found: ${method}`);
    }
  }

  private async find(taskId: string): Promise<{ record: PromiseRecord; origin: TaskOrigin | undefined }> {
    const origin = this.origins.get(taskId);
    try {
      return { record: await this.server.promises!.record(origin?.token ?? taskId), origin };
    } catch (err) {
      if (err instanceof McpLiteError) {
        throw new McpLiteError('invalid_params', `Unknown task: ${taskId}`, {
          taskId,
          reason: 'task_not_found',
        });
      }
      throw err;
    }
  }

  private detailed(
    taskId: string,
    record: PromiseRecord,
    origin: TaskOrigin | undefined,
  ): Record<string, unknown> {
    const base = {
      taskId,
      createdAt: new Date(record.createdAt).toISOString(),
      lastUpdatedAt: new Date(Math.max(record.createdAt, origin?.lastUpdatedAt ?? 0)).toISOString(),
      ttlMs: Math.max(0, Math.round(record.expiresAt - record.createdAt)),
      pollIntervalMs: POLL_INTERVAL_MS,
    };
    if (record.status === 'pending') return { ...base, status: 'working' };
    if (record.status === 'cancelled') return { ...base, status: 'cancelled' };
    const settlement = record.settlement!;
    if ('error' in settlement) {
      const e = settlement.error;
      return {
        ...base,
        status: 'failed',
        error: toMcpError(new McpLiteError(e.code as McpLiteError['code'], e.message, e.data), false),
      };
    }
    const outcome = settlement.outcome;
    if (outcome.type === 'elicitation') {
      const open = Object.entries(inputRequests(outcome)).filter(([key]) => !origin?.answered.has(key));
      return { ...base, status: 'input_required', inputRequests: Object.fromEntries(open) };
    }
    const tool = this.server.catalog.get(record.tool);
    return {
      ...base,
      status: 'completed',
      result: {
        ...toCallToolResult(
          { outcome, meta: emptyMeta() },
          { hasOutputSchema: tool?.wire.outputSchema !== undefined },
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
    if (!origin)
      throw new McpProtocolError(-32602, 'Invalid params: this task cannot be resumed here', { taskId });
    const outcome = settlement.outcome;
    // Partial fulfilment: the client may answer some of the open requests; core then asks again for the rest
    // (a new elicitation, which becomes the task's state below) and runs the tool only once all are answered.
    const given = Object.keys(inputRequests(outcome)).filter(
      (key) => !origin.answered.has(key) && Object.hasOwn(responses, key),
    );
    if (given.length === 0) return;
    for (const key of given) origin.answered.add(key);
    const actions = given.map((key) => (responses as Record<string, { action?: unknown }>)[key]?.action);
    const declined = actions.findIndex((action) => action !== 'accept');
    let result: CallResult;
    if (declined >= 0) {
      // The work cannot go on without the input: the task ends as a tool error, as a declined elicitation/create
      // does on the handshake revisions.
      result = {
        outcome: {
          type: 'failure',
          code: 'input_declined',
          message: `The user did not provide the input (${String(actions[declined] ?? 'no answer')}).`,
        },
        meta: emptyMeta(),
      };
    } else {
      try {
        result = await this.server.callTool({
          name: origin.tool,
          arguments: origin.arguments,
          elicitation: toElicitationReply(outcome.state, responses as Record<string, unknown>, given)!,
          principal: x.principal,
        });
      } catch (err) {
        for (const key of given) origin.answered.delete(key);
        throw err;
      }
    }
    const next = result.outcome;
    if (next.type === 'promise') {
      this.fromPromise(origin.tool, origin.arguments, next, taskId);
      return;
    }
    // A tool that is not long-running answers (or asks again) at once: kept as a settled promise, so the task's
    // state stays in the store like every other task's.
    const settled = await this.server.promises!.settled(origin.tool, {
      outcome: next,
      processingTimeMs: result.meta.processing_time_ms,
    });
    this.fromPromise(origin.tool, origin.arguments, settled, taskId);
  }
}

function missingExtension(): McpProtocolError {
  return new McpProtocolError(-32021, `Missing required client capability: extension ${TASKS_EXTENSION}`, {
    requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } },
  });
}

function emptyMeta() {
  return {
    response_type: 'answer' as const,
    timestamp: new Date().toISOString(),
    processing_time_ms: 0,
    server_version: '',
  };
}
