import type { Principal } from '../../../core/auth.js';
import type { NeutralRequest, NeutralResponse } from '../../../core/http.js';
import type { MaybePromise } from '../../../core/maybe-promise.js';
import type { BindingName } from '../../../core/operation.js';
import { randomId } from '../../../core/random-id.js';
import { unrefTimer } from '../../../core/timers.js';
import { JSON_HEADERS } from '../../common/http-reply.js';
import { OutboundStream, SSE_KEEP_ALIVE, sseEvent } from '../../common/outbound-stream.js';
import { bindingOfDialect } from '../draft-dialect/index.js';
import type { Exchange, ExchangeInit } from '../exchange.js';
import type { ServerRequests } from '../server-requests.js';
import type { McpSession } from '../sessions.js';

/**
 * One Streamable HTTP request in flight. Its response starts as JSON and becomes an SSE stream the moment the
 * request sends something before its result (a progress or log notification, a server request), provided the
 * client accepts `text/event-stream` and the request is not a batch member; a call that just answers pays for no
 * stream. A request of a client speaking another dialect (the draft seed's) has its stream's messages rewritten by
 * `dialect`; the JSON answer is left to the caller, who rewrites the whole response.
 */
export class HttpExchange implements Exchange {
  readonly revision: string;
  readonly stateless: boolean;
  readonly clientCapabilities: Record<string, unknown>;
  readonly logLevel: string | undefined;
  readonly session: McpSession | undefined;
  readonly canNotify: boolean;
  readonly request: Exchange['request'];
  // The response once known, and a promise of it made only for a caller that asks before then: a call that
  // answers at once needs no promise.
  private settled: NeutralResponse | undefined;
  private pending: Promise<NeutralResponse> | undefined;
  private resolvePending: ((r: NeutralResponse) => void) | undefined;
  private out: OutboundStream | undefined;
  private streamIdValue: string | undefined;
  private detached: AbortSignal | undefined;
  /**
   * The last event of a session's stream to be kept for resumption: each event waits for the one before. Made
   * with the first event: a call that just answers allocates no promise for it.
   */
  private lastKept: Promise<void> | undefined;

  constructor(
    private readonly serverRequests: ServerRequests,
    private readonly http: NeutralRequest,
    readonly principal: Principal | undefined,
    init: ExchangeInit,
    private readonly dialect?: { outbound(message: string): string },
    /** The bound of the response's stream (`common/outbound-stream.ts`); default 1 MiB. */
    private readonly maxQueuedBytes?: number,
  ) {
    this.revision = init.revision;
    this.stateless = init.stateless;
    this.clientCapabilities = init.clientCapabilities;
    this.logLevel = init.logLevel;
    this.session = init.session;
    this.canNotify = !init.batched && (http.headers.accept?.includes('text/event-stream') ?? false);
    this.request =
      this.canNotify && !this.stateless ? (method, params) => this.ask(method, params) : undefined;
  }

  /**
   * Aborts when the client goes away, except in a session: there the spec says a dropped connection is no
   * cancellation (the client cancels with `notifications/cancelled`), and the request's events are kept so that
   * a `Last-Event-ID` GET, on any replica, carries the rest. Read lazily: the adapter makes its signal (and its
   * listener) only when someone asks for it.
   */
  get signal(): AbortSignal {
    if (!this.session) return this.http.signal;
    if (!this.detached) {
      const controller = new AbortController();
      this.detached = controller.signal;
      const client = this.http.signal;
      // Not forever: work whose client never comes back is aborted once it has run this long on its own.
      const onGone = () => unrefTimer(setTimeout(() => controller.abort(client.reason), DETACHED_LIMIT_MS));
      if (client.aborted) onGone();
      else client.addEventListener('abort', onGone, { once: true });
    }
    return this.detached;
  }

  /** Read lazily, as the signal is: only calls that count per caller ask. */
  get remoteAddress(): string | undefined {
    return this.http.remoteAddress;
  }

