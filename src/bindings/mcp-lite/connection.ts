import { McpLiteError, toMcpLiteError } from '../../core/errors.js';
import { errorExit } from '../common/error-exit.js';
import {
  type ConnectionLink,
  type ConnectionPeer,
  type ConnectionProtocol,
  type JsonRpcConnection,
  type JsonRpcConnectionOptions,
  openConnection,
} from '../common/json-rpc-connection.js';
import { idOf, type JsonRpcId, type JsonRpcRequest, validateRequest } from '../common/jsonrpc.js';
import type { McpLiteRpc, RpcOrigin } from './methods.js';
import { rpcErrorMessage } from './wire.js';

/** Options of an MCP-lite channel: the connection's (`maxInFlight`). */
export type ChannelOptions = JsonRpcConnectionOptions;

/** The method of a partial result of a streamed call (docs/wire-format.md, "WebSocket and stdio"). */
export const PARTIAL_METHOD = 'notifications/partial';
/** The notification that cancels a request in flight, named and shaped as MCP's. */
export const CANCELLED_METHOD = 'notifications/cancelled';

/**
 * Answers MCP-lite JSON-RPC on a connection that carries many messages both ways (WebSocket, stdio), on the one
 * connection runtime (`common/json-rpc-connection.ts`: parsing, the in-flight bound, closing): requests run
 * concurrently and are answered as they finish, in any order; a `tools/call` whose params say `"stream": true`
 * sends each partial as a `notifications/partial` before its response; `notifications/cancelled` aborts a request
 * in flight; `ping` answers `{}`. Every method is the HTTP binding's own (`McpLiteRpc`), so the two cannot drift.
 */
export function openChannel(
  rpc: McpLiteRpc,
  peer: ConnectionPeer,
  options: ChannelOptions = {},
): JsonRpcConnection {
  return openConnection(peer, options, (link) => channelProtocol(rpc, link));
}

/** MCP-lite's dispatch on one connection. */
function channelProtocol(rpc: McpLiteRpc, link: ConnectionLink): ConnectionProtocol {
  const peer = link.peer;
  // Requests in flight by id (batches under a key of their own), so that a cancel or the end of the connection
  // can reach them.
  const calls = new Map<unknown, ChannelCall>();

  function send(text: string | undefined): void {
    if (text !== undefined) void link.write(text);
  }

  function receive(body: unknown): void {
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
    const refusal = link.refusal() ?? (calls.has(id) ? idInUse() : undefined);
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
            link.write(
              `{"jsonrpc":"2.0","method":"${PARTIAL_METHOD}","params":{"id":${JSON.stringify(id)},"partial":${JSON.stringify(data) ?? 'null'}}}`,
            )
        : undefined;
    const reply = rpc.answer(m, call, peer.principal, rpc.messageReply, onPartial);
    if (typeof reply === 'string' || reply === undefined) {
      calls.delete(id);
      send(reply);
      return;
    }
    link.enter();
    reply.then((r) => finish(id, call, r));
  }

  /** Ends a request that was counted in flight: it stays counted until its answer is written. */
  function finish(key: unknown, call: ChannelCall, reply: string | undefined): void {
    if (calls.get(key) === call) calls.delete(key);
    if (reply === undefined) link.leave();
    else link.write(reply).then(link.leave, link.leave);
  }

  function batch(messages: unknown[]): void {
    const refusal = link.refusal();
    if (refusal) {
      send(rpcErrorMessage(null, refusal));
      return;
    }
    const key = Symbol('batch');
    const call = new ChannelCall(peer.remoteAddress, peer.headers);
    calls.set(key, call);
    link.enter();
    rpc.batch(messages, call, peer.principal).then(
      (reply) => finish(key, call, reply),
      (err) => finish(key, call, rpcErrorMessage(null, errorExit(err, rpc.log))),
    );
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
    errorMessage: (id, err) => rpcErrorMessage(id, errorExit(err, rpc.log)),
    close(reason) {
      for (const call of calls.values()) call.abort(reason);
      calls.clear();
    },
  };
}

/** The refusal of a request whose id is already in flight on the connection (a cancel could not tell them apart). */
function idInUse(): McpLiteError {
  return new McpLiteError('invalid_request', 'Invalid Request: a request with this id is still in flight');
}

/** The origin of a notification: nobody can cancel it, so it needs no signal of its own. */
function notificationOrigin(peer: ConnectionPeer): RpcOrigin {
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
