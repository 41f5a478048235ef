/**
 * The state a connection-oriented protocol keeps between requests (MCP's handshake-revision sessions, their SSE
 * event logs, server-to-client requests waiting for their response, task-resume data), behind one interface so
 * that any replica can serve any request: the memory store (`stores/memory-sessions.ts`, the embedded default)
 * keeps it in one process, the Redis store (`stores/redis/session-store.ts`) shares it between replicas.
 *
 * Everything stored is plain JSON. What cannot be shared (an open HTTP response, a timer) stays in the process
 * that holds it; the store carries the messages addressed to it (`publish`/`listen`) to whichever replica that is.
 * Every operation is async; a store that cannot be reached rejects with `unavailable`, and a bound reached
 * rejects with the reaching caller's `resource_exhausted` (never another caller's live state evicted).
 */

/** One session as stored: plain JSON, the same in every store. */
export interface SessionRecord {
  /** The unguessable id (`Mcp-Session-Id`, or the legacy transport's `sessionId`). */
  id: string;
  /** `callerKey` of whoever opened it: with auth, a session is unknown to every other principal (`ownedBy`). */
  owner: string;
  /** The negotiated protocol revision. */
  revision: string;
  /** What the client declared it can do, as a bounded copy (the binding bounds it before `create`). */
  clientCapabilities: Record<string, unknown>;
  /** The client's name, title, version and website, each string cut short. */
  clientInfo: Record<string, string>;
  /** Whether `notifications/initialized` arrived. */
  initialized: boolean;
  /** The threshold set by `logging/setLevel`; absent until set (no logs are sent before). */
  logLevel?: string;
  /** Resource URIs the client subscribed to (bounded by `SessionBounds.maxSubscriptions`). */
  subscriptions: string[];
  /** When it was last used (epoch ms): idle sessions expire after `SessionBounds.idleMs`. */
  lastSeen: number;
  /**
   * The message dialect its client speaks, when not MCP's own (`draft-seed`: the detailed draft spec's shapes, see
   * bindings/mcp/draft-dialect); absent for MCP. One of `SESSION_DIALECTS`: a store drops any other value it reads.
   */
  dialect?: SessionDialect;
}

/** The dialects a session may speak besides MCP's own shapes (a bounded set: the record keeps only these). */
export const SESSION_DIALECTS = ['draft-seed'] as const;

/** A dialect a session may speak (`SESSION_DIALECTS`). */
export type SessionDialect = (typeof SESSION_DIALECTS)[number];

/** `value` when it names a known dialect, else undefined (what a store keeps of a dialect field). */
export function sessionDialect(value: unknown): SessionDialect | undefined {
  return SESSION_DIALECTS.find((d) => d === value);
}

/** What `create` needs: the record's fields that the client chose. */
export interface SessionInit {
  /** The revision `initialize` negotiated. */
  revision: string;
  /** What the client declared, already bounded by the binding (a store keeps it as given). */
  clientCapabilities: Record<string, unknown>;
  /** The client's `Implementation`, already bounded by the binding. */
  clientInfo: Record<string, string>;
  /** The dialect its client speaks, when not MCP's own (a value outside `SESSION_DIALECTS` is not kept). */
  dialect?: SessionDialect;
  /** `callerKey` of whoever opens it: counted against its bound, and (with auth) the only one who sees it. */
  owner: string;
  /**
   * The count a session is bounded in: sessions of different kinds (the Streamable HTTP binding's, the legacy
   * HTTP+SSE transport's) have bounds of their own. Default `mcp`.
   */
  kind?: string;
}

/** Bounds on how many sessions there may be, for one `kind`. */
export interface SessionCountBounds {
  /** Most live sessions in all. */
  maxSessions: number;
  /** Most live sessions one caller (`callerKey`) may hold. */
  maxSessionsPerCaller: number;
}

/**
 * The bounds a session store enforces (the options of `SessionStoreOptions`, resolved): per caller and in total,
 * per session (events, their size, subscriptions) and in time (idle expiry).
 */
export interface SessionBounds extends SessionCountBounds {
  /** A session unused this long is ended (a replica holding its GET stream keeps it used). */
  idleMs: number;
  /** Events kept per session for `Last-Event-ID` resumption (the oldest go first). */
  maxEvents: number;
  /** Most characters of events kept per session (the oldest go first). */
  maxEventBytes: number;
  /** Most resource subscriptions per session. */
  maxSubscriptions: number;
}

