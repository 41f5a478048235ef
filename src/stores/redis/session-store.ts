import type { Redis } from 'ioredis';
import { randomId } from '../../core/random-id.js';
import {
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
} from '../../core/session-state.js';
import { tooMany, tooManyForCaller, tooManySubscriptions, tooManyTasks } from '../bound-errors.js';
import { eventsAfterId, ResponseWaiters, SessionListeners } from '../session-local.js';
import {
  type ConnectRedisOptions,
  quitRedis,
  redisSubscriber,
  storeClient,
  storeUnavailable,
  withRedis,
} from './connection.js';
import { refusing } from './scripts.js';
import {
  ADD_TASK,
  APPEND_EVENT,
  CREATE_SESSION,
  DELETE_SESSION,
  DELIVER_RESPONSE,
  LIVE_IDS,
  PUT_TASK,
  READ_SESSION,
  SUBSCRIBE,
  UPDATE_SESSION,
} from './session-scripts.js';

/**
 * Options of the Redis session store: where Redis is (as for `RedisPromiseStore`), the key prefix, and the bounds
 * every session store has.
 */
export interface RedisSessionStoreOptions extends SessionStoreOptions {
  /** Where Redis is (`redis://[user:password@]host:port[/db]`, `rediss://` for TLS); used when `client` is absent. */
  url?: string;
  /** A client to share; the store then neither tunes nor closes it (it does open and close its subscriber). */
  client?: Redis;
  /** Prefix of every key and of the pub/sub channel; replicas sharing sessions use the same. Default `mcplite:`. */
  prefix?: string;
  /** Connection tuning for a store made from `url` (see `connectRedis`). */
  connection?: ConnectRedisOptions;
}

/**
 * The session store on Redis, for replicas behind one balancer: a session made on one replica is served by every
 * replica using the same Redis and prefix. Records are hashes whose TTL is the idle expiry, refreshed on use; event
 * logs are lists capped by count and bytes in the same step that appends; the count bounds are sorted sets scored
 * by expiry, checked and changed in one Lua step; messages to a session's stream and responses to server requests
 * travel on one pub/sub channel (`<prefix>bus`) that every replica listens to. Redis down: every call rejects at
 * once with `unavailable` ("The state store (Redis) is unavailable: …"); calls that need no session never come here.
 */
export class RedisSessionStore implements SessionStateStore {
  readonly bounds: SessionBounds;
  private readonly client: Redis;
  private readonly subscriber: Redis;
  private readonly ownsClient: boolean;
  private readonly prefix: string;
  private readonly channel: string;
  private readonly idleMs: number;
  private readonly listeners = new SessionListeners();
  private readonly waiters = new ResponseWaiters();
  private readonly subscribed: Promise<void>;
  private isSubscribed = false;

  constructor(options: RedisSessionStoreOptions) {
    this.bounds = sessionBounds(options);
    // A TTL must be finite: "never idle out" becomes a year.
    this.idleMs = Number.isFinite(this.bounds.idleMs)
      ? Math.max(1, Math.round(this.bounds.idleMs))
      : 31_536_000_000;
    this.prefix = options.prefix ?? 'mcplite:';
    this.channel = `${this.prefix}bus`;
    ({ client: this.client, owned: this.ownsClient } = storeClient('RedisSessionStore', options));
    // Subscribing waits for the connection however long it takes (and ioredis subscribes again after a
    // reconnection); `ready` bounds how long a caller waits for it.
    this.subscriber = redisSubscriber(this.client);
    this.subscriber.on('message', (channel: string, text: string) => {
      if (channel === this.channel) this.dispatch(text);
    });
    this.subscribed = this.subscriber.subscribe(this.channel).then(() => {
      this.isSubscribed = true;
    });
    this.subscribed.catch(() => {});
  }

  async create(init: SessionInit, counts: SessionCountBounds = this.bounds): Promise<SessionRecord> {
    const id = randomId(16, 'hex');
    const kind = init.kind ?? 'mcp';
    const dialect = sessionDialect(init.dialect);
    const created = await this.run(() =>
      refusing(
        CREATE_SESSION.run(
          this.client,
          [this.key(id), this.kindKey(kind), this.ownerKey(kind, init.owner)],
          [
            id,
            this.idleMs,
            counts.maxSessionsPerCaller,
            counts.maxSessions,
            init.owner,
            kind,
            init.revision,
            JSON.stringify(init.clientCapabilities),
            JSON.stringify(init.clientInfo),
            dialect ?? '',
          ],
        ),
        (full) =>
          full === 'caller' ? tooManyForCaller(counts.maxSessionsPerCaller) : tooMany(counts.maxSessions),
      ),
    );
    return {
      id,
      owner: init.owner,
      revision: init.revision,
      clientCapabilities: init.clientCapabilities,
      clientInfo: init.clientInfo,
      initialized: false,
      subscriptions: [],
      lastSeen: Number(created),
      ...(dialect ? { dialect } : {}),
    };
  }

