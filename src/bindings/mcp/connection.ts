import type { Principal } from '../../core/auth.js';
import { McpLiteError } from '../../core/errors.js';
import { allowManyListeners } from '../../core/many-listeners.js';
import type { ToolServer } from '../../core/server.js';
import { isObject, type JsonRpcId, type JsonRpcRequest } from '../common/jsonrpc.js';
import { DraftDialect, isDraftInitialize } from '../draft-dialect/index.js';
import type { McpEngine } from './engine.js';
import type { Exchange, ExchangeInit } from './exchange.js';
import { type Framing, type Inbound, McpLoop, Reply } from './loop.js';
import { honouredFilter, Notifier, tagged } from './notifier.js';
import { ServerRequests } from './server-requests.js';
import { type McpSession, SessionStore } from './sessions.js';

/** The transport under one MCP connection (stdio lines, a WebSocket, a legacy SSE stream). */
export interface ConnectionPeer {
  /** Writes one message, in order; resolves once it is written out (the backpressure of notifications). */
  write(message: string): Promise<void>;
  /** Ends the transport (the draft's `exit`, or the connection closing itself). */
  end(): void;
  /** Who authenticated the connection, if anyone. */
  readonly principal: Principal | undefined;
  /** The peer's address, when the transport knows it. */
  readonly remoteAddress: string | undefined;
  /** The headers the connection was opened with (the WebSocket upgrade's, the SSE GET's); none on stdio. */
  readonly headers?: Readonly<Record<string, string | undefined>> | undefined;
}

/** Options of a connection. */
export interface ConnectionOptions {
  /** How long to wait for the client's answer to a server request. Default 5 minutes. */
  serverRequestTimeoutMs?: number;
  /** Most requests running at once (a batch counts as one); past it a request is answered -32004. Default 256. */
  maxInFlight?: number;
  /**
   * The transport's name (`mcp-ws`, `mcp-sse`, `mcp-stdio`, …), the `transport` field of the connection's log lines;
   * their `binding` is `mcp`, the name metrics and `op.caller.binding` give every MCP transport.
   */
  binding: string;
}

/** One MCP connection: the messages a transport receives go in, the loop's answers come out through its peer. */
export interface McpConnection {
  /** Takes one parsed message or batch. */
  receive(body: unknown): void;
  /** The error response for input that is no message at all (bad JSON, an oversized line): no id. */
  errorFor(err: unknown): string;
  /** Requests running now. */
  readonly inFlight: number;
  /** Resolves once every request running now has answered. */
  idle(): Promise<void>;
  /** Aborts what runs, rejects pending server requests, ends the session; nothing more is written. */
  close(): void;
}

/**
 * MCP over a connection that is one session (stdio, a WebSocket, a legacy HTTP+SSE stream): `initialize`
 * negotiates a handshake revision, after which requests run concurrently, their notifications and server requests
 * (elicitation) interleave with the answers, and `notifications/cancelled` reaches them. A message carrying the
 * stateless revision's `_meta` is served statelessly, and `subscriptions/listen` keeps its notifications flowing
 * on the same connection. A client whose `initialize` is the draft seed's gets the draft's shapes throughout
 * (`DraftDialect`). Every message goes through the one JSON-RPC loop (`loop.ts`); this is the connection framing.
 */
