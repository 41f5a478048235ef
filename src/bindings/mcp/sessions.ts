import { McpLiteError } from '../../core/errors.js';
import type { Logger } from '../../core/logger.js';
import { randomId } from '../../core/random-id.js';
import type {
  SessionDialect,
  SessionMessage,
  SessionRecord,
  SessionStateStore,
  SessionStoreOptions,
} from '../../core/session-state.js';
import { MemorySessionStore } from '../../stores/memory-sessions.js';
import { sseEvent } from '../common/outbound-stream.js';

/**
 * Sessions of the handshake revisions. A session exists only where a handshake feature needs one: the log
 * level set by `logging/setLevel`, resource subscriptions, and the GET stream that carries notifications
 * outside any request. Its state lives in a `SessionStateStore` (memory by default, Redis to share it between
 * replicas); a request gets an `McpSession`, a view of the record read when the request arrived, whose changes go
 * back through the store. Events sent on it are numbered and kept in the store so that a client can resume with
 * `Last-Event-ID` on any replica (`streamable-http/session-streams.ts` holds the open streams).
 */

/** The bounds of a session store (re-exported where the binding's options were always read from). */
export type { SessionStoreOptions };

/** Longest resource URI a session subscribes to. */
const MAX_URI_CHARS = 2048;

// Event ids are made here rather than by the store, so that a request's stream is written without waiting for
// it: unique across replicas (a random prefix per process) and visible ASCII, as SSE ids must be. The prefix is
// drawn on first use: Workers forbid random values at import.
let processTag: string | undefined;
let eventSeq = 0;

/** The next event id of `stream`. */
function nextEventId(stream: string): string {
  processTag ??= randomId(4, 'hex');
  return `${stream}_${processTag}${++eventSeq}`;
}

/** A session as one request sees it: the stored record, and how to change it and reach its client. */
export class McpSession {
  private readonly subscribed: Set<string>;

  constructor(
    private readonly rec: SessionRecord,
    private readonly hub: SessionHub,
  ) {
    this.subscribed = new Set(rec.subscriptions);
  }

  /** The session id (`Mcp-Session-Id`). */
  get id(): string {
    return this.rec.id;
  }
  /** The negotiated revision. */
  get revision(): string {
    return this.rec.revision;
  }
  /** What the client declared, as a bounded copy (`boundedObject`, below). */
  get clientCapabilities(): Record<string, unknown> {
    return this.rec.clientCapabilities;
  }
  /** The client's name, title, version and website, each string cut short. */
  get clientInfo(): Record<string, string> {
    return this.rec.clientInfo;
  }
  /** `callerKey` of whoever opened it: with auth, a session is unknown to every other principal. */
  get owner(): string {
    return this.rec.owner;
  }
  /** Whether `notifications/initialized` arrived (when the request was read, or since through this view). */
  get initialized(): boolean {
    return this.rec.initialized;
  }
  /** The threshold set by `logging/setLevel`; no logs are sent before it is set. */
  get logLevel(): string | undefined {
    return this.rec.logLevel;
  }
  /** The dialect its client speaks when not MCP's own (`draft-seed`), as `initialize` found it. */
  get dialect(): SessionDialect | undefined {
    return this.rec.dialect;
  }
  /** URIs the client subscribed to (bounded: see `subscribe`). */
  get subscriptions(): ReadonlySet<string> {
    return this.subscribed;
  }

  /** `notifications/initialized` arrived. */
  markInitialized(): Promise<void> {
    this.rec.initialized = true;
    return this.hub.store.update(this.id, { initialized: true });
  }

  /** `logging/setLevel`. */
  setLogLevel(level: string): Promise<void> {
    this.rec.logLevel = level;
    return this.hub.store.update(this.id, { logLevel: level });
  }