/**
 * Options of a session store. A session is the client's state, so it is bounded per caller (`callerKey`: the
 * principal, else the remote address) and in total; a bound reached is the reaching caller's `resource_exhausted`
 * (-32004, HTTP 429). A live session is never evicted to make room: sessions end by DELETE or by idling.
 */
export interface SessionStoreOptions {
  /** Most live sessions in all. Default 10 000. */
  maxSessions?: number;
  /** Most live sessions one caller may hold. Default 100. */
  maxSessionsPerCaller?: number;
  /** A session unused this long (and with no open GET stream) is closed. Default 30 minutes. */
  idleMs?: number;
  /** Events kept per session for `Last-Event-ID` resumption. Default 256. */
  maxEvents?: number;
  /** Most characters of events kept per session for resumption (the oldest go first). Default 1 MiB. */
  maxEventBytes?: number;
  /** Most resource subscriptions per session. Default 1 000. */
  maxSubscriptions?: number;
}

/** The options with their defaults: every store applies the same ones. */
export function sessionBounds(options: SessionStoreOptions = {}): SessionBounds {
  return {
    maxSessions: options.maxSessions ?? 10_000,
    maxSessionsPerCaller: options.maxSessionsPerCaller ?? 100,
    idleMs: options.idleMs ?? 30 * 60_000,
    maxEvents: options.maxEvents ?? 256,
    maxEventBytes: options.maxEventBytes ?? 1024 * 1024,
    maxSubscriptions: options.maxSubscriptions ?? 1000,
  };
}

/** One SSE event kept for resumption: its id, the stream it was sent on (`get` or a POST stream's), its data. */
export interface SessionEvent {
  /** The SSE id, unique in the session (`Last-Event-ID` names it). */
  id: string;
  /** `get` for the GET stream, else the POST stream's name. */
  stream: string;
  /** The JSON-RPC message. */
  data: string;
}

/**
 * A message addressed to whatever one replica holds for a session, carried by `publish`/`listen` to every
 * replica (the one holding the stream acts on it):
 * - `event`: an event already recorded for `stream` (the GET stream `get`, or a POST stream a GET resumed);
 * - `opened`: `holder` opened the GET stream (or resumed `stream`): any other holder of it ends its copy;
 * - `closed`: the session ended (DELETE on any replica, or idle expiry);
 * - `inbound`: a client message for a connection-held session (the legacy HTTP+SSE transport's POST);
 * - `cancel`: a `notifications/cancelled` for request `requestId` of the session, received by a replica where that
 *   request does not run (the replica running it aborts it).
 */
export type SessionMessage =
  | { type: 'event'; stream: string; id: string; chunk: string }
  | { type: 'opened'; stream: string; holder: string }
  | { type: 'closed' }
  | { type: 'inbound'; body: unknown }
  | { type: 'cancel'; requestId: string | number; reason?: string };

/** The client's answer to a server request (a JSON-RPC response's `result` or `error`). */
export interface ServerResponse {
  /** The result of a success. */
  result?: unknown;
  /** The error object of a refusal. */
  error?: unknown;
}

/** A server request waiting for its response: the response, and how to stop waiting. */
export interface ResponseWaiter {
  /** Resolves with the response, delivered from any replica; rejects `deadline_exceeded` after the timeout. */
  readonly response: Promise<ServerResponse>;
  /** Stops waiting (the request was aborted): a later response is dropped. */
  cancel(): void;
}

/** What resuming a task with `tasks/update` needs, and whose the task is. Plain JSON. */
export interface TaskResumeData {
  readonly tool: string;
  /** Absent once the task cannot take input any more (or its arguments were too large to keep). */
  arguments?: unknown;
  /** Why the task cannot be resumed, when it cannot. */
  notResumable?: string;
  /** The promise behind the task now (a resumed task runs as a new promise). */
  token: string;
  /** Input keys answered in the current round, hidden from tasks/get while their answer is being applied. */
  answered: string[];
  lastUpdatedAt: number;
  /** `callerKey` of whoever made the task: with auth, the task is unknown to every other principal. */
  readonly owner: string;
  /** When the promise behind it expires: the data goes with it. */
  expiresAt: number;
}

/** One page of a caller's task ids (`SessionStateStore.taskIds`). */
export interface TaskIdPage {
  ids: string[];
  /** Whether tasks follow the page. */
  more: boolean;
}

/** Bounds on task-resume data: how many tasks per caller and in all. */
export interface TaskBounds {
  /** Most live tasks one caller (`callerKey`) may hold. */
  maxTasksPerCaller: number;
  /** Most live tasks in the store. */
  maxTasks: number;
}

