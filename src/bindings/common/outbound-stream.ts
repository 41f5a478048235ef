import type { NeutralResponse } from '../../core/http.js';
import { unrefTimer } from '../../core/timers.js';
import { AsyncQueue } from './async-queue.js';
import { SSE_HEADERS } from './http-reply.js';

/**
 * The one outbound stream of the HTTP bindings (docs/architecture.md, "One outbound stream"): every stream a server
 * holds open to a client (MCP-lite and Webtools streamed calls, MCP's GET, POST and listen streams, legacy SSE, the
 * inspector's rounds) writes through it, so each has the same bound, the same cut-off and the same keep-alive.
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

/** The one option of the cut-off, the same name on every binding that streams (`maxQueuedBytes`). */
export interface StreamBoundOptions {
  /**
   * Most bytes (UTF-16 units of the chunks, near enough) of a stream waiting for a client that stopped reading. A
   * write finding that many waiting cuts the client off: what waited is dropped, the connection is dropped and the
   * stream ends. Default 1 MiB.
   */
  maxQueuedBytes?: number;
}

/** Options of an outbound stream. */
export interface OutboundStreamOptions extends StreamBoundOptions {
  /**
   * Idle time after which the stream gets `keepAlive()`: written only when nothing was written for that long and
   * nothing waits (a stalled reader must not make keep-alives pile up). Undefined or 0: none.
   */
  keepAliveMs?: number;
  /** The keep-alive chunk. Default `SSE_KEEP_ALIVE`. */
  keepAlive?: () => string;
  /** Runs once when the stream ends, whatever ended it (`end`, the client gone, the cut-off). */
  onEnd?: () => void;
  /** Runs when a client that stopped reading is cut off (before `onEnd`), e.g. for a log line. */
  onCutOff?: () => void;
}

/**
 * A byte-bounded stream of text chunks to one client, with its keep-alive (on `unrefTimer`, so it holds no
 * process open and runs where timers are numbers). A write resolves when the client has taken the chunk, which is
 * how a producer that awaits gets backpressure; one that does not is bounded by `maxQueuedBytes`.
 */
export class OutboundStream {
  private readonly queue = new AsyncQueue<string>();
  private readonly maxQueuedBytes: number;
  private readonly cutOffController = new AbortController();
  private readonly endListeners: Array<() => void> = [];
  private readonly onCutOff: (() => void) | undefined;
  private queuedBytes = 0;
  private lastWrite = Date.now();
  private timer: ReturnType<typeof setInterval> | undefined;
  private done = false;

  /** Aborted when the client is cut off: the adapter drops the connection and what it still held. */
  readonly abandoned: AbortSignal = this.cutOffController.signal;

  constructor(options: OutboundStreamOptions = {}) {
    this.maxQueuedBytes = options.maxQueuedBytes ?? DEFAULT_MAX_QUEUED_BYTES;
    if (options.onEnd) this.endListeners.push(options.onEnd);
    this.onCutOff = options.onCutOff;
    const keepAliveMs = options.keepAliveMs ?? 0;
    if (keepAliveMs > 0) {
      const chunk = options.keepAlive ?? (() => SSE_KEEP_ALIVE);
      this.timer = setInterval(
        () => {
          if (Date.now() - this.lastWrite >= keepAliveMs && this.queue.pending === 0)
            void this.write(chunk());
        },
        Math.max(10, Math.floor(keepAliveMs / 2)),
      );
      unrefTimer(this.timer);
    }
    this.queue.onConsumerGone(() => this.finish());
  }

  /** How many chunks wait for the client. */
  get pending(): number {
    return this.queue.pending;
  }

  /** Whether the stream has ended (nothing more is written). */
  get ended(): boolean {
    return this.done;
  }

  /** Runs `listener` once when the stream ends (at once if it has). */
  onEnded(listener: () => void): void {
    if (this.done) listener();
    else this.endListeners.push(listener);
  }

  /** What the client reads. */
  get body(): AsyncIterable<string> {
    return this.queue;
  }

  /**
   * Writes a chunk; resolves when the client has taken it. A client that already has `maxQueuedBytes` waiting is
   * cut off instead, and the promise resolves at once (as it does once the stream has ended).
   */
  write(chunk: string): Promise<void> {
    if (this.done) return Promise.resolve();
    if (this.queuedBytes >= this.maxQueuedBytes) {
      this.cutOff();
      return Promise.resolve();
    }
    this.queuedBytes += chunk.length;
    this.lastWrite = Date.now();
    return this.queue.push(chunk).then(() => {
      this.queuedBytes -= chunk.length;
    });
  }

  /** Cuts the client off: drops what waits, drops the connection, ends the stream. */
  cutOff(): void {
    if (this.done) return;
    this.onCutOff?.();
    this.cutOffController.abort();
    // Stopping the consumer drops what waited: ending alone would keep it for a reader that never comes.
    void this.queue[Symbol.asyncIterator]().return?.();
    this.finish();
  }

  /** No more chunks: the client gets what waits, then the end. */
  end(): void {
    this.queue.end();
    this.finish();
  }

  /** The stream as an HTTP response (SSE headers unless others are given). */
  response(headers: Readonly<Record<string, string>> = SSE_HEADERS): NeutralResponse {
    return { status: 200, headers: { ...headers }, body: this.queue, abandoned: this.abandoned };
  }

  private finish(): void {
    if (this.done) return;
    this.done = true;
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
    for (const l of this.endListeners.splice(0)) l();
  }
}