  /** `resources/subscribe`: refuses a URI over the length bound, and more than `maxSubscriptions` (-32004). */
  async subscribe(uri: string): Promise<void> {
    if (uri.length > MAX_URI_CHARS) {
      throw new McpLiteError(
        'invalid_params',
        `Invalid params: "uri" is longer than ${MAX_URI_CHARS} characters`,
      );
    }
    await this.hub.store.subscribe(this.id, uri);
    this.subscribed.add(uri);
  }

  /** `resources/unsubscribe`. */
  async unsubscribe(uri: string): Promise<void> {
    this.subscribed.delete(uri);
    await this.hub.store.unsubscribe(this.id, uri);
  }

  /**
   * Numbers an event of `stream` and keeps it for resumption (the store keeps the newest `maxEvents`, within
   * `maxEventBytes`): returns the SSE text, and `kept`, which resolves once the store has it (or failed to keep
   * it; it never rejects). Store writes are started in the order of the calls.
   */
  record(stream: string, message: string): { chunk: string; kept: Promise<void> } {
    const id = nextEventId(stream);
    return {
      chunk: sseEvent('message', message, id),
      kept: this.hub.keep(this.id, { id, stream, data: message }),
    };
  }

  /** Sends an already recorded chunk of a POST stream to whoever resumed it, on any replica (dropped if nobody). */
  deliver(stream: string, chunk: string): Promise<void> {
    const id = chunk.slice(4, chunk.indexOf('\n'));
    return this.hub.store.publish(this.id, { type: 'event', stream, id, chunk }).catch(() => {});
  }

  /**
   * Passes a `notifications/cancelled` for request `requestId` to every replica (`onCancelElsewhere`): the one
   * running that request aborts it. Best effort, like the notification itself.
   */
  cancelElsewhere(requestId: string | number, reason: unknown): Promise<void> {
    const message: SessionMessage = { type: 'cancel', requestId };
    if (typeof reason === 'string') message.reason = reason;
    return this.hub.store.publish(this.id, message).catch(() => {});
  }

  /** Listens for the cancels of this session's requests that other replicas received; resolves with how to stop. */
  onCancelElsewhere(
    listener: (requestId: string | number, reason: string | undefined) => void,
  ): Promise<() => void> {
    return this.hub.store.listen(this.id, (m) => {
      if (m.type === 'cancel') listener(m.requestId, m.reason);
    });
  }

  /** Sends a message on the GET stream, wherever it is open (kept for resumption even when none is). */
  send(message: string): Promise<void> {
    return this.hub.send(this.id, message);
  }

  /** Where messages outside requests go instead of the GET stream (a connection: stdio, WebSocket, legacy SSE). */
  get sink(): ((message: string) => void) | undefined {
    return this.hub.sinks.get(this.id);
  }
  set sink(sink: ((message: string) => void) | undefined) {
    if (sink) this.hub.sinks.set(this.id, sink);
    else this.hub.sinks.delete(this.id);
  }
}

/**
 * The sessions of one binding, through its store: creating and finding them (with the owner check), ending them,
 * and sending messages on their GET streams wherever those are open.
 */
export class SessionHub {
  /** Sessions of this process whose messages outside requests go to a connection rather than a GET stream. */
  readonly sinks = new Map<string, (message: string) => void>();
  /**
   * How a message outside requests is rewritten for the sessions of a dialect (the draft seed's, over Streamable
   * HTTP): called once per message, before it goes to every session, whose record names its dialect.
   */
  readonly dialects = new Map<SessionDialect, (message: string) => string>();

  constructor(
    /** Where the sessions live. */
    readonly store: SessionStateStore,
    private readonly log: Logger | undefined,
  ) {}

