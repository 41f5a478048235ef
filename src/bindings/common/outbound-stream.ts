import type { NeutralResponse } from '../../core/http.js';
import { unrefTimer } from '../../core/timers.js';
import { AsyncQueue } from './async-queue.js';
import { SSE_HEADERS } from './http-reply.js';

/**
 * The one outbound writer (docs/architecture.md, "One outbound stream"): every stream a server holds open to a client
 * (MCP-lite and Webtools streamed calls, MCP's GET, POST and listen streams, legacy SSE, the inspector's rounds) and
 * the write side of every connection (WebSocket, stdio) writes through it, so each has the same bound and the same
 * cut-off; the HTTP streams also share the keep-alive and the SSE formatter.
 */

/** Most bytes waiting for a client that stops reading before it is cut off, unless a binding says otherwise (1 MiB). */
export const DEFAULT_MAX_QUEUED_BYTES = 1024 * 1024;

/** The keep-alive of a stream whose wire has none of its own: an SSE comment, which no client shows or keeps. */
export const SSE_KEEP_ALIVE = ': keep-alive\n\n';

/**
 * Formats one SSE event: optional `id`, the `event` name, the `data` (serialised JSON, which never holds a raw
 * newline). The one SSE formatter of the server.
 */
export function sseEvent(event: string, data: string, id?: string): string {
  return id === undefined
    ? `event: ${event}\ndata: ${data}\n\n`
    : `id: ${id}\nevent: ${event}\ndata: ${data}\n\n`;
}

/** The one option of the cut-off, the same name on every binding that streams or holds a connection (`maxQueuedBytes`). */
export interface StreamBoundOptions {
  /**
   * Most bytes (UTF-16 units of the chunks on HTTP streams, bytes on connections, near enough) waiting for a client
   * that stopped reading. A write finding that many waiting cuts the client off: what waited is dropped, the
   * connection is dropped and the stream ends. Default 1 MiB on an HTTP stream; a connection (WebSocket, stdio),
   * which carries all of a client's traffic, says its own.
   */
  maxQueuedBytes?: number;
}

/**
 * Where an outbound writer's chunks go: the transport under one client (an HTTP response body, a WebSocket, a
 * pipe), which holds what the client has not taken yet.
 */
export interface OutboundSink {
  /** What the client has not taken yet (bytes, or UTF-16 units): what the cut-off counts. */
  readonly waitingBytes: number;
  /**
   * Hands one chunk over, in order. Returns a promise when the writer should wait for it to go out (the transport
   * is full: backpressure), else undefined.
   */
  send(chunk: string): Promise<void> | undefined;
  /** Drops the connection and what waits in it (the cut-off). */
  drop(): void;
  /** No more chunks: the client gets what waits, then the end (when the transport has an end of its own). */
  end?(): void;
}

/** Options of an outbound writer. */
export interface OutboundWriterOptions extends StreamBoundOptions {
  /** Runs once when the writer ends, whatever ended it (`end`, the client gone, the cut-off). */
  onEnd?: () => void;
  /** Runs when a client that stopped reading is cut off (before `onEnd`), e.g. for a log line. */
  onCutOff?: () => void;
}

const DONE = Promise.resolve();

/**
 * The one byte-bounded writer to one client, whatever carries the chunks: HTTP streams (`OutboundStream`), and the
 * write side of WebSocket and stdio connections. Its one cut-off policy: a write that finds `maxQueuedBytes`
 * already waiting for the client cuts it off (what waits is dropped, the connection dropped, the writer ended).
 * A write resolves when the sink says the chunk has gone out, which is how a producer that awaits gets
 * backpressure; one that does not is bounded by `maxQueuedBytes`.
 */
export class OutboundWriter {
  private readonly cutOffController = new AbortController();
  private readonly endListeners: Array<() => void> = [];
  private readonly onCutOff: (() => void) | undefined;
  private readonly maxQueuedBytes: number;
  private done = false;

  /** Aborted when the client is cut off: whoever holds the connection drops it and what it still held. */
  readonly abandoned: AbortSignal = this.cutOffController.signal;

  constructor(
    private readonly sink: OutboundSink,
    options: OutboundWriterOptions = {},
  ) {
    this.maxQueuedBytes = options.maxQueuedBytes ?? DEFAULT_MAX_QUEUED_BYTES;
    if (options.onEnd) this.endListeners.push(options.onEnd);
    this.onCutOff = options.onCutOff;
  }

