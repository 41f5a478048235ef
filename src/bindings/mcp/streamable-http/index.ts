import type { Principal } from '../../../core/auth.js';
import { McpLiteError } from '../../../core/errors.js';
import type { NeutralHandler, NeutralRequest, NeutralResponse } from '../../../core/http.js';
import type { MaybePromise } from '../../../core/maybe-promise.js';
import type { ToolServer } from '../../../core/server.js';
import type { SessionStateStore, SessionStoreOptions } from '../../../core/session-state.js';
import { admitThen } from '../../common/admit.js';
import { accepted, JSON_HEADERS, jsonHttpResponse, SSE_HEADERS } from '../../common/http-reply.js';
import { assertJsonBodyHeaders, parseJsonBody } from '../../common/json-body.js';
import { idOf, isObject, type JsonRpcId, type JsonRpcRequest } from '../../common/jsonrpc.js';
import type { StreamBoundOptions } from '../../common/outbound-stream.js';
import { bindingOfDialect } from '../draft-dialect/index.js';
import { type Framing, type Inbound, McpLoop, Reply } from '../loop.js';
import type { McpEngine } from '../methods.js';
import { honouredFilter } from '../notifier.js';
import { type McpProtocolOptions, mcpProtocolFor } from '../protocol.js';
import type { McpSession } from '../sessions.js';
import { DRAFT_SEED, type DraftDialect, draftOverHttp } from './draft-http.js';
import { HttpExchange } from './http-exchange.js';
import { RoutingHeaders } from './route-headers.js';
import { listenStream, openSessionStream } from './session-streams.js';

/** Options of the MCP binding (Streamable HTTP). */
export interface McpBindingOptions extends McpProtocolOptions, SessionStoreOptions, StreamBoundOptions {
  /** The endpoint. Default `/mcp`. */
  path?: string;
  /** Largest accepted request body in bytes. Default 4 MiB. */
  maxBodyBytes?: number;
  /** Issue `Mcp-Session-Id` on `initialize` (handshake revisions). Default true. */
  sessions?: boolean;
  /** How long to wait for the client's answer to a server request (elicitation/create). Default 5 minutes. */
  serverRequestTimeoutMs?: number;
  /** Idle time after which an open stream gets an SSE comment, in ms. Default 15 000. */
  keepAliveMs?: number;
  /**
   * Where sessions, event logs, server-request waiters and task-resume data live. Default: a memory store bounded
   * by these options. Replicas with stores over one Redis serve each other's sessions. Not closed by the binding.
   */
  sessionStore?: SessionStateStore;
}

/** The MCP binding as a neutral handler, plus what a host needs to shut it down. */
export interface McpHandler extends NeutralHandler {
  /** Ends every session and stream. */
  close(): void;
  /** The MCP methods this binding answers with, for the server's other MCP transports to share. */
  readonly engine: McpEngine;
}

/** One POST as the JSON-RPC loop sees it. */
interface HttpInbound extends Inbound {
  readonly request: NeutralRequest;
  /** A draft-seed client's dialect (`draft-http.ts`). */
  readonly dialect: DraftDialect | undefined;
}

/**
 * The full MCP binding over Streamable HTTP at `path` (default `/mcp`): POST answers with JSON, or with SSE
 * when the call sends notifications or server requests and the client accepts `text/event-stream`; GET opens a
 * session's server stream (with `Last-Event-ID` resumption); DELETE ends a session. Serves the handshake
 * revisions (2024-11-05 … 2025-11-25) and the stateless 2026-07-28 revision side by side. Returns undefined for
 * other paths. This file is the HTTP framing only: the messages go through the JSON-RPC loop (`../loop.ts`).
 */