  /**
   * Creates a session for `owner` (`callerKey`), keeping bounded copies of what the client declared, and the
   * dialect its client speaks when not MCP's own. Rejects `resource_exhausted` when the owner or the store holds as
   * many sessions as allowed.
   */
  async create(
    revision: string,
    clientCapabilities: unknown,
    clientInfo: unknown,
    owner: string,
    dialect?: SessionDialect,
  ): Promise<McpSession> {
    const record = await this.store.create({
      revision,
      clientCapabilities: boundedObject(clientCapabilities, CAPABILITY_LIMITS),
      clientInfo: boundedClientInfo(clientInfo),
      owner,
      ...(dialect ? { dialect } : {}),
    });
    return new McpSession(record, this);
  }

  /** A view of a record already read (a connection's own session). */
  view(record: SessionRecord): McpSession {
    return new McpSession(record, this);
  }

  /**
   * The live session with this id, for the caller `callerKey`: a session opened by an authenticated principal is
   * unknown to everyone else (sessions opened without auth are bound to no one: the id is the capability, and an
   * address may change under NAT or a proxy).
   */
  async get(id: string, caller?: string): Promise<McpSession | undefined> {
    const record = await this.store.get(id, caller);
    return record ? new McpSession(record, this) : undefined;
  }

  /** Ends a session (when `caller` may see it, as for `get`); false when it was unknown. */
  async delete(id: string, caller?: string): Promise<boolean> {
    this.sinks.delete(id);
    return this.store.delete(id, caller);
  }

  /** Sends a message outside any request: to the session's connection, else recorded and on its GET stream. */
  async send(sessionId: string, message: string): Promise<void> {
    const sink = this.sinks.get(sessionId);
    if (sink) {
      sink(message);
      return;
    }
    const id = nextEventId('get');
    const chunk = sseEvent('message', message, id);
    await this.store.appendEvent(sessionId, { id, stream: 'get', data: message });
    await this.store.publish(sessionId, { type: 'event', stream: 'get', id, chunk });
  }

  /**
   * Sends a message to every initialized session (`uri`: only those subscribed to it). A failing store costs
   * the notification, logged, not the change that caused it.
   */
  broadcast(message: string, uri?: string): void {
    void this.sendAll(message, uri).catch((err) =>
      this.log?.warn({ err: String(err) }, 'could not send a notification to the sessions'),
    );
  }

  /**
   * Keeps an event for resumption; resolves once kept. A failing store costs the resumption of that event,
   * logged: the promise resolves then too.
   */
  keep(sessionId: string, event: { id: string; stream: string; data: string }): Promise<void> {
    return this.store
      .appendEvent(sessionId, event)
      .catch((err) => this.log?.warn({ err: String(err) }, 'could not keep an event for resumption'));
  }

  private async sendAll(message: string, uri: string | undefined): Promise<void> {
    // Each dialect's shape is made once, now: a rewriting may remember what it announced (tools/changed).
    const shaped = new Map<SessionDialect, string>();
    for (const [dialect, rewrite] of this.dialects) shaped.set(dialect, rewrite(message));
    for (const id of await this.store.ids()) {
      const record = await this.store.peek(id);
      if (!record) continue;
      if (uri === undefined ? !record.initialized : !record.subscriptions.includes(uri)) continue;
      await this.send(id, (record.dialect && shaped.get(record.dialect)) ?? message);
    }
  }
}

/**
 * Sessions in this process's memory whose `create` answers in the caller's turn: a connection (stdio, WebSocket,
 * legacy SSE) is its own session, and the messages its client sends right after `initialize` must find it.
 */
export class SessionStore {
  /** The memory store behind it. */
  readonly store: MemorySessionStore;
  /** The hub over that store (sending, broadcasting, sinks). */
  readonly hub: SessionHub;

  constructor(options: SessionStoreOptions = {}, log?: Logger) {
    this.store = new MemorySessionStore(options);
    this.hub = new SessionHub(this.store, log);
  }

