import type { Principal } from '../../core/auth.js';
import { McpLiteError, toMcpLiteError } from '../../core/errors.js';
import { parseJsonBody } from '../common/json-body.js';
import { idOf, type JsonRpcId, type JsonRpcRequest, validateRequest } from '../common/jsonrpc.js';
import type { McpLiteRpc, RpcOrigin } from './rpc.js';
import { rpcErrorMessage } from './wire.js';

/** The connection a channel answers on, as its framing (WebSocket, stdio lines) provides it. */
export interface ChannelPeer {
  /** Sends one message. The framing bounds what it buffers (a peer that stops reading is disconnected). */
  send(text: string): void;
  /** Sends one message and resolves once it has been written out: the backpressure of streamed partials. */
  sendAndWait(text: string): Promise<void>;
  /** Who authenticated the connection, if anyone. */
  readonly principal: Principal | undefined;
  /** The peer's address, when the framing knows it. */
  readonly remoteAddress: string | undefined;
  /** The headers the connection was opened with (the WebSocket upgrade's); none on stdio. */
  readonly headers?: Readonly<Record<string, string | undefined>> | undefined;
}

/** Options of an MCP-lite channel. */
export interface ChannelOptions {
  /** Most requests (a batch counts as one) running at once on one connection. Default 256. */
  maxInFlight?: number;
}

/** MCP-lite JSON-RPC over one persistent connection. */
export interface Channel {
  /** Takes one received message (UTF-8 JSON: one message or a batch); the framing has bounded its size. */
  receive(bytes: Uint8Array): void;
  /** The connection is gone: aborts every call still running; nothing more is sent. */
  close(reason?: McpLiteError): void;
  /** Requests running now. */
  readonly inFlight: number;
}

/** The method of a partial result of a streamed call (docs/wire-format.md, "WebSocket and stdio"). */
export const PARTIAL_METHOD = 'notifications/partial';
/** The notification that cancels a request in flight, named and shaped as MCP's. */
export const CANCELLED_METHOD = 'notifications/cancelled';

/**
 * Answers MCP-lite JSON-RPC on a connection that carries many messages both ways (WebSocket, stdio): requests run
 * concurrently and are answered as they finish, in any order; a `tools/call` whose params say `"stream": true`
 * sends each partial as a `notifications/partial` before its response; `notifications/cancelled` aborts a request
 * in flight; `ping` answers `{}`. Every method is the HTTP binding's own (`McpLiteRpc`), so the two cannot drift.
 */
