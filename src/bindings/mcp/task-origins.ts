import type { SessionStateStore, TaskBounds, TaskIdPage, TaskResumeData } from '../../core/session-state.js';

/**
 * Bounds of what the tasks extension keeps beside the promises. A task is a promise (the promise store bounds
 * those); what the binding adds is each task's origin (its tool and arguments, for `tasks/update` to resume it),
 * kept in the binding's store until the task expires. A bound reached is the reaching caller's
 * `resource_exhausted` (-32004, HTTP 429), never another caller's task dropped.
 */
export interface TaskLimits {
  /** Most live tasks one caller (`callerKey`) may have made (in the store: across replicas sharing it). Default 500. */
  maxTasksPerCaller?: number;
  /** Most live tasks in the store. Default 5 000. */
  maxTasks?: number;
  /**
   * Largest arguments (their JSON, in characters) kept to resume a task with `tasks/update`: a task called with
   * larger ones still runs and reports, but cannot be resumed after `input_required`. Default 32 KiB.
   */
  maxTaskArgumentBytes?: number;
}

/** What a task needs to be resumed with `tasks/update`, and whose it is: a view of the stored `TaskResumeData`. */
export interface TaskOrigin {
  /** The task's id (the token of its first promise). */
  readonly taskId: string;
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

/**
 * The origins of the tasks, through the binding's `SessionStateStore` (so that a task made on one replica can be
 * read and resumed on another sharing it), bounded per caller and in total, freed when their task expires. A
 * change is read, made and written back whole: two replicas changing one task at the same instant keep the later.
 */
export class TaskOrigins {
  private readonly bounds: TaskBounds;
  private readonly maxArgumentChars: number;

  constructor(
    private readonly store: SessionStateStore,
    limits: TaskLimits = {},
  ) {
    this.bounds = { maxTasksPerCaller: limits.maxTasksPerCaller ?? 500, maxTasks: limits.maxTasks ?? 5000 };
    this.maxArgumentChars = limits.maxTaskArgumentBytes ?? 32 * 1024;
  }

  /** Rejects `resource_exhausted` when `owner`, or the store, holds as many tasks as allowed. */
  admit(owner: string): Promise<void> {
    return this.store.admitTask(owner, this.bounds);
  }

  /** Keeps the origin of a new task; rejects like `admit`. */
  async add(
    taskId: string,
    init: {
      tool: string;
      arguments: unknown;
      token: string;
      owner: string;
      expiresAt: number;
      /** Why the task can never be resumed (a task of a revision without `tasks/update`). */
      notResumable?: string;
    },
    now = Date.now(),
  ): Promise<TaskOrigin> {
    const keep = init.notResumable === undefined && jsonChars(init.arguments) <= this.maxArgumentChars;
    const origin: TaskOrigin = {
      taskId,
      tool: init.tool,
      arguments: keep ? init.arguments : undefined,
      notResumable: keep
        ? undefined
        : (init.notResumable ??
          `its arguments are larger than this server keeps for resuming (${this.maxArgumentChars} bytes)`),
      token: init.token,
      answered: new Set(),
      lastUpdatedAt: now,
      owner: init.owner,
      expiresAt: init.expiresAt,
    };
    await this.store.addTask(taskId, toData(origin), this.bounds);
    return origin;
  }

  /** A resumed task runs as a new promise, which lives its own TTL. */
  renew(origin: TaskOrigin, token: string, expiresAt: number, now = Date.now()): Promise<void> {
    origin.token = token;
    origin.answered.clear();
    origin.lastUpdatedAt = now;
    origin.expiresAt = expiresAt;
    return this.save(origin);
  }

  /** One page of `owner`'s live task ids, soonest to expire first. */
  ids(owner: string, offset: number, limit: number): Promise<TaskIdPage> {
    return this.store.taskIds(owner, offset, limit);
  }

  /** The origin of a live task. */
  async get(taskId: string, now = Date.now()): Promise<TaskOrigin | undefined> {
    const data = await this.store.getTask(taskId);
    if (!data || data.expiresAt <= now) return undefined;
    return {
      taskId,
      tool: data.tool,
      arguments: data.arguments,
      notResumable: data.notResumable,
      token: data.token,
      answered: new Set(data.answered),
      lastUpdatedAt: data.lastUpdatedAt,
      owner: data.owner,
      expiresAt: data.expiresAt,
    };
  }

  /** The task ended (completed, failed, cancelled): nothing can resume it, so its arguments go. */
  ended(origin: TaskOrigin): Promise<void> {
    if (origin.arguments === undefined && origin.notResumable !== undefined) return Promise.resolve();
    origin.arguments = undefined;
    origin.notResumable ??= 'it has ended';
    return this.save(origin);
  }

  /** Writes a changed origin back (its answered keys, its token). */
  save(origin: TaskOrigin): Promise<void> {
    return this.store.putTask(origin.taskId, toData(origin));
  }
}

/** An origin as stored (plain JSON). */
function toData(origin: TaskOrigin): TaskResumeData {
  const data: TaskResumeData = {
    tool: origin.tool,
    token: origin.token,
    answered: [...origin.answered],
    lastUpdatedAt: origin.lastUpdatedAt,
    owner: origin.owner,
    expiresAt: origin.expiresAt,
  };
  if (origin.arguments !== undefined) data.arguments = origin.arguments;
  if (origin.notResumable !== undefined) data.notResumable = origin.notResumable;
  return data;
}

/** The length of a value's JSON (infinite when it has none, so that it is never kept). */
function jsonChars(value: unknown): number {
  try {
    return JSON.stringify(value ?? null).length;
  } catch {
    return Number.POSITIVE_INFINITY;
  }
}
