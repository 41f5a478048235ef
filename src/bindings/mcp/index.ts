import { randomBytes } from 'node:crypto';
import { authenticateOrThrow, bearerToken, type Principal } from '../../core/auth.js';
import { McpLiteError } from '../../core/errors.js';
import type { NeutralHandler, NeutralRequest, NeutralResponse } from '../../core/http.js';
import type { ToolServer } from '../../core/server.js';
import { AsyncQueue } from '../common/async-queue.js';
import { assertJsonBodyHeaders, parseJsonBody } from '../common/json-body.js';
import { type JsonRpcId, type JsonRpcRequest, validateRequest } from '../common/jsonrpc.js';
import { type EngineOptions, type Exchange, isObject, isResponse, McpEngine } from './engine.js';
import { honouredFilter, Notifier, tagged } from './notifier.js';
import { isHandshakeRevision, META, STATELESS_REVISION } from './revisions.js';
import { ServerRequests } from './server-requests.js';
import { type McpSession, SessionStore, type SessionStoreOptions } from './sessions.js';
import { TaskRegistry } from './tasks.js';
import { errorMessage, httpStatusOf, McpProtocolError, resultMessage, toMcpError } from './wire.js';

/** Options of the MCP binding (Streamable HTTP). */
export interface McpBindingOptions extends EngineOptions, SessionStoreOptions {
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
}

/** The MCP binding as a neutral handler, plus what a host needs to shut it down. */
export interface McpHandler extends NeutralHandler {
  /** The engine (shared with the stdio transport when both run). */
  readonly engine: McpEngine;
  /** Ends every session and stream. */
  close(): void;
}

const JSON_HEADERS = { 'content-type': 'application/json' };
const SSE_HEADERS = {
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache, no-transform',
  'x-accel-buffering': 'no',
};
/** Batches were part of 2025-03-26 only (and tolerated before); later revisions reject them. */
const BATCH_REVISIONS = new Set(['2024-11-05', '2025-03-26']);

/**
 * The full MCP binding over Streamable HTTP at `path` (default `/mcp`): POST answers with JSON, or with SSE
 * when the call sends notifications or server requests and the client accepts `text/event-stream`; GET opens a
 * session's server stream (with `Last-Event-ID` resumption); DELETE ends a session. Serves the handshake
 * revisions (2024-11-05 … 2025-11-25) and the stateless 2026-07-28 revision side by side. Returns undefined for
 * other paths.
 */