export function openChannel(rpc: McpLiteRpc, peer: ChannelPeer, options: ChannelOptions = {}): Channel {
  const maxInFlight = options.maxInFlight ?? 256;
  // Requests in flight by id (batches under a key of their own), so that a cancel or the end of the connection
  // can reach them.
  const calls = new Map<unknown, ChannelCall>();
  let closedWith: McpLiteError | undefined;

  function send(text: string | undefined): void {
    if (text !== undefined && closedWith === undefined) peer.send(text);
  }

  function receive(bytes: Uint8Array): void {
    if (closedWith) return;
    let body: unknown;
    try {
      body = parseJsonBody(bytes);
    } catch (err) {
      send(rpcErrorMessage(null, toMcpLiteError(err)));
      return;
    }
    if (Array.isArray(body)) batch(body);
    else single(body);
  }

  function single(body: unknown): void {
    let m: JsonRpcRequest;
    try {
      m = validateRequest(body);
    } catch (err) {
      const e = toMcpLiteError(err);
      send(rpcErrorMessage(idOf(body, e), e));
      return;
    }
    if (!('id' in m)) {
      notification(m);
      return;
    }
    const id = m.id as JsonRpcId;
    if (m.method === 'ping') {
      send(`{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":{}}`);
      return;
    }
    const refusal = admit(id);
    if (refusal) {
      send(rpcErrorMessage(id, refusal));
      return;
    }
    const call = new ChannelCall(peer.remoteAddress, peer.headers);
    calls.set(id, call);
    const params = m.params as Record<string, unknown> | undefined;
    const onPartial =
      m.method === 'tools/call' && params?.stream === true
        ? (data: unknown) =>
            closedWith
              ? undefined
              : peer.sendAndWait(
                  `{"jsonrpc":"2.0","method":"${PARTIAL_METHOD}","params":{"id":${JSON.stringify(id)},"partial":${JSON.stringify(data) ?? 'null'}}}`,
                )
        : undefined;
    const reply = rpc.answer(m, call, peer.principal, rpc.messageReply, onPartial);
    if (typeof reply === 'string' || reply === undefined) finish(id, call, reply);
    else reply.then((r) => finish(id, call, r));
  }

  function finish(key: unknown, call: ChannelCall, reply: string | undefined): void {
    if (calls.get(key) === call) calls.delete(key);
    send(reply);
  }

  function batch(messages: unknown[]): void {
    const refusal = admit(undefined);
    if (refusal) {
      send(rpcErrorMessage(null, refusal));
      return;
    }
    const key = Symbol('batch');
    const call = new ChannelCall(peer.remoteAddress, peer.headers);
    calls.set(key, call);
    rpc.batch(messages, call, peer.principal).then(
      (reply) => finish(key, call, reply),
      (err) => finish(key, call, rpcErrorMessage(null, toMcpLiteError(err))),
    );
  }

  /** Why a request cannot start now, if it cannot: too many in flight, or its id is already in use. */
  function admit(id: JsonRpcId | undefined): McpLiteError | undefined {
    if (calls.size >= maxInFlight) {
      return new McpLiteError(
        'resource_exhausted',
        `Too many requests in flight on this connection (at most ${maxInFlight}): wait for answers first`,
        { limit: maxInFlight },
      );
    }
    if (id !== undefined && calls.has(id)) {
      return new McpLiteError(
        'invalid_request',
        'Invalid Request: a request with this id is still in flight',
      );
    }
    return undefined;
  }

  function notification(m: JsonRpcRequest): void {
    if (m.method === CANCELLED_METHOD) {
      const params = m.params as Record<string, unknown> | undefined;
      const call = params && !Array.isArray(params) ? calls.get(params.requestId) : undefined;
      call?.abort(new McpLiteError('cancelled', 'The client cancelled the request'));
      return;
    }
    // Other notifications run as on HTTP (a tools/call notification runs the tool) and are never answered; they
    // are not cancellable and do not count against the in-flight bound, as they have no id to track them by.
    const done = rpc.answer(m, notificationOrigin(peer), peer.principal, rpc.messageReply);
    if (done instanceof Promise) done.then(undefined, () => {});
  }

  return {
    receive,
    close(reason = new McpLiteError('cancelled', 'The connection closed')) {
      if (closedWith) return;
      closedWith = reason;
      for (const call of calls.values()) call.abort(reason);
      calls.clear();
    },
    get inFlight() {
      return calls.size;
    },
  };
}

/** The origin of a notification: nobody can cancel it, so it needs no signal of its own. */
function notificationOrigin(peer: ChannelPeer): RpcOrigin {
  return { signal: NEVER_ABORTED, remoteAddress: peer.remoteAddress, headers: peer.headers };
}

const NEVER_ABORTED = new AbortController().signal;

/**
 * One request in flight: its signal is made only when core asks for it (most calls finish before they would),
 * and aborts on a cancel or when the connection ends.
 */
class ChannelCall implements RpcOrigin {
  private controller: AbortController | undefined;
  private abortedWith: McpLiteError | undefined;

  constructor(
    readonly remoteAddress: string | undefined,
    readonly headers: Readonly<Record<string, string | undefined>> | undefined,
  ) {}

  get signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      if (this.abortedWith) this.controller.abort(this.abortedWith);
    }
    return this.controller.signal;
  }

  abort(reason: McpLiteError): void {
    if (this.abortedWith) return;
    this.abortedWith = reason;
    this.controller?.abort(reason);
  }
}
