import type { Principal } from '../../core/auth.js';
import { McpLiteError } from '../../core/errors.js';
import type { Logger } from '../../core/logger.js';
import type { MaybePromise } from '../../core/maybe-promise.js';
import type { CallerSource } from '../../core/operation-caller.js';
import { answerBatch, DEFAULT_MAX_BATCH } from '../common/batch.js';
import { errorExit } from '../common/error-exit.js';
import { errorHeaders } from '../common/http-reply.js';
import {
  idOf,
  isObject,
  isResponse,
  type JsonRpcId,
  type JsonRpcRequest,
  validateRequest,
} from '../common/jsonrpc.js';
import type { Exchange, ExchangeInit } from './exchange.js';
import type { Initialized, McpEngine } from './methods.js';
import { BATCH_REVISIONS, checkStateless, DEFAULT_REVISION, isHandshakeRevision, META } from './revisions.js';
import type { ServerRequests } from './server-requests.js';
import type { McpSession } from './sessions.js';
import { httpStatusOf, mcpErrorMessage, resultMessage } from './wire.js';

/** What a framing knows about an incoming message besides its body. */
export interface Inbound {
  /** The session the message belongs to: the one the request named (HTTP), or the connection's own (stdio). */
  readonly session: McpSession | undefined;
  /** The `MCP-Protocol-Version` header (Streamable HTTP only). */
  readonly versionHeader: string | undefined;
  /** The authenticated caller. */
  readonly principal: Principal | undefined;
}

/** A whole answer the loop settled without running a request (an error, `initialize`, `subscriptions/listen`). */
export class Reply {
  constructor(
    /** The HTTP status it would have alone (stdio ignores it). */
    readonly status: number,
    /** The JSON-RPC message, or (`subscriptions/listen` over HTTP) the stream. */
    readonly body: string | AsyncIterable<string>,
    /** Extra response headers (the session id of `initialize`). */
    readonly headers?: Record<string, string>,
  ) {}
}

/**
 * What the loop answers a message with: a reply (a promise of one for `initialize`, whose session the store makes),
 * the exchange that will finish it, or nothing (a notification).
 */
export type LoopAnswer<X extends Exchange> = X | Reply | Promise<Reply> | undefined;

/** How a framing takes part in the loop: what differs between Streamable HTTP and stdio. */
export interface Framing<I extends Inbound, X extends Exchange> {
  /**
   * True on stdio: the connection is the session, so requests wait for `initialize` (`ping` aside), and a message
   * may still choose the stateless revision by its `_meta`. On HTTP a request that names a session is in it.
   */
  readonly connectionIsSession: boolean;
  /** Stateless requests must repeat their revision in the `MCP-Protocol-Version` header (Streamable HTTP). */
  readonly versionHeaderRequired: boolean;
  /** Makes the exchange of one request. */
  exchange(init: ExchangeInit, inbound: I): X;
  /**
   * `initialize` succeeded: opens the session; returns headers for the answer (HTTP's `Mcp-Session-Id`), or a
   * promise of them when the store makes the session.
   */
  initialized(init: Initialized, inbound: I): MaybePromise<Record<string, string> | undefined>;
  /** Checks a stateless request's transport headers (the HTTP routing headers); throws what is wrong. */
  checkStateless?(m: JsonRpcRequest, inbound: I): void;
  /** `subscriptions/listen` (stateless): keeps the notifications asked for flowing to the client. */
  listen(m: JsonRpcRequest, inbound: I): Reply;
  /** Who sent `inbound`, for an operation the loop answers itself (`subscriptions/listen`) to walk the chain. */
  caller(inbound: I): CallerSource;
  /** The `exit` notification (stdio): ends the connection. */
  exit?(): void;
}

/** Where a request's final message goes: its exchange, or a batch's slot for it. */
interface Sink {
  finish(status: number, message: string, headers?: Record<string, string>): void;
}