export function createMcpBinding(server: ToolServer, options: McpBindingOptions = {}): McpHandler {
  const path = options.path ?? '/mcp';
  const maxBody = options.maxBodyBytes ?? 4 * 1024 * 1024;
  const keepAliveMs = options.keepAliveMs ?? 15_000;
  const sessions = options.sessions === false ? undefined : new SessionStore(options);
  const engine = new McpEngine(server, options);
  if (server.promisesEnabled) engine.tasks = new TaskRegistry(server, new Set(options.tasksRequired ?? []));
  const notifier = new Notifier(server, sessions, new Set());
  const serverRequests = new ServerRequests(options.serverRequestTimeoutMs ?? 300_000);
  const log = server.logger.child({ binding: 'mcp' });

  // Declines other paths at once (no promise), so that composed bindings behind this one pay nothing for it.
  const handler = ((request: NeutralRequest) =>
    request.path === path || request.path === `${path}/` ? handle(request) : undefined) as McpHandler;

  /** Never rejects: every failure becomes an error response. */
  function handle(request: NeutralRequest): Promise<NeutralResponse> {
    // Without a hook there is nothing to wait for: no async layer of its own, which costs every request.
    if (server.authenticate) return authenticated(server.authenticate, request);
    return byMethod(request, undefined);
  }

  async function authenticated(
    hook: NonNullable<ToolServer['authenticate']>,
    request: NeutralRequest,
  ): Promise<NeutralResponse> {
    let principal: Principal | undefined;
    try {
      principal = await authenticateOrThrow(hook, {
        token: bearerToken(request.headers.authorization),
        headers: request.headers,
      });
    } catch (err) {
      return reply(undefined, null, err);
    }
    return byMethod(request, principal);
  }

  function byMethod(request: NeutralRequest, principal: Principal | undefined): Promise<NeutralResponse> {
    try {
      switch (request.method) {
        case 'POST':
          return post(request, principal).then(undefined, (err) => reply(undefined, null, err));
        case 'GET':
          return Promise.resolve(get(request));
        case 'DELETE':
          return Promise.resolve(del(request));
        default:
          return Promise.resolve(
            reply(405, null, new McpLiteError('method_not_allowed', `Method ${request.method} not allowed`), {
              allow: 'GET, POST, DELETE',
            }),
          );
      }
    } catch (err) {
      return Promise.resolve(reply(undefined, null, err));
    }
  }
  Object.defineProperty(handler, 'engine', { value: engine });
  handler.close = () => {
    notifier.close();
    serverRequests.rejectAll(new McpLiteError('unavailable', 'The server is shutting down'));
    sessions?.closeAll();
  };
  return handler;

  /** A whole-response error. */
  function reply(
    status: number | undefined,
    id: JsonRpcId | undefined,
    err: unknown,
    headers: Record<string, string> = {},
    stateless = false,
  ): NeutralResponse {
    const error = toMcpError(err, !stateless);
    if (error.code === -32603)
      log.error({ err: (err as { cause?: unknown }).cause ?? err }, 'internal error');
    const s = status ?? httpStatusOf(err, error, stateless);
    const h: Record<string, string> = { ...JSON_HEADERS, ...headers };
    if (s === 401) h['www-authenticate'] = 'Bearer realm="mcplite"';
    if (s === 413) h.connection = 'close';
    return { status: s, headers: h, body: errorMessage(id, error) };
  }

  /**
   * A POST: checks its headers (throwing what is wrong), then reads the body and answers it. Not async, and
   * the answer comes in the body's turn when the call can answer at once: each promise turn costs every call.
   */
  function post(request: NeutralRequest, principal: Principal | undefined): Promise<NeutralResponse> {
    assertJsonBodyHeaders(request.headers);
    const accept = request.headers.accept;
    if (accept && !acceptsAny(accept, ['application/json', 'text/event-stream', '*/*', 'application/*'])) {
      return Promise.resolve(
        reply(
          406,
          null,
          new McpLiteError(
            'invalid_request',
            'Not Acceptable: accept application/json and text/event-stream',
          ),
        ),
      );
    }
    return request.readBody(maxBody).then((bytes) => answerBody(parseJsonBody(bytes), request, principal));
  }

  /** Answers a POST's parsed body: one message or a batch, within its session if it names one. */
  function answerBody(
    body: unknown,
    request: NeutralRequest,
    principal: Principal | undefined,
  ): NeutralResponse | Promise<NeutralResponse> {
    const sessionId = request.headers['mcp-session-id'];
    let session: McpSession | undefined;
    if (sessionId !== undefined) {
      session = sessions?.get(sessionId);
      if (!session) return reply(404, idOfMessage(body), new McpProtocolError(-32001, 'Session not found'));
    }
    const versionHeader = request.headers['mcp-protocol-version'];
    if (session && versionHeader !== undefined && versionHeader !== session.revision) {
      return reply(
        400,
        idOfMessage(body),
        new McpLiteError('invalid_request', `Bad Request: unsupported MCP-Protocol-Version ${versionHeader}`),
      );
    }
    if (Array.isArray(body)) return batch(body, request, principal, session);
    return single(body, request, principal, session);
  }

  async function batch(
    body: unknown[],
    request: NeutralRequest,
    principal: Principal | undefined,
    session: McpSession | undefined,
  ): Promise<NeutralResponse> {
    const revision = session?.revision ?? request.headers['mcp-protocol-version'];
    if (revision !== undefined && !BATCH_REVISIONS.has(revision)) {
      throw new McpLiteError(
        'invalid_request',
        'Invalid Request: JSON-RPC batches are not part of this protocol revision',
      );
    }
    if (body.length === 0) throw new McpLiteError('invalid_request', 'Invalid Request: empty batch');
    if (body.length > 100)
      throw new McpLiteError('invalid_request', 'Invalid Request: batch larger than 100');
    const replies: string[] = [];
    await Promise.all(
      body.map(async (m) => {
        if (isObject(m) && m.method === 'initialize') {
          replies.push(
            errorMessage(
              idOfMessage(m),
              toMcpError(
                new McpLiteError('invalid_request', 'Invalid Request: initialize must not be batched'),
                true,
              ),
            ),
          );
          return;
        }
        const r = await single(m, request, principal, session, false);
        if (typeof r.body === 'string' && r.status !== 202) replies.push(r.body);
      }),
    );
    if (replies.length === 0) return { status: 202, headers: {} };
    return { status: 200, headers: JSON_HEADERS, body: `[${replies.join(',')}]` };
  }

  /** Answers one message; synchronously when the call could answer at once (see `post`). */
  function single(
    body: unknown,
    request: NeutralRequest,
    principal: Principal | undefined,
    session: McpSession | undefined,
    allowStream = true,
  ): NeutralResponse | Promise<NeutralResponse> {
    if (isResponse(body)) {
      serverRequests.settle(body);
      return { status: 202, headers: {} };
    }
    let m: JsonRpcRequest;
    try {
      m = validateRequest(body);
    } catch (err) {
      return reply(400, idOfMessage(body), err);
    }
    const versionHeader = request.headers['mcp-protocol-version'];
    const params = isObject(m.params) ? m.params : undefined;
    const meta = isObject(params?._meta) ? params._meta : undefined;
    const stateless =
      !session &&
      (meta?.[META.protocolVersion] !== undefined ||
        (versionHeader !== undefined && !isHandshakeRevision(versionHeader)));
    if (!('id' in m)) {
      engine.notification(m, { session, principal });
      return { status: 202, headers: {} };
    }
    const id = m.id as JsonRpcId;
    try {
      if (m.method === 'initialize' && !stateless) {
        if (session)
          throw new McpLiteError('invalid_request', 'Invalid Request: the session is already initialized');
        const init = engine.initialize(params ?? {});
        const headers: Record<string, string> = { ...JSON_HEADERS };
        if (sessions) {
          const s = sessions.create(init.revision, init.clientCapabilities, init.clientInfo);
          headers['mcp-session-id'] = s.id;
        }
        return { status: 200, headers, body: resultMessage(id, init.result) };
      }
      let x: HttpExchange;
      if (stateless) {
        const decl = engine.statelessDeclaration(params, versionHeader, true);
        checkMethodHeaders(request, m);
        if (m.method === 'subscriptions/listen') return listen(m, request, principal);
        x = new HttpExchange(serverRequests, request, principal, {
          revision: decl.version,
          stateless: true,
          clientCapabilities: decl.clientCapabilities,
          logLevel: decl.logLevel,
          session: undefined,
          allowStream,
        });
      } else {
        if (versionHeader !== undefined && !isHandshakeRevision(versionHeader)) {
          throw new McpLiteError(
            'invalid_request',
            `Bad Request: unsupported MCP-Protocol-Version ${versionHeader}`,
          );
        }
        x = new HttpExchange(serverRequests, request, principal, {
          revision: session?.revision ?? versionHeader ?? '2025-03-26',
          stateless: false,
          clientCapabilities: session?.clientCapabilities ?? {},
          logLevel: session?.logLevel,
          session,
          allowStream,
        });
      }
      let result: Record<string, unknown> | Promise<Record<string, unknown>>;
      try {
        result = engine.handle(m, x);
      } catch (err) {
        finishWithError(x, id, err);
        return x.response();
      }
      if (result instanceof Promise) {
        result.then(
          (r) => x.finish(200, resultMessage(id, r)),
          (err) => finishWithError(x, id, err),
        );
      } else x.finish(200, resultMessage(id, result));
      return x.response();
    } catch (err) {
      return reply(undefined, id, err, {}, stateless);
    }
  }

  /** Ends an exchange with the error its call ended in. */
  function finishWithError(x: HttpExchange, id: JsonRpcId, err: unknown): void {
    const error = toMcpError(err, !x.stateless);
    if (error.code === -32603)
      log.error({ err: (err as { cause?: unknown }).cause ?? err }, 'internal error');
    x.finish(httpStatusOf(err, error, x.stateless), errorMessage(id, error));
  }

  /**
   * 2026-07-28 routing headers (SEP-2243): `Mcp-Method` must name the body's method, `Mcp-Name` its tool,
   * prompt, resource or task, and every argument a tool marks with `x-mcp-header` must come as
   * `Mcp-Param-<Name>` with the same value (literal, or `=?base64?…?=`). Values are compared after trimming.
   */
  function checkMethodHeaders(request: NeutralRequest, m: JsonRpcRequest): void {
    const method = request.headers['mcp-method']?.trim();
    if (method !== m.method) {
      throw new McpProtocolError(
        -32020,
        method === undefined
          ? 'Header mismatch: the Mcp-Method header is missing'
          : 'Header mismatch: Mcp-Method does not match the request method',
        undefined,
        400,
      );
    }
    const p = isObject(m.params) ? m.params : {};
    const expected =
      m.method === 'resources/read' ? p.uri : m.method.startsWith('tasks/') ? p.taskId : p.name;
    if (
      typeof expected === 'string' &&
      /^(tools\/call|prompts\/get|resources\/read|tasks\/(get|update|cancel))$/.test(m.method)
    ) {
      const name = request.headers['mcp-name']?.trim();
      if (name === undefined || (name !== expected && decodeHeader(name) !== expected)) {
        throw new McpProtocolError(
          -32020,
          `Header mismatch: Mcp-Name ${name === undefined ? 'is missing' : 'does not match the request'}`,
          undefined,
          400,
        );
      }
    }
    if (m.method === 'tools/call' && typeof p.name === 'string') {
      const params = engine.headerParams(p.name);
      if (params.length === 0) return;
      const args = isObject(p.arguments) ? p.arguments : {};
      for (const { field, header, label } of params) {
        if (args[field] === undefined) continue;
        const raw = request.headers[header];
        const value = raw === undefined ? undefined : decodeHeader(raw.trim());
        if (value === undefined || value !== String(args[field])) {
          const what =
            raw === undefined
              ? 'is missing'
              : value === undefined
                ? 'is not valid Base64'
                : 'does not match the argument';
          throw new McpProtocolError(-32020, `Header mismatch: ${label} ${what}`, undefined, 400);
        }
      }
    }
  }

  /** 2026-07-28 `subscriptions/listen`: an acknowledged SSE stream of the notifications asked for. */
  function listen(
    m: JsonRpcRequest,
    request: NeutralRequest,
    _principal: Principal | undefined,
  ): NeutralResponse {
    const params = isObject(m.params) ? m.params : {};
    const filter = honouredFilter(params.notifications, !server.resources.empty, !server.prompts.empty);
    const queue = new AsyncQueue<string>();
    const send = (message: string) => void queue.push(`event: message\ndata: ${message}\n\n`);
    send(tagged('notifications/subscriptions/acknowledged', { notifications: filter }, m.id));
    const stop = notifier.listen(m.id, filter, send);
    const keepAlive = setInterval(() => void queue.push(': keep-alive\n\n'), keepAliveMs);
    keepAlive.unref();
    const end = () => {
      stop();
      clearInterval(keepAlive);
      queue.end();
    };
    queue.onConsumerGone(end);
    request.signal.addEventListener('abort', end, { once: true });
    return { status: 200, headers: SSE_HEADERS, body: queue };
  }

  function get(request: NeutralRequest): NeutralResponse {
    const accept = request.headers.accept;
    if (!accept || !acceptsAny(accept, ['text/event-stream', '*/*'])) {
      return reply(
        406,
        null,
        new McpLiteError('invalid_request', 'Not Acceptable: GET needs Accept: text/event-stream'),
      );
    }
    const sessionId = request.headers['mcp-session-id'];
    if (sessionId === undefined || !sessions) {
      return reply(
        405,
        null,
        new McpLiteError('method_not_allowed', 'No server stream without a session: use POST'),
        {
          allow: 'POST',
        },
      );
    }
    const session = sessions.get(sessionId);
    if (!session) return reply(404, null, new McpProtocolError(-32001, 'Session not found'));
    const lastEventId = request.headers['last-event-id'];
    const replay = lastEventId ? session.replayAfter(lastEventId) : undefined;
    let queue: AsyncQueue<string>;
    if (replay && replay.stream !== 'get') {
      // Resuming a POST stream: replay what was missed, then carry what that request still sends.
      queue = new AsyncQueue<string>();
      session.attach(replay.stream, queue);
    } else {
      queue = session.openStream();
    }
    if (replay) for (const chunk of replay.chunks) void queue.push(chunk);
    const keepAlive = setInterval(() => void queue.push(': keep-alive\n\n'), keepAliveMs);
    keepAlive.unref();
    queue.onConsumerGone(() => clearInterval(keepAlive));
    session.onClose(() => clearInterval(keepAlive));
    void queue.push(': stream open\n\n');
    return { status: 200, headers: SSE_HEADERS, body: queue };
  }

  function del(request: NeutralRequest): NeutralResponse {
    const sessionId = request.headers['mcp-session-id'];
    if (sessionId === undefined) {
      return reply(
        400,
        null,
        new McpLiteError('invalid_request', 'Bad Request: DELETE needs an Mcp-Session-Id header'),
      );
    }
    if (!sessions?.delete(sessionId))
      return reply(404, null, new McpProtocolError(-32001, 'Session not found'));
    return { status: 200, headers: {} };
  }
}

