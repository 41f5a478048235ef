import { McpLiteError } from '../../core/errors.js';
import type { CallerSource } from '../../core/operation-caller.js';
import type { CallResult, PromiseOutcome } from '../../core/outcomes.js';
import { MAX_REDEEM_WAIT_MS } from '../../core/promises/manager.js';
import type { PromiseRecord } from '../../core/promises/store.js';
import type { ToolServer } from '../../core/server.js';
import { isToolError } from '../../core/tool-errors.js';
import { isObject } from '../common/jsonrpc.js';
import { cursorOffset, offsetCursor } from './cursor.js';
import type { Exchange } from './exchange.js';
import { type TaskRegistry, unknownTask } from './tasks.js';
import { toCallToolResult, toolErrorResult } from './wire.js';

/** The first handshake revision with (experimental) tasks. */
export const HANDSHAKE_TASKS_REVISION = '2025-11-25';

/** How often clients are told to poll `tasks/get`. */
const POLL_INTERVAL_MS = 500;

/** Largest offset a `tasks/list` cursor may name (a caller holds far fewer live tasks: `maxTasksPerCaller`). */
const MAX_LIST_OFFSET = 1_000_000;

/** Where a `tasks/result` says which task it answers. */
const RELATED_TASK = 'io.modelcontextprotocol/related-task';

/**
 * The experimental tasks of the 2025-11-25 revision (the official SDK 1.32's `client.experimental.tasks`,
 * `callToolStream`): a `tools/call` with `params.task` answers `CreateTaskResult` at once, whatever the tool ends
 * in (a promise's work, or an outcome already reached, kept as a settled promise), and `tasks/get`,
 * `tasks/result` (which waits for the end) and `tasks/cancel` follow it, and `tasks/list` shows a caller its own
 * (kept among the tasks of `tasks.ts`'s registry, under its per-caller bounds). Tasks are promises under another
 * name: the promise store holds their state, the task id is the promise token, and a task made by an authenticated
 * principal is unknown to everyone else (the promise manager's `caller` check). The 2026-07-28 tasks extension
 * lives in `tasks.ts`.
 */
export class HandshakeTasks {
  constructor(
    private readonly server: ToolServer,
    /** Where each task is counted against its caller's bounds and found again by `tasks/list`. */
    private readonly registry: TaskRegistry,
    /** Most tasks per `tasks/list` page. */
    private readonly pageSize: number,
  ) {}

  /** The server's `capabilities.tasks` on a revision that has them. */
  static capability(): Record<string, unknown> {
    return { list: {}, cancel: {}, requests: { tools: { call: {} } } };
  }

  /** Whether the exchange speaks these tasks (a handshake revision that has them). */
  applies(x: Pick<Exchange, 'stateless' | 'revision'>): boolean {
    return !x.stateless && x.revision >= HANDSHAKE_TASKS_REVISION;
  }

  /** Whether a tools/call asks to run as a task (a handshake revision that has them, and `params.task`). */
  requested(params: Record<string, unknown>, x: Pick<Exchange, 'stateless' | 'revision'>): boolean {
    return this.applies(x) && isObject(params.task);
  }

  /** The `CreateTaskResult` of a call's result: its promise, or its outcome kept as a settled promise. */
  async created(name: string, result: CallResult, x: Exchange): Promise<Record<string, unknown>> {
    const promises = this.server.promises!;
    const { outcome } = result;
    const promise: PromiseOutcome =
      outcome.type === 'promise'
        ? outcome
        : await promises.settled(
            name,
            { outcome, processingTimeMs: result.meta.processing_time_ms },
            this.server.callerKey(x),
          );
    const record = await promises.record(promise.token, x);
    await this.registry.track(name, record, x);
    return { task: this.task(record) };
  }