  /** Whether the writer has ended (nothing more is written). */
  get ended(): boolean {
    return this.done;
  }

  /** Runs `listener` once when the writer ends (at once if it has). */
  onEnded(listener: () => void): void {
    if (this.done) listener();
    else this.endListeners.push(listener);
  }

  /**
   * Writes a chunk; resolves when it has gone out (as the sink tells). A client that already has `maxQueuedBytes`
   * waiting is cut off instead, and the promise resolves at once (as it does once the writer has ended).
   */
  write(chunk: string): Promise<void> {
    if (this.done) return DONE;
    if (this.sink.waitingBytes >= this.maxQueuedBytes) {
      this.cutOff();
      return DONE;
    }
    return this.sink.send(chunk) ?? DONE;
  }

  /** Cuts the client off: drops what waits, drops the connection, ends the writer. */
  cutOff(): void {
    if (this.done) return;
    this.onCutOff?.();
    this.cutOffController.abort();
    this.sink.drop();
    this.finish();
  }

  /** No more chunks: the client gets what waits, then the end. */
  end(): void {
    this.sink.end?.();
    this.finish();
  }

  /** Ends the writer without touching the sink (the client is gone): later writes resolve at once. */
  protected finish(): void {
    if (this.done) return;
    this.done = true;
    for (const l of this.endListeners.splice(0)) l();
  }
}

/** Options of an outbound stream. */
export interface OutboundStreamOptions extends OutboundWriterOptions {
  /**
   * Idle time after which the stream gets `keepAlive()`: written only when nothing was written for that long and
   * nothing waits (a stalled reader must not make keep-alives pile up). Undefined or 0: none.
   */
  keepAliveMs?: number;
  /** The keep-alive chunk. Default `SSE_KEEP_ALIVE`. */
  keepAlive?: () => string;
}

/** The sink of an HTTP stream: a queue the adapter reads the response body from, counting what waits in it. */
class QueueSink implements OutboundSink {
  readonly queue = new AsyncQueue<string>();
  waitingBytes = 0;
  lastWrite = Date.now();

  send(chunk: string): Promise<void> {
    this.waitingBytes += chunk.length;
    this.lastWrite = Date.now();
    return this.queue.push(chunk).then(() => {
      this.waitingBytes -= chunk.length;
    });
  }

  drop(): void {
    // Stopping the consumer drops what waited: ending alone would keep it for a reader that never comes.
    void this.queue[Symbol.asyncIterator]().return?.();
  }

  end(): void {
    this.queue.end();
  }
}

/**
 * A byte-bounded stream of text chunks to one client over HTTP (an `OutboundWriter` whose sink is the response
 * body), with its keep-alive (on `unrefTimer`, so it holds no process open and runs where timers are numbers).
 */
export class OutboundStream extends OutboundWriter {
  private readonly out: QueueSink;
  private timer: ReturnType<typeof setInterval> | undefined;

  constructor(options: OutboundStreamOptions = {}) {
    const out = new QueueSink();
    super(out, options);
    this.out = out;
    const keepAliveMs = options.keepAliveMs ?? 0;
    if (keepAliveMs > 0) {
      const chunk = options.keepAlive ?? (() => SSE_KEEP_ALIVE);
      this.timer = setInterval(
        () => {
          if (Date.now() - out.lastWrite >= keepAliveMs && out.queue.pending === 0) void this.write(chunk());
        },
        Math.max(10, Math.floor(keepAliveMs / 2)),
      );
      unrefTimer(this.timer);
    }
    out.queue.onConsumerGone(() => this.finish());
  }

  /** How many chunks wait for the client. */
  get pending(): number {
    return this.out.queue.pending;
  }

  /** What the client reads. */
  get body(): AsyncIterable<string> {
    return this.out.queue;
  }

  /** The stream as an HTTP response (SSE headers unless others are given). */
  response(headers: Readonly<Record<string, string>> = SSE_HEADERS): NeutralResponse {
    return { status: 200, headers: { ...headers }, body: this.out.queue, abandoned: this.abandoned };
  }

  protected override finish(): void {
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
    super.finish();
  }
}
