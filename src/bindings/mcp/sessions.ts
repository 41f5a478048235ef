import { randomBytes } from 'node:crypto';
import { McpLiteError } from '../../core/errors.js';
import { AsyncQueue } from '../common/async-queue.js';
import { boundedClientInfo, boundedObject, CAPABILITY_LIMITS } from './bounded.js';

/**
 * Sessions of the handshake revisions. A session exists only where a handshake feature needs one: the log
 * level set by `logging/setLevel`, resource subscriptions, and the GET stream that carries notifications
 * outside any request. Events sent on it are numbered and kept a while so that a client can resume with
 * `Last-Event-ID`.
 */

/** One stored SSE event. */
interface StoredEvent {
  id: string;
  stream: string;
  data: string;
}

/** A session: negotiated revision, the client's capabilities and the server→client stream. */
export class McpSession {
  /** Whether `notifications/initialized` arrived. */
  initialized = false;
  /** The threshold set by `logging/setLevel`; no logs are sent before it is set. */
  logLevel: string | undefined;
  /** URIs the client subscribed to (bounded: see `subscribe`). */
  readonly subscriptions = new Set<string>();
  lastSeen = Date.now();
  closed = false;
  private stream: AsyncQueue<string> | undefined;
  private readonly events: StoredEvent[] = [];
  private eventChars = 0;
  private seq = 0;
  private readonly closeListeners: Array<() => void> = [];
  private readonly resumed = new Map<string, AsyncQueue<string>>();

  constructor(
    readonly id: string,
    readonly revision: string,
    /** What the client declared, as a bounded copy (`bounded.ts`). */
    readonly clientCapabilities: Record<string, unknown>,
    /** The client's name, title, version and website, each string cut short. */
    readonly clientInfo: Record<string, string>,
    /** `callerKey` of whoever opened it: with auth, a session is unknown to every other principal. */
    readonly owner: string,
    private readonly limits: SessionLimits,
  ) {}

  /**
   * Numbers an event of `stream` and keeps it for resumption (the newest `maxEvents`, within `maxEventBytes`);
   * returns the SSE text.
   */
  record(stream: string, message: string): string {
    const id = `${stream}_${++this.seq}`;
    this.events.push({ id, stream, data: message });
    this.eventChars += message.length;
    while (
      this.events.length > this.limits.maxEvents ||
      (this.eventChars > this.limits.maxEventBytes && this.events.length > 0)
    ) {
      this.eventChars -= this.events.shift()!.data.length;
    }
    return `id: ${id}\nevent: message\ndata: ${message}\n\n`;
  }

  /** `resources/subscribe`: refuses a URI over the length bound, and more than `maxSubscriptions` (-32004). */
  subscribe(uri: string): void {
    if (uri.length > MAX_URI_CHARS) {
      throw new McpLiteError(
        'invalid_params',
        `Invalid params: "uri" is longer than ${MAX_URI_CHARS} characters`,
      );
    }
    if (!this.subscriptions.has(uri) && this.subscriptions.size >= this.limits.maxSubscriptions) {
      throw new McpLiteError(
        'resource_exhausted',
        `Too many subscriptions in this session (limit ${this.limits.maxSubscriptions}): unsubscribe first`,
        { limit: this.limits.maxSubscriptions },
      );
    }
    this.subscriptions.add(uri);
  }

  /** Events of the same stream after `lastEventId`, as SSE text; undefined when that event is unknown. */
  replayAfter(lastEventId: string): { stream: string; chunks: string[] } | undefined {
    const index = this.events.findIndex((e) => e.id === lastEventId);
    if (index < 0) return undefined;
    const stream = this.events[index]!.stream;
    const chunks = this.events
      .slice(index + 1)
      .filter((e) => e.stream === stream)
      .map((e) => `id: ${e.id}\nevent: message\ndata: ${e.data}\n\n`);
    return { stream, chunks };
  }

  /** Carries what a POST stream still sends on a GET stream that resumed it (`Last-Event-ID`). */
  attach(stream: string, queue: AsyncQueue<string>): void {
    this.resumed.get(stream)?.end();
    this.resumed.set(stream, queue);
    queue.onConsumerGone(() => {
      if (this.resumed.get(stream) === queue) this.resumed.delete(stream);
    });
  }

  /** Sends an already recorded chunk of a POST stream to whoever resumed it (dropped when nobody did yet). */
  deliver(stream: string, chunk: string): Promise<void> {
    return this.resumed.get(stream)?.push(chunk) ?? Promise.resolve();
  }

  /** Opens (or replaces) the GET stream. */
  openStream(): AsyncQueue<string> {
    this.stream?.end();
    const queue = new AsyncQueue<string>();
    this.stream = queue;
    queue.onConsumerGone(() => {
      if (this.stream === queue) this.stream = undefined;
    });
    return queue;
  }

  /** Whether a GET stream is open. */
  get hasStream(): boolean {
    return this.stream !== undefined;
  }

  /** Where messages outside requests go instead of the GET stream (stdio). */
  sink: ((message: string) => void) | undefined;