  get(id: string, caller?: string): Promise<SessionRecord | undefined> {
    return this.read(id, caller ?? '', true);
  }

  peek(id: string): Promise<SessionRecord | undefined> {
    return this.read(id, '', false);
  }

  async touch(id: string): Promise<boolean> {
    return (await this.read(id, '', true)) !== undefined;
  }

  async update(id: string, patch: { initialized?: boolean; logLevel?: string }): Promise<void> {
    const fields: string[] = [];
    if (patch.initialized !== undefined) fields.push('init', patch.initialized ? '1' : '0');
    if (patch.logLevel !== undefined) fields.push('level', patch.logLevel);
    if (fields.length === 0) return;
    await this.run(() => UPDATE_SESSION.run(this.client, [this.key(id)], fields));
  }

  async subscribe(id: string, uri: string): Promise<void> {
    await this.run(() =>
      refusing(
        SUBSCRIBE.run(
          this.client,
          [this.key(id), `${this.key(id)}:subs`],
          [uri, this.bounds.maxSubscriptions],
        ),
        () => tooManySubscriptions(this.bounds),
      ),
    );
  }

  async unsubscribe(id: string, uri: string): Promise<void> {
    await this.run(() => this.client.srem(`${this.key(id)}:subs`, uri));
  }

  async delete(id: string, caller?: string): Promise<boolean> {
    const message = JSON.stringify({ s: id, m: { type: 'closed' } satisfies SessionMessage });
    const deleted = await this.run(() =>
      DELETE_SESSION.run(this.client, [this.key(id)], [id, this.prefix, caller ?? '', this.channel, message]),
    );
    return Number(deleted) === 1;
  }

  async ids(kind = 'mcp'): Promise<string[]> {
    return (await this.run(() => LIVE_IDS.run(this.client, [this.kindKey(kind)], []))) as string[];
  }

  async appendEvent(sessionId: string, event: SessionEvent): Promise<void> {
    const key = this.key(sessionId);
    await this.run(() =>
      APPEND_EVENT.run(
        this.client,
        [key, `${key}:ev`],
        [JSON.stringify(event), this.bounds.maxEvents, this.bounds.maxEventBytes],
      ),
    );
  }

  async eventsAfter(
    sessionId: string,
    lastEventId: string,
  ): Promise<{ stream: string; events: SessionEvent[] } | undefined> {
    const raw = await this.run(() => this.client.lrange(`${this.key(sessionId)}:ev`, 0, -1));
    return eventsAfterId(
      raw.map((text) => JSON.parse(text) as SessionEvent),
      lastEventId,
    );
  }

  async publish(sessionId: string, message: SessionMessage): Promise<void> {
    await this.run(() => this.client.publish(this.channel, JSON.stringify({ s: sessionId, m: message })));
  }

  async listen(sessionId: string, listener: (message: SessionMessage) => void): Promise<() => void> {
    await this.ready();
    return this.listeners.add(sessionId, listener);
  }

  async awaitResponse(requestId: string, timeoutMs: number): Promise<ResponseWaiter> {
    await this.ready();
    const key = `${this.prefix}srq:${requestId}`;
    await this.run(() => this.client.set(key, '1', 'PX', Math.max(1, Math.round(timeoutMs))));
    return this.waiters.wait(requestId, timeoutMs, () => {
      this.client.del(key).catch(() => {});
    });
  }

  async deliverResponse(requestId: string, response: ServerResponse): Promise<boolean> {
    const message = JSON.stringify({ r: requestId, v: response });
    const delivered = await this.run(() =>
      DELIVER_RESPONSE.run(this.client, [`${this.prefix}srq:${requestId}`], [this.channel, message]),
    );
    return Number(delivered) === 1;
  }

  admitTask(owner: string, bounds: TaskBounds): Promise<void> {
    return this.addTaskStep(owner, bounds, ['', '', '', 0]);
  }

