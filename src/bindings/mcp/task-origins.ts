import { McpLiteError } from '../../core/errors.js';

/**
 * Bounds of the tasks extension's per-replica memory. A task is a promise (the promise store bounds those); what
 * this replica adds is each task's origin (its tool and arguments, for `tasks/update` to resume it), kept until the
 * task expires. A bound reached is the reaching caller's `resource_exhausted` (-32004, HTTP 429), never another
 * caller's task dropped.
 */
export interface TaskLimits {
  /** Most live tasks one caller (`callerKey`) may have made on this replica. Default 500. */
  maxTasksPerCaller?: number;
  /** Most live tasks on this replica. Default 5 000. */
  maxTasks?: number;
  /**
   * Largest arguments (their JSON, in characters) kept to resume a task with `tasks/update`: a task called with
   * larger ones still runs and reports, but cannot be resumed after `input_required`. Default 32 KiB.
   */
  maxTaskArgumentBytes?: number;
}

/** What a task needs to be resumed with `tasks/update`, and whose it is. */
export interface TaskOrigin {
  readonly tool: string;
  /** Undefined once the task cannot take input any more (or its arguments were too large to keep). */
  arguments: unknown;
  /** Why the task cannot be resumed here, when it cannot. */
  notResumable: string | undefined;
  /** The promise behind the task now (a resumed task runs as a new promise). */
  token: string;
  /** Input keys answered in the current round, hidden from tasks/get while their answer is being applied. */
  readonly answered: Set<string>;
  lastUpdatedAt: number;
  /** `callerKey` of whoever made the task: with auth, the task is unknown to every other principal. */
  readonly owner: string;
  /** When the promise behind it expires: the origin goes with it. */
  expiresAt: number;
}

/** The origins of the tasks made on this replica, bounded per caller and in total, freed when their task expires. */
export class TaskOrigins {
  // In expiry order (every promise lives the same TTL, and a renewed origin moves to the end), so that expired
  // origins are found at the front.
  private readonly byId = new Map<string, TaskOrigin>();
  private readonly perCaller = new Map<string, number>();
  private readonly maxPerCaller: number;
  private readonly maxTotal: number;
  private readonly maxArgumentChars: number;

  constructor(limits: TaskLimits = {}) {
    this.maxPerCaller = limits.maxTasksPerCaller ?? 500;
    this.maxTotal = limits.maxTasks ?? 5000;
    this.maxArgumentChars = limits.maxTaskArgumentBytes ?? 32 * 1024;
  }

  /** How many origins are kept. */
  get size(): number {
    return this.byId.size;
  }

  /** Throws `resource_exhausted` when `owner`, or this replica, holds as many tasks as allowed. */
  admit(owner: string, now = Date.now()): void {
    this.purge(now);
    const held = this.perCaller.get(owner) ?? 0;
    if (held >= this.maxPerCaller) {
      throw new McpLiteError(
        'resource_exhausted',
        `Too many tasks for this caller (limit ${this.maxPerCaller}): wait for some to expire`,
        { limit: this.maxPerCaller, scope: 'caller' },
      );
    }
    if (this.byId.size >= this.maxTotal) {
      throw new McpLiteError('resource_exhausted', 'The server holds as many tasks as it can: try later', {
        limit: this.maxTotal,
        scope: 'server',
      });
    }
  }

  /** Keeps the origin of a new task; throws like `admit`. */
  add(
    taskId: string,
    init: { tool: string; arguments: unknown; token: string; owner: string; expiresAt: number },
    now = Date.now(),
  ): TaskOrigin {
    this.admit(init.owner, now);
    const size = jsonChars(init.arguments);
    const keep = size <= this.maxArgumentChars;
    const origin: TaskOrigin = {
      tool: init.tool,
      arguments: keep ? init.arguments : undefined,
      notResumable: keep
        ? undefined
        : `its arguments are larger than this server keeps for resuming (${this.maxArgumentChars} bytes)`,
      token: init.token,
      answered: new Set(),
      lastUpdatedAt: now,
      owner: init.owner,
      expiresAt: init.expiresAt,
    };
    this.byId.set(taskId, origin);
    this.perCaller.set(init.owner, (this.perCaller.get(init.owner) ?? 0) + 1);
    return origin;
  }

  /** A resumed task runs as a new promise, which lives its own TTL. */
  renew(taskId: string, origin: TaskOrigin, token: string, expiresAt: number, now = Date.now()): void {
    origin.token = token;
    origin.answered.clear();
    origin.lastUpdatedAt = now;
    origin.expiresAt = expiresAt;
    this.byId.delete(taskId);
    this.byId.set(taskId, origin);
  }

  /** The origin of a live task. */
  get(taskId: string, now = Date.now()): TaskOrigin | undefined {
    const origin = this.byId.get(taskId);
    if (origin && origin.expiresAt <= now) {
      this.purge(now);
      return undefined;
    }
    return origin;
  }

  /** The task ended (completed, failed, cancelled): nothing can resume it, so its arguments go. */
  ended(origin: TaskOrigin): void {
    origin.arguments = undefined;
    origin.notResumable ??= 'it has ended';
  }

  /** Drops the origins whose task expired (they are at the front). */
  private purge(now: number): void {
    for (const [taskId, origin] of this.byId) {
      if (origin.expiresAt > now) return;
      this.byId.delete(taskId);
      const held = (this.perCaller.get(origin.owner) ?? 1) - 1;
      if (held > 0) this.perCaller.set(origin.owner, held);
      else this.perCaller.delete(origin.owner);
    }
  }
}

/** The length of a value's JSON (infinite when it has none, so that it is never kept). */
function jsonChars(value: unknown): number {
  try {
    return JSON.stringify(value ?? null).length;
  } catch {
    return Number.POSITIVE_INFINITY;
  }
}