export function openMcpConnection(
  server: ToolServer,
  engine: McpEngine,
  peer: ConnectionPeer,
  options: ConnectionOptions,
): McpConnection {
  const maxInFlight = options.maxInFlight ?? 256;
  // The connection is the one session, and lives as long as the connection does (no idle expiry).
  // The connection is its own state: what a store would share lives as long as the connection, in its memory.
  const sessions = new SessionStore({ maxSessions: 1, idleMs: Number.POSITIVE_INFINITY }, server.logger);
  const serverRequests = new ServerRequests(sessions.store, options.serverRequestTimeoutMs ?? 300_000);
  const connection = new AbortController();
  // Each request in flight listens to the connection's signal (and stops when it ends): many at once is normal.
  allowManyListeners(connection.signal);
  const notifier = new Notifier(server, sessions.hub, new Set());
  const listens = new Map<string, () => void>();
  // Requests (and answers on their way out) not done yet, and who waits for there to be none.
  let running = 0;
  let idlers: Array<() => void> = [];
  const landed = (): void => {
    if (--running > 0 || idlers.length === 0) return;
    const waiting = idlers;
    idlers = [];
    for (const resolve of waiting) resolve();
  };
  let session: McpSession | undefined;
  let dialect: DraftDialect | undefined;

  /** Writes one message (in the draft's shape for a draft client) unless the connection is closed. */
  const write = (message: string): Promise<void> => {
    if (connection.signal.aborted) return Promise.resolve();
    return peer.write(dialect ? dialect.outbound(message) : message);
  };

  const framing: Framing<Inbound, Exchange> = {
    connectionIsSession: true,
    versionHeaderRequired: false,
    exchange,
    initialized(init) {
      const s = sessions.create(init.revision, init.clientCapabilities, init.clientInfo, 'connection');
      s.sink = (message) => {
        if (s.initialized) void write(message);
      };
      session = s;
      return undefined;
    },
    listen,
    exit: () => peer.end(),
  };
  const loop = new McpLoop(
    engine,
    framing,
    serverRequests,
    server.logger.child({ binding: 'mcp', transport: options.binding }),
  );

  function receive(body: unknown): void {
    if (connection.signal.aborted) return;
    if (!dialect && !session && isDraftInitialize(body)) {
      dialect = new DraftDialect({
        tools: () => server.listTools().tools,
        resources: () => server.resources.list().map((r) => r.uri),
      });
    }
    if (dialect) {
      const rewritten = dialect.inbound(body);
      if (rewritten.exit) {
        peer.end();
        return;
      }
      if (rewritten.reply !== undefined) {
        track(peer.write(rewritten.reply));
        return;
      }
      body = rewritten.message;
    }
    if (running >= maxInFlight && !isResponseLike(body)) {
      const e = new McpLiteError(
        'resource_exhausted',
        `Too many requests in flight (at most ${maxInFlight})`,
      );
      void write(loop.errorReply(undefined, idOfBody(body), e, false).body as string);
      return;
    }
    const inbound: Inbound = { session, versionHeader: undefined, principal: peer.principal };
    if (Array.isArray(body)) {
      track(
        loop.batch(body, inbound).then(
          (text) => (text === undefined ? undefined : write(text)),
          (err) => write(loop.errorReply(undefined, null, err, false).body as string),
        ),
      );
      return;
    }
    // An exchange the loop answers with counts itself (`exchange`), from when it is made until its answer is written.
    const answer = loop.message(body, inbound);
    if (answer instanceof Reply) track(write(answer.body as string));
    else if (answer instanceof Promise) track(answer.then((r) => write(r.body as string)));
  }

  function track(p: Promise<unknown>): void {
    running++;
    p.then(landed, landed);
  }

  // What every exchange of the connection shares: made once, not per request (the fast path).
  const notify = (message: Record<string, unknown>) => write(JSON.stringify(message));
  const request = (method: string, params: Record<string, unknown>) =>
    serverRequests.ask(connection.signal, (id) => {
      void write(JSON.stringify({ jsonrpc: '2.0', id, method, params }));
    });
  const finish = (_status: number, message: string): void => void write(message).then(landed, landed);

  function exchange(init: ExchangeInit): Exchange {
    // A batch member's answer goes into the batch's (tracked as one request), never through `finish`.
    if (!init.batched) running++;
    return {
      revision: init.revision,
      stateless: init.stateless,
      clientCapabilities: init.clientCapabilities,
      logLevel: init.logLevel,
      session: init.session,
      principal: peer.principal,
      remoteAddress: peer.remoteAddress,
      headers: peer.headers,
      binding: 'mcp',
      framing: options.binding,
      signal: connection.signal,
      canNotify: true,
      notify,
      request: init.stateless ? undefined : request,
      finish,
    };
  }

  function listen(m: JsonRpcRequest): undefined {
    const id = m.id as JsonRpcId;
    const params = isObject(m.params) ? m.params : {};
    const filter = honouredFilter(params.notifications, !server.resources.empty, !server.prompts.empty);
    void write(tagged('notifications/subscriptions/acknowledged', { notifications: filter }, id));
    const key = JSON.stringify(id);
    listens.get(key)?.();
    listens.set(
      key,
      notifier.listen(id, filter, (message) => void write(message)),
    );
    return undefined;
  }

  return {
    receive,
    errorFor: (err) => loop.errorReply(undefined, null, err, false).body as string,
    get inFlight() {
      return running;
    },
    idle() {
      if (running === 0 || connection.signal.aborted) return Promise.resolve();
      return new Promise<void>((resolve) => idlers.push(resolve));
    },
    close() {
      if (connection.signal.aborted) return;
      const reason = new McpLiteError('cancelled', 'The connection closed');
      connection.abort(reason);
      notifier.close();
      for (const stop of listens.values()) stop();
      serverRequests.rejectAll(reason);
      void sessions.closeAll();
    },
  };
}

/** A response to a server request: always taken, whatever is in flight (it settles something, starts nothing). */
function isResponseLike(body: unknown): boolean {
  return isObject(body) && !('method' in body) && 'id' in body;
}

function idOfBody(body: unknown): JsonRpcId {
  if (isObject(body) && 'id' in body) {
    const id = body.id;
    if (typeof id === 'string' || typeof id === 'number') return id;
  }
  return null;
}
