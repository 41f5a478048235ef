import { randomId } from '../core/random-id.js';
import {
  ownedBy,
  type ResponseWaiter,
  type ServerResponse,
  type SessionBounds,
  type SessionCountBounds,
  type SessionEvent,
  type SessionInit,
  type SessionMessage,
  type SessionRecord,
  type SessionStateStore,
  type SessionStoreOptions,
  sessionBounds,
  sessionDialect,
  type TaskBounds,
  type TaskIdPage,
  type TaskResumeData,
} from '../core/session-state.js';
import { unrefTimer } from '../core/timers.js';
import { tooMany, tooManyForCaller, tooManySubscriptions, tooManyTasks } from './bound-errors.js';
import { eventsAfterId, ResponseWaiters, SessionListeners } from './session-local.js';

/** A session as this store holds it: the record, its kind, its event log. */
interface Held {
  record: SessionRecord;
  kind: string;
  events: SessionEvent[];
  eventChars: number;
}

/**
 * The embedded default session store: one process, no dependencies, bounded as `SessionStoreOptions` says.
 * Sessions are not shared between replicas; use the Redis store (`stores/redis/session-store.ts`) for that.
 */
export class MemorySessionStore implements SessionStateStore {
  readonly bounds: SessionBounds;
  private readonly sessions = new Map<string, Held>();
  // Counts per `kind`, in all and per caller.
  private readonly counts = new Map<string, { total: number; perCaller: Map<string, number> }>();
  private readonly listeners = new SessionListeners();
  private readonly waiters = new ResponseWaiters();
  // In expiry order (every task lives its promise's TTL, and a renewed task moves to the end).
  private readonly tasks = new Map<string, TaskResumeData>();
  private readonly tasksPerCaller = new Map<string, number>();
  private sweeper: NodeJS.Timeout | undefined;

  constructor(options: SessionStoreOptions = {}) {
    this.bounds = sessionBounds(options);
  }

  /** How many sessions are live (any kind). */
  get size(): number {
    return this.sessions.size;
  }

  async create(init: SessionInit, counts: SessionCountBounds = this.bounds): Promise<SessionRecord> {
    return this.createNow(init, counts);
  }

  /**
   * `create` in the caller's turn: a connection (stdio, WebSocket) is its own session, and the messages the client
   * sends right after `initialize` must find it.
   */
  createNow(init: SessionInit, counts: SessionCountBounds = this.bounds): SessionRecord {
    const kind = init.kind ?? 'mcp';
    const count = this.countOf(kind);
    const held = count.perCaller.get(init.owner) ?? 0;
    if (held >= counts.maxSessionsPerCaller) throw tooManyForCaller(counts.maxSessionsPerCaller);
    if (count.total >= counts.maxSessions) throw tooMany(counts.maxSessions);
    const record: SessionRecord = {
      id: randomId(16, 'hex'),
      owner: init.owner,
      revision: init.revision,
      clientCapabilities: init.clientCapabilities,
      clientInfo: init.clientInfo,
      initialized: false,
      subscriptions: [],
      lastSeen: Date.now(),
    };
    const dialect = sessionDialect(init.dialect);
    if (dialect) record.dialect = dialect;
    this.sessions.set(record.id, { record, kind, events: [], eventChars: 0 });
    count.total++;
    count.perCaller.set(init.owner, held + 1);
    this.startSweeper();
    return { ...record };
  }

  async get(id: string, caller?: string): Promise<SessionRecord | undefined> {
    const s = this.sessions.get(id);
    if (!s || (caller !== undefined && !ownedBy(s.record.owner, caller))) return undefined;
    s.record.lastSeen = Date.now();
    return { ...s.record, subscriptions: [...s.record.subscriptions] };
  }

  async peek(id: string): Promise<SessionRecord | undefined> {
    const r = this.sessions.get(id)?.record;
    return r ? { ...r, subscriptions: [...r.subscriptions] } : undefined;
  }

  async touch(id: string): Promise<boolean> {
    const s = this.sessions.get(id);
    if (s) s.record.lastSeen = Date.now();
    return s !== undefined;
  }

  async update(id: string, patch: { initialized?: boolean; logLevel?: string }): Promise<void> {
    const r = this.sessions.get(id)?.record;
    if (!r) return;
    if (patch.initialized !== undefined) r.initialized = patch.initialized;
    if (patch.logLevel !== undefined) r.logLevel = patch.logLevel;
  }

  async subscribe(id: string, uri: string): Promise<void> {
    const r = this.sessions.get(id)?.record;
    if (!r || r.subscriptions.includes(uri)) return;
    if (r.subscriptions.length >= this.bounds.maxSubscriptions) throw tooManySubscriptions(this.bounds);
    r.subscriptions.push(uri);
  }

  async unsubscribe(id: string, uri: string): Promise<void> {
    const r = this.sessions.get(id)?.record;
    if (r) r.subscriptions = r.subscriptions.filter((u) => u !== uri);
  }

