import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import { McpLiteError } from '../../core/errors.js';
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
  type TaskResumeData,
} from '../../core/session-state.js';
import { tooMany, tooManyForCaller, tooManySubscriptions, tooManyTasks } from '../memory-sessions.js';
import { type ConnectRedisOptions, connectRedis, storeUnavailable, withRedis } from './connection.js';
import {
  ADD_TASK,
  APPEND_EVENT,
  CALLER_FULL,
  CREATE_SESSION,
  DELETE_SESSION,
  DELIVER_RESPONSE,
  LIVE_IDS,
  PUT_TASK,
  READ_SESSION,
  STORE_FULL,
  SUBS_FULL,
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
  private readonly listeners = new Map<string, Set<(message: SessionMessage) => void>>();
  private readonly waiters = new Map<string, (response: ServerResponse) => void>();
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
    if (!options.client && !options.url) throw new TypeError('RedisSessionStore needs a url or a client');
    this.ownsClient = !options.client;
    this.client = options.client ?? connectRedis(options.url!, options.connection);
    // Subscribing waits for the connection however long it takes (and ioredis subscribes again after a
    // reconnection); `ready` bounds how long a caller waits for it.
    this.subscriber = this.client.duplicate({
      enableOfflineQueue: true,
      maxRetriesPerRequest: null,
      lazyConnect: false,
    });
    this.subscriber.on('error', () => {});
    this.subscriber.on('message', (channel: string, text: string) => {
      if (channel === this.channel) this.dispatch(text);
    });
    this.subscribed = this.subscriber.subscribe(this.channel).then(() => {
      this.isSubscribed = true;
    });
    this.subscribed.catch(() => {});
  }

  async create(init: SessionInit, counts: SessionCountBounds = this.bounds): Promise<SessionRecord> {
    const id = randomBytes(16).toString('hex');
    const kind = init.kind ?? 'mcp';
    const dialect = sessionDialect(init.dialect);
    const now = await this.run(async () =>
      Number(
        await CREATE_SESSION.run(
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
      ),
    ).catch((err) => {
      if (!(err instanceof McpLiteError) || err.code !== 'resource_exhausted') throw err;
      throw err.data?.scope === 'caller'
        ? tooManyForCaller(counts.maxSessionsPerCaller)
        : tooMany(counts.maxSessions);
    });
    return {
      id,
      owner: init.owner,
      revision: init.revision,
      clientCapabilities: init.clientCapabilities,
      clientInfo: init.clientInfo,
      initialized: false,
      subscriptions: [],
      lastSeen: now,
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
      SUBSCRIBE.run(this.client, [this.key(id), `${this.key(id)}:subs`], [uri, this.bounds.maxSubscriptions]),
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
    const events = raw.map((text) => JSON.parse(text) as SessionEvent);
    const index = events.findIndex((e) => e.id === lastEventId);
    if (index < 0) return undefined;
    const stream = events[index]!.stream;
    return { stream, events: events.slice(index + 1).filter((e) => e.stream === stream) };
  }

  async publish(sessionId: string, message: SessionMessage): Promise<void> {
    await this.run(() => this.client.publish(this.channel, JSON.stringify({ s: sessionId, m: message })));
  }

  async listen(sessionId: string, listener: (message: SessionMessage) => void): Promise<() => void> {
    await this.ready();
    let set = this.listeners.get(sessionId);
    if (!set) {
      set = new Set();
      this.listeners.set(sessionId, set);
    }
    set.add(listener);
    return () => {
      const s = this.listeners.get(sessionId);
      s?.delete(listener);
      if (s?.size === 0) this.listeners.delete(sessionId);
    };
  }

  async awaitResponse(requestId: string, timeoutMs: number): Promise<ResponseWaiter> {
    await this.ready();
    const key = `${this.prefix}srq:${requestId}`;
    await this.run(() => this.client.set(key, '1', 'PX', Math.max(1, Math.round(timeoutMs))));
    let cancel!: () => void;
    const response = new Promise<ServerResponse>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters.delete(requestId);
        reject(new McpLiteError('deadline_exceeded', 'The client did not answer the server request in time'));
      }, timeoutMs);
      timer.unref();
      cancel = () => {
        clearTimeout(timer);
        if (this.waiters.delete(requestId)) this.client.del(key).catch(() => {});
      };
      this.waiters.set(requestId, (r) => {
        clearTimeout(timer);
        this.waiters.delete(requestId);
        resolve(r);
      });
    });
    return { response, cancel };
  }

  async deliverResponse(requestId: string, response: ServerResponse): Promise<boolean> {
    const message = JSON.stringify({ r: requestId, v: response });
    const delivered = await this.run(() =>
      DELIVER_RESPONSE.run(this.client, [`${this.prefix}srq:${requestId}`], [this.channel, message]),
    );
    return Number(delivered) === 1;
  }

  async admitTask(owner: string, bounds: TaskBounds): Promise<void> {
    await this.run(() =>
      ADD_TASK.run(
        this.client,
        [`${this.prefix}tasks`, `${this.prefix}towner:${owner}`],
        [bounds.maxTasksPerCaller, bounds.maxTasks, '', '', '', 0],
      ),
    ).catch((err) => {
      throw taskRefusal(err, bounds);
    });
  }

  async addTask(taskId: string, data: TaskResumeData, bounds: TaskBounds): Promise<void> {
    await this.run(() =>
      ADD_TASK.run(
        this.client,
        [`${this.prefix}tasks`, `${this.prefix}towner:${data.owner}`],
        [
          bounds.maxTasksPerCaller,
          bounds.maxTasks,
          `${this.prefix}t:${taskId}`,
          taskId,
          JSON.stringify(data),
          Math.round(data.expiresAt),
        ],
      ),
    ).catch((err) => {
      throw taskRefusal(err, bounds);
    });
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

  async close(): Promise<void> {
    this.listeners.clear();
    this.waiters.clear();
    this.subscriber.disconnect();
    if (this.ownsClient) this.client.disconnect();
  }

  /** One Redis step: a refusal its script replied becomes the caller's `resource_exhausted`, anything else `unavailable`. */
  private run<T>(op: () => Promise<T>): Promise<T> {
    return withRedis(this.client, async () => {
      try {
        return await op();
      } catch (err) {
        const message = err instanceof Error ? err.message : '';
        if (message.includes(CALLER_FULL)) throw tooManyForCaller(-1);
        if (message.includes(STORE_FULL)) throw tooMany(-1);
        if (message.includes(SUBS_FULL)) throw tooManySubscriptions(this.bounds);
        throw err;
      }
    });
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
    if (parsed.r !== undefined) this.waiters.get(parsed.r)?.(parsed.v ?? {});
    else if (parsed.s !== undefined && parsed.m) {
      const set = this.listeners.get(parsed.s);
      if (set) for (const l of [...set]) l(parsed.m);
    }
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

/** A task refusal with its bound in the message (the script only says which bound). */
function taskRefusal(err: unknown, bounds: TaskBounds): unknown {
  if (!(err instanceof McpLiteError) || err.code !== 'resource_exhausted') return err;
  return tooManyTasks(err.data?.scope === 'caller' ? 'caller' : 'server', bounds);
}

function parseObject(text: string | undefined): Record<string, unknown> {
  try {
    const value = JSON.parse(text ?? '{}');
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? value : {};
  } catch {
    return {};
  }
}
