import { randomBytes } from 'node:crypto';
import { AsyncQueue } from '../common/async-queue.js';

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
  /** URIs the client subscribed to. */
  readonly subscriptions = new Set<string>();
  lastSeen = Date.now();
  closed = false;
  private stream: AsyncQueue<string> | undefined;
  private readonly events: StoredEvent[] = [];
  private seq = 0;
  private readonly closeListeners: Array<() => void> = [];
  private readonly resumed = new Map<string, AsyncQueue<string>>();

  constructor(
    readonly id: string,
    readonly revision: string,
    readonly clientCapabilities: Record<string, unknown>,
    readonly clientInfo: unknown,
    private readonly maxEvents: number,
  ) {}

  /** Numbers an event of `stream` and keeps it for resumption; returns the SSE text. */
  record(stream: string, message: string): string {
    const id = `${stream}_${++this.seq}`;
    this.events.push({ id, stream, data: message });
    if (this.events.length > this.maxEvents) this.events.shift();
    return `id: ${id}\nevent: message\ndata: ${message}\n\n`;
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

/** Options of the session store. */
export interface SessionStoreOptions {
  /** Most live sessions; the least recently seen is closed beyond it. Default 10 000. */
  maxSessions?: number;
  /** A session unused this long is closed. Default 30 minutes. */
  idleMs?: number;
  /** Events kept per session for `Last-Event-ID` resumption. Default 256. */
  maxEvents?: number;
}

/** The live sessions of one binding (memory; sessions are per replica, as the handshake revisions assume). */
export class SessionStore {
  private readonly sessions = new Map<string, McpSession>();
  private readonly maxSessions: number;
  private readonly idleMs: number;
  private readonly maxEvents: number;
  private sweeper: NodeJS.Timeout | undefined;

  constructor(options: SessionStoreOptions = {}) {
    this.maxSessions = options.maxSessions ?? 10_000;
    this.idleMs = options.idleMs ?? 30 * 60_000;
    this.maxEvents = options.maxEvents ?? 256;
  }

  /** Creates a session with a fresh unguessable id (visible ASCII only, as the spec requires). */
  create(revision: string, clientCapabilities: Record<string, unknown>, clientInfo: unknown): McpSession {
    if (this.sessions.size >= this.maxSessions) {
      let oldest: McpSession | undefined;
      for (const s of this.sessions.values()) if (!oldest || s.lastSeen < oldest.lastSeen) oldest = s;
      if (oldest) this.delete(oldest.id);
    }
    const session = new McpSession(
      randomBytes(16).toString('hex'),
      revision,
      clientCapabilities,
      clientInfo,
      this.maxEvents,
    );
    this.sessions.set(session.id, session);
    this.startSweeper();
    return session;
  }

  /** The live session with this id. */
  get(id: string): McpSession | undefined {
    const s = this.sessions.get(id);
    if (s) s.lastSeen = Date.now();
    return s;
  }

  /** Ends a session; false when it was unknown. */
  delete(id: string): boolean {
    const s = this.sessions.get(id);
    if (!s) return false;
    this.sessions.delete(id);
    s.close();
    return true;
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
