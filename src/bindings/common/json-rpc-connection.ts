import type { Principal } from '../../core/auth.js';
import { McpLiteError } from '../../core/errors.js';
import { allowManyListeners } from '../../core/many-listeners.js';
import { parseJsonBody } from './json-body.js';
import type { JsonRpcId } from './jsonrpc.js';

/**
 * JSON-RPC over one persistent connection, whatever the framing (WebSocket messages, stdio lines, a legacy SSE
 * stream and its POSTs, an in-memory pair) and whichever protocol is spoken (MCP-lite's dispatch,
 * `mcp-lite/connection.ts`; MCP's loop, `mcp/connection.ts`). The runtime does what both need, once: it parses each
 * message (bad JSON is answered with the protocol's parse error, id null), answers an oversized message with
 * `payload_too_large` (id null), bounds the requests in flight on the connection, lets the connection be waited
 * for until idle, and closes it: the signal every request listens to aborts, and nothing more is written.
 */

/** The transport under one connection, as its framing provides it. */
export interface ConnectionPeer {
  /**
   * Writes one message, in order; resolves once it is written out (the backpressure of notifications and
   * partials). The framing writes through the one outbound writer (`outbound-stream.ts`, `maxQueuedBytes`): a
   * peer that stops reading is cut off.
   */
  write(message: string): Promise<void>;
  /** Ends the transport (the draft dialect's `exit`). */
  end(): void;
  /** Who authenticated the connection, if anyone. */
  readonly principal: Principal | undefined;
  /** The peer's address, when the framing knows it. */
  readonly remoteAddress: string | undefined;
  /** The headers the connection was opened with (the WebSocket upgrade's, the SSE GET's); none on stdio. */
  readonly headers?: Readonly<Record<string, string | undefined>> | undefined;
}

/** Options of every JSON-RPC connection. */
export interface JsonRpcConnectionOptions {
  /**
   * Most requests running at once on one connection (a batch counts as one); past it a request is answered
   * `resource_exhausted` (-32004). Default 256.
   */
  maxInFlight?: number;
}

/** What the runtime hands the protocol spoken over a connection. */
export interface ConnectionLink {
  /** The transport. */
  readonly peer: ConnectionPeer;
  /** Aborted, with a `cancelled` reason, when the connection closes: each request in flight listens to it. */
  readonly signal: AbortSignal;
  /** Writes one message unless the connection is closed (then resolves at once). */
  write(message: string): Promise<void>;
  /** One more request in flight (until `leave`): what `inFlight`, `idle()` and the bound count. */
  enter(): void;
  /** One request in flight fewer. */
  leave(): void;
  /** A request in flight until `work` settles (typically: until its answer is written). */
  track(work: Promise<unknown>): void;
  /** Why a new request cannot start now (the in-flight bound is reached), if it cannot. */
  refusal(): McpLiteError | undefined;
}

/** The protocol's side of a connection: what it does with each message, and how it writes an error. */
export interface ConnectionProtocol {
  /** One parsed message or batch. */
  receive(body: unknown): void;
  /** The protocol's JSON-RPC error response carrying `err` (by its wire table), with `id`. */
  errorMessage(id: JsonRpcId, err: unknown): string;
  /** The connection has closed (`reason`): abort what runs, release what the protocol holds. */
  close(reason: McpLiteError): void;
}

/** One JSON-RPC connection, as its framing drives it. */
export interface JsonRpcConnection {
  /** One message already parsed (a legacy SSE POST, the in-memory pair). */
  receive(body: unknown): void;
  /** One framed message as received (UTF-8 JSON: one message or a batch); the framing has bounded its size. */
  receiveBytes(bytes: Uint8Array): void;
  /** The framing found a message over `limit` bytes: answered `payload_too_large`, with no id. */
  oversized(limit: number): void;
  /** The framing found something that is no message (a binary frame): answered with `err`, with no id. */
  refuse(err: McpLiteError): void;
  /** Requests in flight now (with the answers on their way out). */
  readonly inFlight: number;
  /** Resolves once no request is in flight (at once when none is, or once the connection is closed). */
  idle(): Promise<void>;
  /** The connection is gone: aborts what runs; nothing more is written. */
  close(reason?: McpLiteError): void;
}

const DONE = Promise.resolve();

/** Opens the runtime of one connection over `peer`, with the protocol `speak` makes from the link it is given. */
export function openConnection(
  peer: ConnectionPeer,
  options: JsonRpcConnectionOptions,
  speak: (link: ConnectionLink) => ConnectionProtocol,
): JsonRpcConnection {
  const maxInFlight = options.maxInFlight ?? 256;
  const closing = new AbortController();
  // Each request in flight listens to the connection's signal (and stops when it ends): many at once is normal.
  allowManyListeners(closing.signal);
  let running = 0;
  let idlers: Array<() => void> = [];

  const leave = (): void => {
    if (--running > 0 || idlers.length === 0) return;
    const waiting = idlers;
    idlers = [];
    for (const resolve of waiting) resolve();
  };
  const link: ConnectionLink = {
    peer,
    signal: closing.signal,
    write: (message) => (closing.signal.aborted ? DONE : peer.write(message)),
    enter: () => {
      running++;
    },
    leave,
    track(work) {
      running++;
      work.then(leave, leave);
    },
    refusal: () =>
      running >= maxInFlight
        ? new McpLiteError(
            'resource_exhausted',
            `Too many requests in flight on this connection (at most ${maxInFlight}): wait for answers first`,
            { limit: maxInFlight },
          )
        : undefined,
  };
  const protocol = speak(link);
  const refuse = (err: McpLiteError): void => {
    if (!closing.signal.aborted) void peer.write(protocol.errorMessage(null, err));
  };

  return {
    receive(body) {
      if (!closing.signal.aborted) protocol.receive(body);
    },
    receiveBytes(bytes) {
      if (closing.signal.aborted) return;
      let body: unknown;
      try {
        body = parseJsonBody(bytes);
      } catch (err) {
        void peer.write(protocol.errorMessage(null, err));
        return;
      }
      protocol.receive(body);
    },
    oversized(limit) {
      refuse(
        new McpLiteError('payload_too_large', `Payload Too Large: a message exceeds ${limit} bytes`, {
          limit,
        }),
      );
    },
    refuse,
    get inFlight() {
      return running;
    },
    idle() {
      if (running === 0 || closing.signal.aborted) return DONE;
      return new Promise<void>((resolve) => idlers.push(resolve));
    },
    close(reason = new McpLiteError('cancelled', 'The connection closed')) {
      if (closing.signal.aborted) return;
      closing.abort(reason);
      protocol.close(reason);
      // Whoever waits for the connection to be idle waits no more: nothing it runs will be answered.
      const waiting = idlers;
      idlers = [];
      for (const resolve of waiting) resolve();
    },
  };
}