/**
 * The JSON-RPC message loop of MCP, shared by Streamable HTTP (`streamable-http/index.ts`) and every transport
 * whose connection is one session (`connection.ts`: stdio, WebSocket, legacy HTTP+SSE), which keep only their
 * framing. For each message: route a response to the server request it answers, validate, hand
 * notifications to the engine, answer `initialize`, tell the stateless revision (2026-07-28) from the handshake
 * revisions, make the exchange through the framing and run the request on the engine. Batches are answered as one
 * JSON array where the revision allows them.
 */
export class McpLoop<I extends Inbound, X extends Exchange> {
  constructor(
    private readonly engine: McpEngine,
    private readonly framing: Framing<I, X>,
    private readonly serverRequests: ServerRequests,
    private readonly log: Logger,
  ) {}

  /**
   * Answers one message. A tools/call whose tool answers at once finishes its exchange before this returns: the
   * framing can then answer without a promise turn.
   */
  message(body: unknown, inbound: I, slot?: Sink): LoopAnswer<X> {
    if (isResponse(body)) {
      // A response nobody waits for (any more) is dropped, as is one the store could not carry.
      this.serverRequests.settle(body).catch(() => {});
      return undefined;
    }
    let m: JsonRpcRequest;
    try {
      m = validateRequest(body);
      if (slot && m.method === 'initialize') {
        throw new McpLiteError('invalid_request', 'Invalid Request: initialize must not be batched');
      }
    } catch (err) {
      return this.errorReply(undefined, idOf(body), err, false);
    }
    const { session, versionHeader } = inbound;
    const params = isObject(m.params) ? m.params : undefined;
    const stateless =
      (this.framing.connectionIsSession || !session) &&
      ((isObject(params?._meta) && params._meta[META.protocolVersion] !== undefined) ||
        (versionHeader !== undefined && !isHandshakeRevision(versionHeader)));
    if (!('id' in m)) {
      if (m.method === 'exit' && this.framing.exit) this.framing.exit();
      else this.engine.notification(m, inbound);
      return undefined;
    }
    const id = m.id as JsonRpcId;
    try {
      let x: X;
      if (m.method === 'initialize' && !stateless) {
        if (session)
          throw new McpLiteError('invalid_request', 'Invalid Request: the session is already initialized');
        const init = this.engine.initialize(params ?? {});
        const headers = this.framing.initialized(init, inbound);
        if (!(headers instanceof Promise)) return new Reply(200, resultMessage(id, init.result), headers);
        return headers.then(
          (h) => new Reply(200, resultMessage(id, init.result), h),
          (err) => this.errorReply(undefined, id, err, false),
        );
      }
      if (stateless) {
        const decl = checkStateless(params, versionHeader, this.framing.versionHeaderRequired);
        this.framing.checkStateless?.(m, inbound);
        if (m.method === 'subscriptions/listen') return this.listen(m, id, inbound);
        x = this.framing.exchange(
          {
            revision: decl.version,
            stateless: true,
            clientCapabilities: decl.clientCapabilities,
            logLevel: decl.logLevel,
            session: undefined,
            batched: slot !== undefined,
          },
          inbound,
        );
      } else {
        if (this.framing.connectionIsSession && !session && m.method !== 'ping') {
          throw new McpLiteError('invalid_request', 'Invalid Request: send initialize first');
        }
        x = this.framing.exchange(
          {
            revision: session?.revision ?? versionHeader ?? DEFAULT_REVISION,
            stateless: false,
            clientCapabilities: session?.clientCapabilities ?? {},
            logLevel: session?.logLevel,
            session,
            batched: slot !== undefined,
          },
          inbound,
        );
      }
      this.run(m, id, x, slot ?? x);
      return x;
    } catch (err) {
      return this.errorReply(undefined, id, err, stateless);
    }
  }

