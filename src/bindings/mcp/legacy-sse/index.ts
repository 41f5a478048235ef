import type { Principal } from '../../../core/auth.js';
import { McpLiteError } from '../../../core/errors.js';
import type { NeutralHandler, NeutralRequest, NeutralResponse } from '../../../core/http.js';
import type { ToolServer } from '../../../core/server.js';
import type { SessionStateStore } from '../../../core/session-state.js';
import { unrefTimer } from '../../../core/timers.js';
import { errorExit } from '../../common/error-exit.js';
import { accepted, errorHeaders, jsonHttpResponse, MESSAGE_HTTP_STATUS } from '../../common/http-reply.js';
import { assertJsonBodyHeaders, parseJsonBody } from '../../common/json-body.js';
import { OutboundStream, type StreamBoundOptions, sseEvent } from '../../common/outbound-stream.js';
import { openMcpConnection } from '../connection.js';
import { type McpProtocolOptions, mcpProtocolFor } from '../protocol.js';
import { mcpErrorMessage } from '../wire.js';

/** Options of the legacy HTTP+SSE transport (MCP 2024-11-05). */
export interface LegacySseOptions extends McpProtocolOptions, StreamBoundOptions {
  /** Where a client opens its stream. Default `/sse`. */
  ssePath?: string;
  /** Where a client posts its messages (`?sessionId=…`). Default `/messages`. */
  messagesPath?: string;
  /** Largest accepted message in bytes. Default 4 MiB. */
  maxBodyBytes?: number;
  /** Most open streams in all. Default 1000. */
  maxSessions?: number;
  /** Most open streams per caller (`callerKey`: the principal, else the address). Default 16. */
  maxSessionsPerCaller?: number;
  /**
   * Most messages waiting for a client that stopped reading its stream; past it the stream is ended. Default 1024.
   * @deprecated The bound is `maxQueuedBytes`, the one every stream has; this count is still honoured beside it.
   */
  maxQueuedMessages?: number;
  /** Idle time after which the stream gets an SSE comment, in ms. Default 15 000. */
  keepAliveMs?: number;
  /** How long to wait for the client's answer to a server request (elicitation). Default 5 minutes. */
  serverRequestTimeoutMs?: number;
  /**
   * Where the sessions are known and counted (kind `sse`, bounded by `maxSessions` and `maxSessionsPerCaller`
   * across every replica sharing it). Default: a memory store of this binding. With a shared store (Redis) a
   * client's POST may land on any replica: it is carried to the replica holding the stream. The binding does not
   * close a store it was given.
   */
  sessionStore?: SessionStateStore;
}

/** The legacy transport as a neutral handler, plus what a host needs to shut it down. */
export interface LegacySseHandler extends NeutralHandler {
  /** Ends every stream. */
  close(): void;
  /** Open streams. */
  readonly sessions: number;
}

interface LegacySession {
  /** Hands a posted message to the stream's connection (`streamInbox`). */
  deliver: (body: unknown) => void;
  /** Ends the stream (and the session). */
  end: () => void;
}

/**
 * MCP's HTTP+SSE transport of the 2024-11-05 revision, still what many deployed clients speak: `GET /sse` opens
 * the stream and sends the `endpoint` event (`/messages?sessionId=…`), `POST /messages?sessionId=…` carries the
 * client's messages (202), and every answer, notification and server request goes down the stream. Each stream is
 * one session of the MCP JSON-RPC loop (`../connection.ts`, as stdio and WebSocket). Streams are bounded in all and
 * per caller, a stream's session belongs to the principal that opened it, and a client that stops reading is cut
 * off rather than buffered for. The sessions are known to the binding's store (`sessionStore`): a POST that lands
 * on another replica sharing it is carried to the stream's replica (a `SessionMessage` of type `inbound`).
 */
