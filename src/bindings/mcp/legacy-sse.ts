import { randomBytes } from 'node:crypto';
import { authenticateOrThrow, bearerToken, type Principal } from '../../core/auth.js';
import { callerKey } from '../../core/caller.js';
import { McpLiteError, toMcpLiteError } from '../../core/errors.js';
import type { NeutralHandler, NeutralRequest, NeutralResponse } from '../../core/http.js';
import type { ToolServer } from '../../core/server.js';
import { AsyncQueue } from '../common/async-queue.js';
import { accepted, bearerChallenge, jsonHttpResponse, SSE_HEADERS } from '../common/http-reply.js';
import { assertJsonBodyHeaders, parseJsonBody } from '../common/json-body.js';
import { errorMessage } from '../common/jsonrpc.js';
import { type McpConnection, openMcpConnection } from './connection.js';
import { type EngineOptions, McpEngine } from './engine.js';
import { taskRegistryFor } from './tasks.js';
import { HTTP_STATUS, toMcpError } from './wire.js';

/** Options of the legacy HTTP+SSE transport (MCP 2024-11-05). */
export interface LegacySseOptions extends EngineOptions {
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
  /** Most messages waiting for a client that stopped reading its stream; past it the stream is ended. Default 1024. */
  maxQueuedMessages?: number;
  /** Idle time after which the stream gets an SSE comment, in ms. Default 15 000. */
  keepAliveMs?: number;
  /** How long to wait for the client's answer to a server request (elicitation). Default 5 minutes. */
  serverRequestTimeoutMs?: number;
}

/** The legacy transport as a neutral handler, plus what a host needs to shut it down. */
export interface LegacySseHandler extends NeutralHandler {
  /** Ends every stream. */
  close(): void;
  /** Open streams. */
  readonly sessions: number;
}

interface LegacySession {
  connection: McpConnection;
  /** Whose session it is: the principal's id (auth on), or undefined. */
  owner: string | undefined;
  key: string;
}

/**
 * MCP's HTTP+SSE transport of the 2024-11-05 revision, still what many deployed clients speak: `GET /sse` opens
 * the stream and sends the `endpoint` event (`/messages?sessionId=…`), `POST /messages?sessionId=…` carries the
 * client's messages (202), and every answer, notification and server request goes down the stream. Each stream is
 * one session of the MCP JSON-RPC loop (`connection.ts`, as stdio and WebSocket). Streams are bounded in all and
 * per caller, a stream's session belongs to the principal that opened it, and a client that stops reading is cut
 * off rather than buffered for.
 */