  async delete(id: string, caller?: string): Promise<boolean> {
    const s = this.sessions.get(id);
    if (!s || (caller !== undefined && !ownedBy(s.record.owner, caller))) return false;
    this.sessions.delete(id);
    const count = this.countOf(s.kind);
    count.total--;
    const held = (count.perCaller.get(s.record.owner) ?? 1) - 1;
    if (held > 0) count.perCaller.set(s.record.owner, held);
    else count.perCaller.delete(s.record.owner);
    await this.publish(id, { type: 'closed' });
    return true;
  }

  async ids(kind = 'mcp'): Promise<string[]> {
    const ids: string[] = [];
    for (const [id, s] of this.sessions) if (s.kind === kind) ids.push(id);
    return ids;
  }

  async appendEvent(sessionId: string, event: SessionEvent): Promise<void> {
    const s = this.sessions.get(sessionId);
    if (!s) return;
    s.events.push(event);
    s.eventChars += event.data.length;
    while (
      s.events.length > this.bounds.maxEvents ||
      (s.eventChars > this.bounds.maxEventBytes && s.events.length > 0)
    ) {
      s.eventChars -= s.events.shift()!.data.length;
    }
  }

  async eventsAfter(
    sessionId: string,
    lastEventId: string,
  ): Promise<{ stream: string; events: SessionEvent[] } | undefined> {
    return eventsAfterId(this.sessions.get(sessionId)?.events ?? [], lastEventId);
  }

  async publish(sessionId: string, message: SessionMessage): Promise<void> {
    this.listeners.emit(sessionId, message);
  }

  async listen(sessionId: string, listener: (message: SessionMessage) => void): Promise<() => void> {
    return this.listeners.add(sessionId, listener);
  }

  async awaitResponse(requestId: string, timeoutMs: number): Promise<ResponseWaiter> {
    return this.waiters.wait(requestId, timeoutMs);
  }

  async deliverResponse(requestId: string, response: ServerResponse): Promise<boolean> {
    return this.waiters.deliver(requestId, response);
  }

  async admitTask(owner: string, bounds: TaskBounds): Promise<void> {
    this.purgeTasks(Date.now());
    if ((this.tasksPerCaller.get(owner) ?? 0) >= bounds.maxTasksPerCaller)
      throw tooManyTasks('caller', bounds);
    if (this.tasks.size >= bounds.maxTasks) throw tooManyTasks('server', bounds);
  }

  async addTask(taskId: string, data: TaskResumeData, bounds: TaskBounds): Promise<void> {
    await this.admitTask(data.owner, bounds);
    this.tasks.set(taskId, structuredClone(data));
    this.tasksPerCaller.set(data.owner, (this.tasksPerCaller.get(data.owner) ?? 0) + 1);
  }

  async putTask(taskId: string, data: TaskResumeData): Promise<void> {
    if (!this.tasks.has(taskId)) return;
    this.tasks.delete(taskId);
    this.tasks.set(taskId, structuredClone(data));
  }

  async getTask(taskId: string): Promise<TaskResumeData | undefined> {
    const data = this.tasks.get(taskId);
    if (data && data.expiresAt <= Date.now()) {
      this.purgeTasks(Date.now());
      return undefined;
    }
    return data ? structuredClone(data) : undefined;
  }

  async taskIds(owner: string, offset: number, limit: number): Promise<TaskIdPage> {
    this.purgeTasks(Date.now());
    const ids: string[] = [];
    let seen = 0;
    for (const [taskId, data] of this.tasks) {
      if (data.owner !== owner) continue;
      if (seen++ < offset) continue;
      if (ids.length === limit) return { ids, more: true };
      ids.push(taskId);
    }
    return { ids, more: false };
  }

  async close(): Promise<void> {
    if (this.sweeper) clearInterval(this.sweeper);
    this.sweeper = undefined;
    for (const id of [...this.sessions.keys()]) await this.delete(id);
    this.waiters.clear();
  }

  private countOf(kind: string): { total: number; perCaller: Map<string, number> } {
    let c = this.counts.get(kind);
    if (!c) {
      c = { total: 0, perCaller: new Map() };
      this.counts.set(kind, c);
    }
    return c;
  }

  /** Drops the tasks that expired (they are at the front). */
  private purgeTasks(now: number): void {
    for (const [taskId, data] of this.tasks) {
      if (data.expiresAt > now) return;
      this.tasks.delete(taskId);
      const held = (this.tasksPerCaller.get(data.owner) ?? 1) - 1;
      if (held > 0) this.tasksPerCaller.set(data.owner, held);
      else this.tasksPerCaller.delete(data.owner);
    }
  }

  private startSweeper(): void {
    if (this.sweeper || !Number.isFinite(this.bounds.idleMs)) return;
    this.sweeper = setInterval(
      () => {
        const cutoff = Date.now() - this.bounds.idleMs;
        for (const s of [...this.sessions.values()])
          if (s.record.lastSeen < cutoff) void this.delete(s.record.id);
      },
      Math.min(60_000, this.bounds.idleMs),
    );
    unrefTimer(this.sweeper);
  }
}