/**
 * One request in flight. Its response starts as JSON and becomes an SSE stream the moment the request sends
 * something before its result (a progress or log notification, a server request), provided the client accepts
 * `text/event-stream`; a call that just answers pays for no stream.
 */
class HttpExchange implements Exchange {
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
  private queue: AsyncQueue<string> | undefined;
  private streamIdValue: string | undefined;

  constructor(
    private readonly serverRequests: ServerRequests,
    private readonly http: NeutralRequest,
    readonly principal: Principal | undefined,
    init: {
      revision: string;
      stateless: boolean;
      clientCapabilities: Record<string, unknown>;
      logLevel: string | undefined;
      session: McpSession | undefined;
      allowStream: boolean;
    },
  ) {
    this.revision = init.revision;
    this.stateless = init.stateless;
    this.clientCapabilities = init.clientCapabilities;
    this.logLevel = init.logLevel;
    this.session = init.session;
    this.canNotify = init.allowStream && (http.headers.accept?.includes('text/event-stream') ?? false);
    this.request =
      this.canNotify && !this.stateless ? (method, params) => this.ask(method, params) : undefined;
  }

  /** Read lazily: the adapter makes the signal (and its listener) only when someone asks for it. */
  get signal(): AbortSignal {
    return this.http.signal;
  }