export function createLegacySseBinding(server: ToolServer, options: LegacySseOptions = {}): LegacySseHandler {
  const ssePath = options.ssePath ?? '/sse';
  const messagesPath = options.messagesPath ?? '/messages';
  const maxBody = options.maxBodyBytes ?? 4 * 1024 * 1024;
  const maxSessions = options.maxSessions ?? 1000;
  const maxPerCaller = options.maxSessionsPerCaller ?? 16;
  const maxQueued = options.maxQueuedMessages ?? 1024;
  const keepAliveMs = options.keepAliveMs ?? 15_000;
  const engine = new McpEngine(server, options, taskRegistryFor(server, options));
  const sessions = new Map<string, LegacySession>();
  const perCaller = new Map<string, number>();

  const handler = ((request: NeutralRequest) => {
    if (request.path === ssePath) return withCaller(request, open);
    if (request.path === messagesPath) return withCaller(request, post);
    return undefined;
  }) as LegacySseHandler;
  handler.close = () => {
    for (const s of [...sessions.values()]) s.connection.close();
  };
  Object.defineProperty(handler, 'sessions', { get: () => sessions.size });
  return handler;

  function fail(err: unknown, headers?: Record<string, string>): NeutralResponse {
    const e = toMcpLiteError(err);
    return jsonHttpResponse(HTTP_STATUS[e.code], errorMessage(null, toMcpError(e, false)), headers);
  }

  async function withCaller(
    request: NeutralRequest,
    next: (
      request: NeutralRequest,
      principal: Principal | undefined,
    ) => NeutralResponse | Promise<NeutralResponse>,
  ): Promise<NeutralResponse> {
    let principal: Principal | undefined;
    if (server.authenticate) {
      const token = bearerToken(request.headers.authorization);
      try {
        principal = await authenticateOrThrow(server.authenticate, { token, headers: request.headers });
      } catch (err) {
        return fail(err, { 'www-authenticate': bearerChallenge(token) });
      }
    }
    try {
      return await next(request, principal);
    } catch (err) {
      return fail(err);
    }
  }

  function open(request: NeutralRequest, principal: Principal | undefined): NeutralResponse {
    if (request.method !== 'GET') {
      const e = new McpLiteError('method_not_allowed', `Method ${request.method} not allowed: use GET`);
      return fail(e, { allow: 'GET' });
    }
    const key = callerKey({ principal, remoteAddress: request.remoteAddress });
    if (sessions.size >= maxSessions) {
      throw new McpLiteError('resource_exhausted', `Too many open SSE sessions (at most ${maxSessions})`);
    }
    const mine = perCaller.get(key) ?? 0;
    if (mine >= maxPerCaller) {
      throw new McpLiteError(
        'resource_exhausted',
        `Too many open SSE sessions for this caller (at most ${maxPerCaller}): close some first`,
        { limit: maxPerCaller },
      );
    }
    const id = randomBytes(16).toString('hex');
    const queue = new AsyncQueue<string>();
    let ended = false;
    const end = () => {
      if (ended) return;
      ended = true;
      clearInterval(keepAlive);
      sessions.delete(id);
      const n = (perCaller.get(key) ?? 1) - 1;
      if (n <= 0) perCaller.delete(key);
      else perCaller.set(key, n);
      connection.close();
      queue.end();
    };
    const push = (chunk: string): Promise<void> => {
      if (ended) return Promise.resolve();
      if (queue.pending >= maxQueued) {
        server.logger.warn({ caller: key }, 'SSE client is not reading: session ended');
        end();
        return Promise.resolve();
      }
      return queue.push(chunk);
    };
    const connection = openMcpConnection(
      server,
      engine,
      {
        write: (message) => push(`event: message\ndata: ${message}\n\n`),
        end,
        principal,
        remoteAddress: request.remoteAddress,
      },
      { binding: 'mcp-sse', serverRequestTimeoutMs: options.serverRequestTimeoutMs },
    );
    sessions.set(id, { connection, owner: principal?.id, key });
    perCaller.set(key, mine + 1);
    const keepAlive = setInterval(() => {
      if (queue.pending === 0) void push(': keep-alive\n\n');
    }, keepAliveMs);
    keepAlive.unref();
    queue.onConsumerGone(end);
    request.signal.addEventListener('abort', end, { once: true });
    void push(`event: endpoint\ndata: ${messagesPath}?sessionId=${id}\n\n`);
    return { status: 200, headers: { ...SSE_HEADERS }, body: queue };
  }

  async function post(request: NeutralRequest, principal: Principal | undefined): Promise<NeutralResponse> {
    if (request.method !== 'POST') {
      const e = new McpLiteError('method_not_allowed', `Method ${request.method} not allowed: use POST`);
      return fail(e, { allow: 'POST' });
    }
    const id = new URLSearchParams(request.query ?? '').get('sessionId');
    const session = id === null ? undefined : sessions.get(id);
    // Another principal's session is as unknown as one that never was.
    if (!session || session.owner !== principal?.id) {
      throw new McpLiteError('session_not_found', 'Session not found: open a stream with GET first');
    }
    assertJsonBodyHeaders(request.headers);
    const body = parseJsonBody(await request.readBody(maxBody));
    session.connection.receive(body);
    return accepted();
  }
}