  addTask(taskId: string, data: TaskResumeData, bounds: TaskBounds): Promise<void> {
    return this.addTaskStep(data.owner, bounds, [
      `${this.prefix}t:${taskId}`,
      taskId,
      JSON.stringify(data),
      Math.round(data.expiresAt),
    ]);
  }

  async putTask(taskId: string, data: TaskResumeData): Promise<void> {
    await this.run(() =>
      PUT_TASK.run(
        this.client,
        [`${this.prefix}t:${taskId}`, `${this.prefix}tasks`, `${this.prefix}towner:${data.owner}`],
        [taskId, JSON.stringify(data), Math.round(data.expiresAt)],
      ),
    );
  }

  async getTask(taskId: string): Promise<TaskResumeData | undefined> {
    const text = await this.run(() => this.client.get(`${this.prefix}t:${taskId}`));
    return text ? (JSON.parse(text) as TaskResumeData) : undefined;
  }

  async taskIds(owner: string, offset: number, limit: number): Promise<TaskIdPage> {
    // The owner's set is scored by expiry: what lies past now is live (the task keys expire with it).
    const ids = await this.run(() =>
      this.client.zrangebyscore(
        `${this.prefix}towner:${owner}`,
        `(${Date.now()}`,
        '+inf',
        'LIMIT',
        offset,
        limit + 1,
      ),
    );
    return { ids: ids.slice(0, limit), more: ids.length > limit };
  }

  async close(): Promise<void> {
    this.listeners.clear();
    this.waiters.clear();
    await Promise.all([quitRedis(this.subscriber), this.ownsClient ? quitRedis(this.client) : undefined]);
  }

  /** One Redis step: any failure is `unavailable`, but a refusal (`refusing`) passes through. */
  private run<T>(op: () => Promise<T>): Promise<T> {
    return withRedis(this.client, op);
  }

  /** ADD_TASK: checks the task bounds, and keeps the task when `task` (key, id, data, expiresAt) names one. */
  private async addTaskStep(owner: string, bounds: TaskBounds, task: (string | number)[]): Promise<void> {
    await this.run(() =>
      refusing(
        ADD_TASK.run(
          this.client,
          [`${this.prefix}tasks`, `${this.prefix}towner:${owner}`],
          [bounds.maxTasksPerCaller, bounds.maxTasks, ...task],
        ),
        (full) => tooManyTasks(full === 'caller' ? 'caller' : 'server', bounds),
      ),
    );
  }

  private async read(id: string, caller: string, touch: boolean): Promise<SessionRecord | undefined> {
    const f = (await this.run(() =>
      READ_SESSION.run(
        this.client,
        [this.key(id)],
        [id, this.idleMs, this.prefix, caller, touch ? '1' : '0'],
      ),
    )) as string[] | null;
    if (!f) return undefined;
    const record: SessionRecord = {
      id,
      owner: f[0]!,
      revision: f[2]!,
      clientCapabilities: parseObject(f[3]),
      clientInfo: parseObject(f[4]) as Record<string, string>,
      initialized: f[5] === '1',
      subscriptions: f.slice(9),
      lastSeen: Number(f[7]),
    };
    if (f[6]) record.logLevel = f[6];
    const dialect = sessionDialect(f[8]);
    if (dialect) record.dialect = dialect;
    return record;
  }

  /** Waits (briefly) for the channel subscription: a store that cannot hear its replies is unavailable. */
  private async ready(): Promise<void> {
    if (this.isSubscribed) return;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('not subscribed to the session channel')), 2000);
    });
    try {
      await Promise.race([this.subscribed, timeout]);
    } catch (err) {
      throw storeUnavailable(err);
    } finally {
      clearTimeout(timer);
    }
  }

  private dispatch(text: string): void {
    let parsed: { s?: string; m?: SessionMessage; r?: string; v?: ServerResponse };
    try {
      parsed = JSON.parse(text);
    } catch {
      return;
    }
    if (parsed.r !== undefined) this.waiters.deliver(parsed.r, parsed.v ?? {});
    else if (parsed.s !== undefined && parsed.m) this.listeners.emit(parsed.s, parsed.m);
  }

  private key(id: string): string {
    return `${this.prefix}s:${id}`;
  }

  private kindKey(kind: string): string {
    return `${this.prefix}sessions:${kind}`;
  }

  private ownerKey(kind: string, owner: string): string {
    return `${this.prefix}owner:${kind}:${owner}`;
  }
}

function parseObject(text: string | undefined): Record<string, unknown> {
  try {
    const value = JSON.parse(text ?? '{}');
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? value : {};
  } catch {
    return {};
  }
}