  /** Creates a session at once (see `SessionHub.create`); throws `resource_exhausted` past a bound. */
  create(revision: string, clientCapabilities: unknown, clientInfo: unknown, owner: string): McpSession {
    const record = this.store.createNow({
      revision,
      clientCapabilities: boundedObject(clientCapabilities, CAPABILITY_LIMITS),
      clientInfo: boundedClientInfo(clientInfo),
      owner,
    });
    return this.hub.view(record);
  }

  /** Ends every session and lets go of the store's timers. */
  closeAll(): Promise<void> {
    return this.store.close();
  }
}

/**
 * Bounded copies of what a client declares and a server keeps (session capabilities, client info): a client may
 * send megabytes in any field, and a kept copy must cost a known, small amount whatever it sent.
 */

/** How much of a client's JSON a bounded copy keeps. */
interface CopyLimits {
  /** Longest string kept (longer ones are cut); keys longer than this are dropped. */
  maxString: number;
  /** Most keys of an object, or items of an array, kept. */
  maxKeys: number;
  /** Deepest nesting kept (deeper values are dropped). */
  maxDepth: number;
  /** Most values kept in all (the rest are dropped), which bounds the copy's size whatever its shape. */
  maxNodes: number;
}

/** The limits for client capabilities: enough for every capability MCP defines, with extensions. */
const CAPABILITY_LIMITS: CopyLimits = { maxString: 128, maxKeys: 32, maxDepth: 5, maxNodes: 128 };

/** Longest string of `clientInfo` a session keeps. */
const MAX_INFO_STRING = 256;

/** A JSON object copied within `limits` (a non-object becomes `{}`). */
function boundedObject(value: unknown, limits: CopyLimits): Record<string, unknown> {
  const budget = { nodes: limits.maxNodes };
  const copy = copyValue(value, limits, 0, budget);
  return typeof copy === 'object' && copy !== null && !Array.isArray(copy)
    ? (copy as Record<string, unknown>)
    : {};
}

/** The fields of MCP's `Implementation` a session may show (name, title, version, websiteUrl), strings cut short. */
function boundedClientInfo(value: unknown): Record<string, string> {
  const info: Record<string, string> = {};
  if (typeof value !== 'object' || value === null) return info;
  for (const key of ['name', 'title', 'version', 'websiteUrl'] as const) {
    const v = (value as Record<string, unknown>)[key];
    if (typeof v === 'string') info[key] = cut(v, MAX_INFO_STRING);
  }
  return info;
}

/**
 * The first `max` characters of `s`, as a string of its own: V8 makes a short slice of a long string a view that
 * keeps the whole original alive, which would keep a client's megabytes for the session's life.
 */
function cut(s: string, max: number): string {
  return s.length > max ? (JSON.parse(JSON.stringify(s.slice(0, max))) as string) : s;
}

function copyValue(value: unknown, limits: CopyLimits, depth: number, budget: { nodes: number }): unknown {
  if (budget.nodes <= 0) return undefined;
  budget.nodes--;
  switch (typeof value) {
    case 'string':
      return cut(value, limits.maxString);
    case 'number':
    case 'boolean':
      return value;
    case 'object': {
      if (value === null) return null;
      if (depth >= limits.maxDepth) return undefined;
      if (Array.isArray(value)) {
        const out: unknown[] = [];
        for (const item of value.slice(0, limits.maxKeys)) {
          const c = copyValue(item, limits, depth + 1, budget);
          if (c !== undefined) out.push(c);
        }
        return out;
      }
      const out: Record<string, unknown> = {};
      let kept = 0;
      // for…in stops early: Object.keys would list every key of a huge object first.
      for (const key in value) {
        if (kept >= limits.maxKeys || budget.nodes <= 0) break;
        if (!Object.hasOwn(value, key) || key.length > limits.maxString || key === '__proto__') continue;
        const c = copyValue((value as Record<string, unknown>)[key], limits, depth + 1, budget);
        if (c !== undefined) {
          out[key] = c;
          kept++;
        }
      }
      return out;
    }
    default:
      return undefined;
  }
}