  notify(message: Record<string, unknown>): Promise<void> {
    if (!this.canNotify) return Promise.resolve();
    return this.send(JSON.stringify(message));
  }

  /** The response: the JSON answer, or the SSE stream it turned into; a promise while neither is known. */
  response(): NeutralResponse | Promise<NeutralResponse> {
    if (this.settled) return this.settled;
    this.pending ??= new Promise((resolve) => {
      this.resolvePending = resolve;
    });
    return this.pending;
  }

  /** The first response given wins (the stream, when the request sent something before its result). */
  private resolveResponse(response: NeutralResponse): void {
    if (this.settled) return;
    this.settled = response;
    this.resolvePending?.(response);
  }

  /** Ends the request with its final message. */
  finish(status: number, message: string): void {
    if (this.queue) {
      void this.send(message);
      this.queue.end();
      return;
    }
    this.resolveResponse({ status, headers: JSON_HEADERS, body: message });
  }

  /** Names this response's stream among the session's events (only streams need one). */
  private streamId(): string {
    this.streamIdValue ??= randomBytes(6).toString('hex');
    return this.streamIdValue;
  }

  private ask(method: string, params: Record<string, unknown>): Promise<unknown> {
    const { id, answer } = this.serverRequests.open(this.signal);
    void this.send(JSON.stringify({ jsonrpc: '2.0', id, method, params }));
    return answer;
  }