  /** `tasks/list`, `tasks/get`, `tasks/result`, `tasks/cancel`. */
  async handle(
    method: string,
    params: Record<string, unknown>,
    x: Exchange,
  ): Promise<Record<string, unknown>> {
    if (method === 'tasks/list') return this.list(params.cursor, x);
    const taskId = params.taskId;
    if (typeof taskId !== 'string')
      throw new McpLiteError('invalid_params', 'Invalid params: "taskId" must be a string');
    const promises = this.server.promises!;
    // The exchange is the caller: the promise manager's one ownership rule decides what it may reach.
    const caller: CallerSource = x;
    const record = await promises.record(taskId, caller).catch((err) => {
      throw err instanceof McpLiteError ? unknownTask(taskId) : err;
    });
    switch (method) {
      case 'tasks/get':
        return this.task(record);
      case 'tasks/cancel':
        if (record.status === 'pending') await promises.cancel(record.token, caller);
        return this.task(await promises.record(record.token, caller));
      default:
        return this.result(record, x, caller);
    }
  }

  /**
   * `tasks/list`: one page of the caller's own live tasks (their `callerKey`: with auth, the principal's), each
   * read through the promise manager's rule; a task that ended its life between the two reads is left out.
   */
  private async list(cursor: unknown, x: Exchange): Promise<Record<string, unknown>> {
    const offset = cursorOffset(cursor, MAX_LIST_OFFSET);
    const { ids, more } = await this.registry.ownTaskIds(x, offset, this.pageSize);
    const promises = this.server.promises!;
    const records = await Promise.all(ids.map((id) => promises.record(id, x).catch(() => undefined)));
    const tasks = records.filter((r) => r !== undefined).map((r) => this.task(r));
    return more ? { tasks, nextCursor: offsetCursor(offset + ids.length) } : { tasks };
  }

  /** `tasks/result`: the tool's result once the task ends (waiting for it), tied to the task in `_meta`. */
  private async result(
    record: PromiseRecord,
    x: Exchange,
    caller: CallerSource,
  ): Promise<Record<string, unknown>> {
    const promises = this.server.promises!;
    let result: Record<string, unknown>;
    for (;;) {
      try {
        const r = await promises.redeem(record.token, caller, MAX_REDEEM_WAIT_MS, () => x.signal);
        if (r.outcome.type === 'promise') {
          if (x.signal.aborted) throw new McpLiteError('cancelled', 'The request was cancelled');
          continue;
        }
        const tool = this.server.catalog.get(record.tool);
        result = toCallToolResult(
          {
            outcome: r.outcome,
            meta: {
              response_type: r.outcome.type,
              timestamp: Date.now(),
              processing_time_ms: r.processingTimeMs,
              server_version: this.server.version,
            },
          },
          // As listed (wire.ts toMcpTool): a long-running tool lists no outputSchema.
          {
            hasOutputSchema:
              tool?.wire.outputSchema !== undefined && tool.longRunningEstimateMs === undefined,
          },
        );
      } catch (err) {
        if (!isToolError(err)) throw err;
        result = toolErrorResult(err);
      }
      break;
    }
    // Copied by its string keys: the serialiser's shortcut for a plain answer (a symbol key) would drop `_meta`.
    const meta = isObject(result._meta) ? result._meta : {};
    return {
      ...Object.fromEntries(Object.entries(result)),
      _meta: { ...meta, [RELATED_TASK]: { taskId: record.token } },
    };
  }

  private task(record: PromiseRecord): Record<string, unknown> {
    const settlement = record.settlement;
    const failed = settlement !== undefined && 'error' in settlement;
    const status =
      record.status === 'pending'
        ? 'working'
        : record.status === 'cancelled' || !settlement
          ? 'cancelled'
          : failed
            ? 'failed'
            : 'completed';
    return {
      taskId: record.token,
      status,
      ttl: Math.max(0, Math.round(record.expiresAt - record.createdAt)),
      createdAt: new Date(record.createdAt).toISOString(),
      lastUpdatedAt: new Date(record.createdAt).toISOString(),
      pollInterval: POLL_INTERVAL_MS,
      ...(failed ? { statusMessage: (settlement as { error: { message: string } }).error.message } : {}),
    };
  }
}