  /** Sends a message on the GET stream (kept for resumption even when no stream is open). */
  send(message: string): void {
    if (this.sink) {
      this.sink(message);
      return;
    }
    const chunk = this.record('get', message);
    void this.stream?.push(chunk);
  }

  /** Runs `listener` when the session ends. */
  onClose(listener: () => void): void {
    this.closeListeners.push(listener);
  }

  /** Ends the session: closes its stream and tells listeners. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.stream?.end();
    this.stream = undefined;
    for (const q of this.resumed.values()) q.end();
    this.resumed.clear();
    for (const l of this.closeListeners.splice(0)) l();
  }
}

/** Longest resource URI a session subscribes to. */
const MAX_URI_CHARS = 2048;

/** What one session may keep. */
interface SessionLimits {
  maxEvents: number;
  maxEventBytes: number;
  maxSubscriptions: number;
}

/**
 * Options of the session store. A session is the client's state, so it is bounded per caller (`callerKey`: the
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

/** The live sessions of one binding (memory; sessions are per replica, as the handshake revisions assume). */
export class SessionStore {
  private readonly sessions = new Map<string, McpSession>();
  private readonly perCaller = new Map<string, number>();
  private readonly maxSessions: number;
  private readonly maxPerCaller: number;
  private readonly idleMs: number;
  private readonly limits: SessionLimits;
  private sweeper: NodeJS.Timeout | undefined;

  constructor(options: SessionStoreOptions = {}) {
    this.maxSessions = options.maxSessions ?? 10_000;
    this.maxPerCaller = options.maxSessionsPerCaller ?? 100;
    this.idleMs = options.idleMs ?? 30 * 60_000;
    this.limits = {
      maxEvents: options.maxEvents ?? 256,
      maxEventBytes: options.maxEventBytes ?? 1024 * 1024,
      maxSubscriptions: options.maxSubscriptions ?? 1000,
    };
  }

  /**
   * Creates a session with a fresh unguessable id (visible ASCII only, as the spec requires) for `owner`
   * (`callerKey`), keeping bounded copies of what the client declared. Throws `resource_exhausted` when the owner
   * or the store holds as many sessions as allowed.
   */
  create(revision: string, clientCapabilities: unknown, clientInfo: unknown, owner: string): McpSession {
    const held = this.perCaller.get(owner) ?? 0;
    if (held >= this.maxPerCaller) {
      throw new McpLiteError(
        'resource_exhausted',
        `Too many sessions for this caller (limit ${this.maxPerCaller}): end unused ones with DELETE, or wait for idle ones to expire`,
        { limit: this.maxPerCaller, scope: 'caller' },
      );
    }
    if (this.sessions.size >= this.maxSessions) {
      throw new McpLiteError('resource_exhausted', 'The server holds as many sessions as it can: try later', {
        limit: this.maxSessions,
        scope: 'server',
      });
    }
    const session = new McpSession(
      randomBytes(16).toString('hex'),
      revision,
      boundedObject(clientCapabilities, CAPABILITY_LIMITS),
      boundedClientInfo(clientInfo),
      owner,
      this.limits,
    );
    this.sessions.set(session.id, session);
    this.perCaller.set(owner, held + 1);
    this.startSweeper();
    return session;
  }

  /**
   * The live session with this id, for the caller `callerKey`: a session opened by an authenticated principal is
   * unknown to everyone else (sessions opened without auth are bound to no one: the id is the capability, and an
   * address may change under NAT or a proxy).
   */
  get(id: string, caller?: string): McpSession | undefined {
    const s = this.sessions.get(id);
    if (!s || (caller !== undefined && !ownedBy(s, caller))) return undefined;
    s.lastSeen = Date.now();
    return s;
  }

  /** Ends a session (when `caller` may see it, as for `get`); false when it was unknown. */
  delete(id: string, caller?: string): boolean {
    const s = this.sessions.get(id);
    if (!s || (caller !== undefined && !ownedBy(s, caller))) return false;
    this.sessions.delete(id);
    const held = (this.perCaller.get(s.owner) ?? 1) - 1;
    if (held > 0) this.perCaller.set(s.owner, held);
    else this.perCaller.delete(s.owner);
    s.close();
    return true;
  }

  /** How many sessions are live. */
  get size(): number {
    return this.sessions.size;
  }

  /** Every live session. */
  all(): IterableIterator<McpSession> {
    return this.sessions.values();
  }

  /** Ends every session and stops the sweeper. */
  closeAll(): void {
    if (this.sweeper) clearInterval(this.sweeper);
    this.sweeper = undefined;
    for (const id of [...this.sessions.keys()]) this.delete(id);
  }

  private startSweeper(): void {
    if (this.sweeper) return;
    this.sweeper = setInterval(
      () => {
        const cutoff = Date.now() - this.idleMs;
        for (const s of [...this.sessions.values()])
          if (s.lastSeen < cutoff && !s.hasStream) this.delete(s.id);
      },
      Math.min(60_000, this.idleMs),
    );
    this.sweeper.unref();
  }
}

/** Whether `caller` may see session `s`. */
function ownedBy(s: McpSession, caller: string): boolean {
  return !s.owner.startsWith('principal:') || s.owner === caller;
}