export function createMcpBinding(server: ToolServer, options: McpBindingOptions = {}): McpHandler {
  const path = options.path ?? '/mcp';
  const maxBody = options.maxBodyBytes ?? 4 * 1024 * 1024;
  const keepAliveMs = options.keepAliveMs ?? 15_000;
  const log = server.logger.child({ binding: 'mcp' });
  // The server's one MCP protocol object: its engine, sessions, notifier and server requests are every MCP
  // transport's (a second binding of the same server, legacy SSE, WebSocket, stdio).
  const protocol = mcpProtocolFor(server, options, options);
  const release = protocol.acquire();
  const sessions = options.sessions === false ? undefined : protocol.sessions;
  const engine = options.engine ?? protocol.engine;
  const { notifier, serverRequests } = protocol;
  // The GET streams open in this process, ended on close.
  const streams = new Set<() => void>();
  const routing = new RoutingHeaders(server, options.nativeTools);
  const framing: Framing<HttpInbound, HttpExchange> = {
    connectionIsSession: false,
    versionHeaderRequired: true,
    exchange: (init, i) =>
      new HttpExchange(serverRequests, i.request, i.principal, init, i.dialect, options.maxQueuedBytes),
    initialized: (init, i) =>
      sessions
        ?.create(
          init.revision,
          init.clientCapabilities,
          init.clientInfo,
          callerOf(server, i.request, i.principal),
          i.dialect && DRAFT_SEED,
        )
        .then((s) => ({ 'mcp-session-id': s.id })),
    checkStateless: (m, i) => routing.check(i.request.headers, m),
    listen,
    caller: (i) => ({
      binding: bindingOfDialect(i.dialect),
      principal: i.principal,
      headers: i.request.headers,
      get remoteAddress() {
        return i.request.remoteAddress;
      },
    }),
  };
  const loop = new McpLoop(engine, framing, serverRequests, log);
  const answerIn = draftOverHttp(server, sessions, answerMcp);

  // Declines other paths at once (no promise), so that composed bindings behind this one pay nothing for it.
  const handler = ((request: NeutralRequest) =>
    request.path === path || request.path === `${path}/` ? handle(request) : undefined) as McpHandler;
  (handler as { engine: McpEngine }).engine = engine;
  handler.close = () => {
    serverRequests.rejectAll(new McpLiteError('unavailable', 'The server is shutting down'));
    for (const end of [...streams]) end();
    // The protocol stops its notifier and closes a store it made once its last transport is closed.
    release();
  };
  return handler;

  /** Never rejects: every failure becomes an error response. */
  function handle(request: NeutralRequest): Promise<NeutralResponse> {
    return admitThen(server, request, (principal) => byMethod(request, principal), unauthenticated);
  }

  function unauthenticated(err: unknown): NeutralResponse {
    const reply = loop.errorReply(undefined, null, err, false);
    return jsonHttpResponse(reply.status, reply.body as string, reply.headers);
  }

  function byMethod(request: NeutralRequest, principal: Principal | undefined): Promise<NeutralResponse> {
    try {
      switch (request.method) {
        case 'POST':
          return post(request, principal);
        case 'GET':
          return get(request, principal).then(undefined, (err) => fail(undefined, null, err));
        case 'DELETE':
          return del(request, principal).then(undefined, (err) => fail(undefined, null, err));
        default: {
          const e = new McpLiteError('method_not_allowed', `Method ${request.method} not allowed`);
          return Promise.resolve(fail(undefined, null, e, { allow: 'GET, POST, DELETE' }));
        }
      }
    } catch (err) {
      return Promise.resolve(fail(undefined, null, err));
    }
  }

  /** A whole-response error, with its code's status (mcp/wire.ts) unless `status` is given (406 has no code). */
  function fail(
    status: number | undefined,
    id: JsonRpcId | undefined,
    err: unknown,
    headers?: Record<string, string>,
  ): NeutralResponse {
    const reply = loop.errorReply(status, id, err, false);
    return jsonHttpResponse(reply.status, reply.body as string, { ...reply.headers, ...headers });
  }

  /**
   * A POST: checks its headers (throwing what is wrong), then reads the body and answers it. Not async, and
   * the answer comes in the body's turn when the call can answer at once: each promise turn costs every call, so
   * its failures are caught where they happen (`answerOrFail`) rather than by one more `.then` on every POST.
   */
  function post(request: NeutralRequest, principal: Principal | undefined): Promise<NeutralResponse> {
    assertJsonBodyHeaders(request.headers);
    const accept = request.headers.accept;
    if (accept && !acceptsAny(accept, ['application/json', 'text/event-stream', '*/*', 'application/*'])) {
      const e = new McpLiteError(
        'invalid_request',
        'Not Acceptable: accept application/json and text/event-stream',
      );
      return Promise.resolve(fail(406, null, e));
    }
    return request.readBody(maxBody).then((bytes) => answerOrFail(bytes, request, principal), failWhole);
  }

  /** Answers a POST's body, every failure (now or later) as an error response: the promise never rejects. */
  function answerOrFail(
    bytes: Uint8Array,
    request: NeutralRequest,
    principal: Principal | undefined,
  ): MaybePromise<NeutralResponse> {
    let answer: MaybePromise<NeutralResponse>;
    try {
      answer = answerBody(parseJsonBody(bytes), request, principal);
    } catch (err) {
      return failWhole(err);
    }
    return answer instanceof Promise ? answer.then(undefined, failWhole) : answer;
  }

  /** A failure outside any message (a body that could not be read or parsed) as a whole-response error. */
  function failWhole(err: unknown): NeutralResponse {
    return fail(undefined, null, err);
  }

  /** Answers a POST's parsed body: one message or a batch, within its session if it names one. */
  function answerBody(
    body: unknown,
    request: NeutralRequest,
    principal: Principal | undefined,
  ): MaybePromise<NeutralResponse> {
    const sessionId = request.headers['mcp-session-id'];
    if (sessionId === undefined) return answerIn(undefined, body, request, principal);
    // Only a request naming a session waits for the store: a stateless one keeps working without it.
    return (
      sessions ? sessions.get(sessionId, callerOf(server, request, principal)) : Promise.resolve(undefined)
    ).then((session) =>
      session ? answerIn(session, body, request, principal) : fail(undefined, idOf(body), sessionNotFound()),
    );
  }

  /** Answers a POST's parsed body within `session` (or none), in MCP's shapes. */
  function answerMcp(
    dialect: DraftDialect | undefined,
    session: McpSession | undefined,
    body: unknown,
    request: NeutralRequest,
    principal: Principal | undefined,
  ): MaybePromise<NeutralResponse> {
    const versionHeader = request.headers['mcp-protocol-version'];
    if (session && versionHeader !== undefined && versionHeader !== session.revision) {
      const e = new McpLiteError(
        'invalid_request',
        `Bad Request: unsupported MCP-Protocol-Version ${versionHeader}`,
      );
      return fail(undefined, idOf(body), e);
    }
    const inbound: HttpInbound = { request, session, versionHeader, principal, dialect };
    if (Array.isArray(body)) {
      return loop
        .batch(body, inbound)
        .then((text) =>
          text === undefined ? accepted() : { status: 200, headers: JSON_HEADERS, body: text },
        );
    }
    const answer = loop.message(body, inbound);
    if (answer === undefined) return accepted();
    if (answer instanceof Reply) return toResponse(answer);
    if (answer instanceof Promise) return answer.then(toResponse);
    return answer.response();
  }

  /** 2026-07-28 `subscriptions/listen`: an acknowledged SSE stream of the notifications asked for. */
  function listen(m: JsonRpcRequest, inbound: HttpInbound): Reply {
    const params = isObject(m.params) ? m.params : {};
    const filter = honouredFilter(params.notifications, !server.resources.empty, !server.prompts.empty);
    const out = listenStream(
      notifier,
      m.id,
      filter,
      keepAliveMs,
      inbound.request.signal,
      options.maxQueuedBytes,
    );
    return new Reply(200, out.body, SSE_HEADERS);
  }

  async function get(request: NeutralRequest, principal: Principal | undefined): Promise<NeutralResponse> {
    const accept = request.headers.accept;
    if (!accept || !acceptsAny(accept, ['text/event-stream', '*/*'])) {
      const e = new McpLiteError('invalid_request', 'Not Acceptable: GET needs Accept: text/event-stream');
      return fail(406, null, e);
    }
    const sessionId = request.headers['mcp-session-id'];
    if (sessionId === undefined || !sessions) {
      const e = new McpLiteError('method_not_allowed', 'No server stream without a session: use POST');
      return fail(undefined, null, e, { allow: 'POST' });
    }
    const session = await sessions.get(sessionId, callerOf(server, request, principal));
    if (!session) return fail(undefined, null, sessionNotFound());
    // The GET stream, or (Last-Event-ID of a POST stream) that stream resumed: see session-streams.ts.
    const out = await openSessionStream(
      sessions,
      session,
      request.headers['last-event-id'],
      keepAliveMs,
      options.maxQueuedBytes,
    );
    const end = () => out.end();
    streams.add(end);
    out.onEnded(() => streams.delete(end));
    return out.response();
  }

  async function del(request: NeutralRequest, principal: Principal | undefined): Promise<NeutralResponse> {
    const sessionId = request.headers['mcp-session-id'];
    if (sessionId === undefined) {
      const e = new McpLiteError('invalid_request', 'Bad Request: DELETE needs an Mcp-Session-Id header');
      return fail(undefined, null, e);
    }
    if (!(await sessions?.delete(sessionId, callerOf(server, request, principal)))) {
      return fail(undefined, null, sessionNotFound());
    }
    return { status: 200, headers: {} };
  }
}

/** The key a session is owned and counted under (`ToolServer.callerKey`). */
function callerOf(server: ToolServer, request: NeutralRequest, principal: Principal | undefined): string {
  return server.callerKey({ principal, remoteAddress: request.remoteAddress });
}

function sessionNotFound(): McpLiteError {
  return new McpLiteError('session_not_found', 'Session not found');
}

/** A reply of the loop as an HTTP response. */
function toResponse(reply: Reply): NeutralResponse {
  if (typeof reply.body !== 'string')
    return { status: reply.status, headers: { ...reply.headers }, body: reply.body };
  return jsonHttpResponse(reply.status, reply.body, reply.headers);
}

/** Whether an Accept header names one of `types` (a substring test: cheap, and parameters do not matter). */
function acceptsAny(accept: string, types: readonly string[]): boolean {
  for (const t of types) if (accept.includes(t)) return true;
  return false;
}