export function createLegacySseBinding(server: ToolServer, options: LegacySseOptions = {}): LegacySseHandler {
  const ssePath = options.ssePath ?? '/sse';
  const messagesPath = options.messagesPath ?? '/messages';
  const maxBody = options.maxBodyBytes ?? 4 * 1024 * 1024;
  const maxSessions = options.maxSessions ?? 1000;
  const maxPerCaller = options.maxSessionsPerCaller ?? 16;
  const maxQueued = options.maxQueuedMessages ?? 1024;
  const maxQueuedBytes = options.maxQueuedBytes;
  const keepAliveMs = options.keepAliveMs ?? 15_000;
  // The server's one MCP protocol object: the engine and the store of every MCP transport of the server.
  const protocol = mcpProtocolFor(server, options);
  const release = protocol.acquire();
  const store = protocol.store;
  const counts = { maxSessions, maxSessionsPerCaller: maxPerCaller };
  const engine = options.engine ?? protocol.engine;
  // The streams open in this process.
  const sessions = new Map<string, LegacySession>();

  const handler = ((request: NeutralRequest) => {
    if (request.path === ssePath) return withCaller(request, open);
    if (request.path === messagesPath) return withCaller(request, post);
    return undefined;
  }) as LegacySseHandler;
  handler.close = () => {
    for (const s of [...sessions.values()]) s.end();
    release();
  };
  Object.defineProperty(handler, 'sessions', { get: () => sessions.size });
  return handler;

  function fail(err: unknown, headers?: Record<string, string>): NeutralResponse {
    const e = errorExit(err, server.logger, { binding: 'mcp-sse' });
    return jsonHttpResponse(MESSAGE_HTTP_STATUS[e.code], mcpErrorMessage(null, e), errorHeaders(e, headers));
  }

  async function withCaller(
    request: NeutralRequest,
    next: (
      request: NeutralRequest,
      principal: Principal | undefined,
    ) => NeutralResponse | Promise<NeutralResponse>,
  ): Promise<NeutralResponse> {
    let principal: Principal | undefined;
    try {
      principal = await server.authenticateCaller(request.headers, request);
    } catch (err) {
      return fail(err);
    }
    try {
      return await next(request, principal);
    } catch (err) {
      return fail(err);
    }
  }

  async function open(request: NeutralRequest, principal: Principal | undefined): Promise<NeutralResponse> {
    if (request.method !== 'GET') {
      const e = new McpLiteError('method_not_allowed', `Method ${request.method} not allowed: use GET`);
      return fail(e, { allow: 'GET' });
    }
    const key = server.callerKey({ principal, remoteAddress: request.remoteAddress });
    const id = await createSession(key);
    let stopListening: (() => void) | undefined;
    let touch: ReturnType<typeof setInterval> | undefined;
    // The one outbound stream: a client that stops reading is cut off past `maxQueuedBytes`, what waited dropped.
    const out = new OutboundStream({
      maxQueuedBytes,
      keepAliveMs,
      onCutOff: () => server.logger.warn({ caller: key }, 'SSE client is not reading: session ended'),
      onEnd: () => {
        clearInterval(touch);
        inbox.close();
        sessions.delete(id);
        stopListening?.();
        store.delete(id).catch(() => {});
        connection.close();
      },
    });
    const end = () => out.end();
    const push = (chunk: string): Promise<void> => {
      // The deprecated count bound, beside the bytes: the same cut-off.
      if (out.pending >= maxQueued) {
        out.cutOff();
        return Promise.resolve();
      }
      return out.write(chunk);
    };
    const connection = openMcpConnection(
      server,
      engine,
      {
        write: (message) => push(sseEvent('message', message)),
        end,
        principal,
        remoteAddress: request.remoteAddress,
        headers: request.headers,
      },
      { binding: 'mcp-sse', serverRequestTimeoutMs: options.serverRequestTimeoutMs },
    );
    // What the connection throws is an internal error, logged once; the stream and its session go on.
    const inbox = streamInbox(
      (body) => connection.receive(body),
      (err) => void errorExit(err, server.logger, { binding: 'mcp-sse' }),
    );
    sessions.set(id, { deliver: inbox.deliver, end });
    // Messages posted to another replica come here; an open stream keeps its session in use there too.
    const listening = store.listen(id, (m) => {
      if (m.type === 'inbound') inbox.deliver(m.body);
      else if (m.type === 'closed') end();
    });
    listening.then(
      (stop) => {
        if (out.ended) stop();
        else stopListening = stop;
      },
      () => end(),
    );
    const idleMs = store.bounds.idleMs;
    if (Number.isFinite(idleMs)) {
      touch = setInterval(() => store.touch(id).catch(() => {}), Math.max(10, Math.min(60_000, idleMs / 3)));
      unrefTimer(touch);
    }
    request.signal.addEventListener('abort', end, { once: true });
    void push(sseEvent('endpoint', `${messagesPath}?sessionId=${id}`));
    return out.response();
  }

  async function post(request: NeutralRequest, principal: Principal | undefined): Promise<NeutralResponse> {
    if (request.method !== 'POST') {
      const e = new McpLiteError('method_not_allowed', `Method ${request.method} not allowed: use POST`);
      return fail(e, { allow: 'POST' });
    }
    const id = new URLSearchParams(request.query ?? '').get('sessionId');
    // Another principal's session is as unknown as one that never was.
    const caller = server.callerKey({ principal, remoteAddress: request.remoteAddress });
    const record = id === null ? undefined : await store.get(id, caller);
    if (!record || id === null) {
      throw new McpLiteError('session_not_found', 'Session not found: open a stream with GET first');
    }
    assertJsonBodyHeaders(request.headers);
    const body = parseJsonBody(await request.readBody(maxBody));
    const local = sessions.get(id);
    if (local) local.deliver(body);
    else await store.publish(id, { type: 'inbound', body });
    return accepted();
  }

  /** Makes the session of a new stream, in the store's count of legacy sessions (the legacy wording on refusal). */
  async function createSession(owner: string): Promise<string> {
    try {
      const record = await store.create(
        { kind: 'sse', owner, revision: '2024-11-05', clientCapabilities: {}, clientInfo: {} },
        counts,
      );
      return record.id;
    } catch (err) {
      if (!(err instanceof McpLiteError) || err.code !== 'resource_exhausted') throw err;
      if (err.data?.scope === 'caller') {
        throw new McpLiteError(
          'resource_exhausted',
          `Too many open SSE sessions for this caller (at most ${maxPerCaller}): close some first`,
          { limit: maxPerCaller },
        );
      }
      throw new McpLiteError('resource_exhausted', `Too many open SSE sessions (at most ${maxSessions})`);
    }
  }
}

/**
 * The messages posted to one stream, handed to its connection from the stream's own request: a Worker lets only
 * the request that made an I/O object (the stream, its signal) touch it, and an await of the GET's, resumed by a
 * POST, runs on in the GET's request. Elsewhere it costs one microtask per message. Drained at once, so it holds
 * no more than the POSTs of one turn.
 */
function streamInbox(
  receive: (body: unknown) => void,
  onError: (err: unknown) => void,
): {
  deliver: (body: unknown) => void;
  close: () => void;
} {
  let waiting: unknown[] = [];
  let wake: (() => void) | undefined;
  let closed = false;
  const drain = async (): Promise<void> => {
    while (!closed) {
      if (waiting.length === 0) await new Promise<void>((resolve) => (wake = resolve));
      wake = undefined;
      const now = waiting;
      waiting = [];
      for (const body of now) {
        if (closed) break;
        try {
          receive(body);
        } catch (err) {
          onError(err);
        }
      }
    }
  };
  void drain();
  return {
    deliver(body) {
      if (closed) return;
      waiting.push(body);
      wake?.();
    },
    close() {
      closed = true;
      waiting = [];
      wake?.();
    },
  };
}