  private send(message: string): Promise<void> {
    if (!this.queue) {
      this.queue = new AsyncQueue<string>();
      this.resolveResponse({ status: 200, headers: SSE_HEADERS, body: this.queue });
    }
    const chunk = this.session
      ? this.session.record(this.streamId(), message)
      : `event: message\ndata: ${message}\n\n`;
    if (this.queue.consumerGone && this.session) {
      // The client dropped the stream; a resumed GET (Last-Event-ID) may carry the rest.
      return this.session.deliver(this.streamId(), chunk);
    }
    return this.queue.push(chunk);
  }
}

/** Whether an Accept header names one of `types` (a substring test: cheap, and parameters do not matter). */
function acceptsAny(accept: string, types: readonly string[]): boolean {
  for (const t of types) if (accept.includes(t)) return true;
  return false;
}

function idOfMessage(body: unknown): JsonRpcId {
  if (isObject(body) && 'id' in body) {
    const id = body.id;
    if (id === null || typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id))) return id;
  }
  return null;
}

/** A header value: `=?base64?…?=` is strict Base64 (undefined when invalid), anything else is literal. */
function decodeHeader(value: string): string | undefined {
  const m = /^=\?base64\?(.*)\?=$/.exec(value);
  if (!m) return value;
  const b64 = m[1]!;
  if (b64.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(b64)) return undefined;
  const bytes = Buffer.from(b64, 'base64');
  if (bytes.toString('base64') !== b64) return undefined;
  return new TextDecoder('utf-8', { fatal: false }).decode(bytes);
}

export { STATELESS_REVISION };