  get headers(): Readonly<Record<string, string | undefined>> {
    return this.http.headers;
  }

  /** A draft-dialect session's requests are the draft binding's; the rest are MCP's. */
  get binding(): BindingName {
    return bindingOfDialect(this.dialect);
  }

  notify(message: Record<string, unknown>): Promise<void> {
    // Answered with JSON already: no stream will carry it, and a queue made now would never be read.
    if (!this.canNotify || (this.settled !== undefined && this.out === undefined)) return Promise.resolve();
    return this.send(JSON.stringify(message));
  }

  keepAlive(): void {
    if (!this.canNotify || (this.settled !== undefined && this.out === undefined)) return;
    // A comment, not an event: nothing to keep for resumption.
    const out = this.stream();
    if (!out.ended) void out.write(SSE_KEEP_ALIVE);
  }

  /** The response: the JSON answer, or the SSE stream it turned into; a promise while neither is known. */
  response(): MaybePromise<NeutralResponse> {
    if (this.settled) return this.settled;
    this.pending ??= new Promise((resolve) => {
      this.resolvePending = resolve;
    });
    return this.pending;
  }

  /** Ends the request with its final message: the JSON answer, or the last event of its stream. */
  finish(status: number, message: string, headers?: Record<string, string>): void {
    if (this.out) {
      const out = this.out;
      void this.send(message);
      // After the last event is kept and written (send writes it in this same turn of `lastKept`).
      void (this.lastKept ?? NOTHING_KEPT).then(() => out.end());
      return;
    }
    this.resolveResponse({
      status,
      headers: headers ? { ...JSON_HEADERS, ...headers } : JSON_HEADERS,
      body: message,
    });
  }

  /** The first response given wins (the stream, when the request sent something before its result). */
  private resolveResponse(response: NeutralResponse): void {
    if (this.settled) return;
    this.settled = response;
    this.resolvePending?.(response);
  }

  /** Names this response's stream among the session's events (only streams need one). */
  private streamId(): string {
    this.streamIdValue ??= randomId(6, 'hex');
    return this.streamIdValue;
  }

  private ask(method: string, params: Record<string, unknown>): Promise<unknown> {
    return this.serverRequests.ask(this.signal, (id) => {
      void this.send(JSON.stringify({ jsonrpc: '2.0', id, method, params }));
    });
  }

  /** The response's SSE stream, which becomes the response the first time something is sent before the result. */
  private stream(): OutboundStream {
    if (!this.out) {
      // The one outbound stream, with its bound: a client that stops reading is cut off (a session's events stay
      // in its log for a resumption).
      this.out = new OutboundStream({ maxQueuedBytes: this.maxQueuedBytes });
      this.resolveResponse(this.out.response());
    }
    return this.out;
  }

  private send(text: string): Promise<void> {
    const message = this.dialect ? this.dialect.outbound(text) : text;
    const out = this.stream();
    const { session } = this;
    if (!session) return out.write(sseEvent('message', message));
    // A session's event reaches the client only once it is kept: a client that reads it and at once resumes the
    // stream (Last-Event-ID), on any replica, must find it in the log. Events go out in order.
    const stream = this.streamId();
    const { chunk, kept } = session.record(stream, message);
    const turn = (this.lastKept ?? NOTHING_KEPT).then(() => kept);
    this.lastKept = turn;
    return turn.then(() =>
      // The client dropped the stream; a resumed GET (Last-Event-ID) may carry the rest.
      out.ended ? session.deliver(stream, chunk) : out.write(chunk),
    );
  }
}

/** What an exchange's first event waits for: nothing (shared, as it never changes). */
const NOTHING_KEPT: Promise<void> = Promise.resolve();

/** How long a session's request runs on after its client went away (10 minutes, as promised work may). */
const DETACHED_LIMIT_MS = 600_000;