/**
 * Where sessions, their event logs, server-request waiters, task-resume data and the messages addressed to a
 * session's stream live. A binding keeps only live objects (open streams) in its process and asks the store for
 * everything else, so a session made on one replica is usable on every replica sharing the store.
 */
export interface SessionStateStore {
  /** The bounds this store enforces (bindings read `idleMs` to keep a session with an open stream alive). */
  readonly bounds: SessionBounds;

  /**
   * Creates a session with a fresh unguessable id (visible ASCII only). Throws `resource_exhausted` when the
   * owner, or the store, holds as many sessions of `init.kind` as `counts` (default: `bounds`) allows.
   */
  create(init: SessionInit, counts?: SessionCountBounds): Promise<SessionRecord>;
  /**
   * The live session with this id, for `caller` (`callerKey`; undefined: anyone); marks it used. A session opened
   * by an authenticated principal is unknown to everyone else (`ownedBy`).
   */
  get(id: string, caller?: string): Promise<SessionRecord | undefined>;
  /** The live session with this id without marking it used (a notification going out is no use). */
  peek(id: string): Promise<SessionRecord | undefined>;
  /** Marks a session used (a replica holding its stream); false when it is gone. */
  touch(id: string): Promise<boolean>;
  /** Changes the record's mutable fields. */
  update(id: string, patch: { initialized?: boolean; logLevel?: string }): Promise<void>;
  /** Adds a resource subscription; throws `resource_exhausted` past `bounds.maxSubscriptions`. */
  subscribe(id: string, uri: string): Promise<void>;
  /** Removes a resource subscription. */
  unsubscribe(id: string, uri: string): Promise<void>;
  /** Ends a session (when `caller` may see it, as for `get`) and publishes `closed`; false when it was unknown. */
  delete(id: string, caller?: string): Promise<boolean>;
  /** Ids of the live sessions of `kind` (default `mcp`): for notifications every session hears. */
  ids(kind?: string): Promise<string[]>;

  /** Keeps an event for resumption, the newest `bounds.maxEvents` within `bounds.maxEventBytes`. */
  appendEvent(sessionId: string, event: SessionEvent): Promise<void>;
  /** The events of the same stream after `lastEventId`; undefined when that event is unknown (or was dropped). */
  eventsAfter(
    sessionId: string,
    lastEventId: string,
  ): Promise<{ stream: string; events: SessionEvent[] } | undefined>;

  /** Sends a message to every replica's listeners of the session. */
  publish(sessionId: string, message: SessionMessage): Promise<void>;
  /** Hears the messages published for a session (from any replica); resolves once listening, with the stop. */
  listen(sessionId: string, listener: (message: SessionMessage) => void): Promise<() => void>;

  /**
   * Registers a server request (its id unguessable) before it is sent, so that its response can arrive through
   * any replica; resolves once a response delivered anywhere will reach the waiter.
   */
  awaitResponse(requestId: string, timeoutMs: number): Promise<ResponseWaiter>;
  /** Hands a client response to its waiter, wherever it waits; false when no such request is waiting. */
  deliverResponse(requestId: string, response: ServerResponse): Promise<boolean>;

  /** Throws `resource_exhausted` when `owner`, or the store, holds as many tasks as `bounds` allows. */
  admitTask(owner: string, bounds: TaskBounds): Promise<void>;
  /** Keeps a new task's resume data until it expires; throws like `admitTask`. */
  addTask(taskId: string, data: TaskResumeData, bounds: TaskBounds): Promise<void>;
  /** Replaces a kept task's data (its expiry with it); nothing when the task is gone. */
  putTask(taskId: string, data: TaskResumeData): Promise<void>;
  /** A live task's data. */
  getTask(taskId: string): Promise<TaskResumeData | undefined>;
  /**
   * Ids of `owner`'s live tasks (in the order they expire, every task living its promise's TTL): at most `limit`
   * of them from position `offset`, and whether more follow (for a paged `tasks/list` that shows a caller its own
   * tasks alone).
   */
  taskIds(owner: string, offset: number, limit: number): Promise<TaskIdPage>;

  /** Lets go of what the store holds open (timers, connections); the state itself stays where it is. */
  close(): Promise<void>;
}

/** Whether `caller` may see a session of `owner`: sessions opened without auth are bound to no one. */
export function ownedBy(owner: string, caller: string): boolean {
  return !owner.startsWith('principal:') || owner === caller;
}