  /**
   * Answers a batch (2024-11-05 and 2025-03-26 only): its members concurrently, their answers as one array, or
   * undefined when none needs one. Throws `invalid_request` for a batch the revision does not allow, an empty one
   * or one over 100 messages.
   */
  batch(messages: readonly unknown[], inbound: I): Promise<string | undefined> {
    const revision = inbound.session?.revision ?? inbound.versionHeader;
    if (revision !== undefined && !BATCH_REVISIONS.has(revision)) {
      return Promise.reject(
        new McpLiteError(
          'invalid_request',
          'Invalid Request: JSON-RPC batches are not part of this protocol revision',
        ),
      );
    }
    return answerBatch(
      messages,
      DEFAULT_MAX_BATCH,
      (m) => {
        const slot = new BatchSlot();
        const answer = this.message(m, inbound, slot);
        if (answer === undefined) return undefined;
        if (answer instanceof Reply) return typeof answer.body === 'string' ? answer.body : undefined;
        if (answer instanceof Promise)
          return answer.then((r) => (typeof r.body === 'string' ? r.body : undefined));
        return slot.message;
      },
      (m, err) => mcpErrorMessage(idOf(m, err), err),
    );
  }

  /**
   * `subscriptions/listen` walks the server's chain like every operation (a middleware may refuse, log or count
   * it), with what the client asked to hear as its arguments; the framing opens the stream.
   */
  private listen(m: JsonRpcRequest, id: JsonRpcId, inbound: I): Reply | Promise<Reply> {
    const params = isObject(m.params) ? m.params : {};
    const asked = isObject(params.notifications) ? params.notifications : undefined;
    const answer = this.engine.server.operate(
      'subscriptions/listen',
      undefined,
      asked,
      this.framing.caller(inbound),
      () => this.framing.listen(m, inbound),
    );
    return answer instanceof Promise
      ? answer.then(undefined, (err) => this.errorReply(undefined, id, err, true))
      : answer;
  }

  /**
   * An error answer to a whole message, with the status of its code unless `status` says otherwise. Unknown
   * throwables become `internal`, logged here (the MCP binding's one place) and never sent.
   */
  errorReply(status: number | undefined, id: JsonRpcId | undefined, err: unknown, stateless: boolean): Reply {
    const e = errorExit(err, this.log);
    return new Reply(
      status ?? httpStatusOf(e, stateless),
      mcpErrorMessage(id, e, stateless),
      errorHeaders(e),
    );
  }

  /** Runs a request on the engine and finishes `sink` with its result or error; synchronously when it can. */
  private run(m: JsonRpcRequest, id: JsonRpcId, x: X, slot: Sink): void {
    const sink: Sink =
      slot === x || !x.release
        ? slot
        : {
            finish: (status, message, headers) => {
              x.release?.();
              slot.finish(status, message, headers);
            },
          };
    let result: MaybePromise<Record<string, unknown>>;
    try {
      result = this.engine.handle(m, x);
    } catch (err) {
      this.finishWithError(sink, id, x.stateless, err);
      return;
    }
    if (result instanceof Promise) {
      result.then(
        (r) => this.finishWithResult(sink, id, x.stateless, r),
        (err) => this.finishWithError(sink, id, x.stateless, err),
      );
    } else this.finishWithResult(sink, id, x.stateless, result);
  }

  private finishWithResult(
    sink: Sink,
    id: JsonRpcId,
    stateless: boolean,
    result: Record<string, unknown>,
  ): void {
    let message: string;
    try {
      message = resultMessage(id, result);
    } catch (err) {
      // A result JSON cannot carry (a BigInt, a cycle) is the server's fault, answered as one.
      this.finishWithError(sink, id, stateless, err);
      return;
    }
    sink.finish(200, message);
  }

  private finishWithError(sink: Sink, id: JsonRpcId, stateless: boolean, err: unknown): void {
    const reply = this.errorReply(undefined, id, err, stateless);
    sink.finish(reply.status, reply.body as string, reply.headers);
  }
}

/** A batch member's place in the batch's answer. */
class BatchSlot implements Sink {
  readonly message: Promise<string>;
  finish!: (status: number, message: string) => void;

  constructor() {
    this.message = new Promise((resolve) => {
      this.finish = (_status, message) => resolve(message);
    });
  }
}
