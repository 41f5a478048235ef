import type { CallerSource } from '../../core/operation-caller.js';
import type { ToolServer } from '../../core/server.js';
import {
  type ConnectionLink,
  type ConnectionPeer,
  type ConnectionProtocol,
  type JsonRpcConnection,
  type JsonRpcConnectionOptions,
  openConnection,
} from '../common/json-rpc-connection.js';
import { idOf, isObject, type JsonRpcId, type JsonRpcRequest } from '../common/jsonrpc.js';
import { bindingOfDialect, DraftDialect, draftCatalogOf, isDraftInitialize } from './draft-dialect/index.js';
import type { Exchange, ExchangeInit } from './exchange.js';
import { type Framing, type Inbound, McpLoop, Reply } from './loop.js';
import type { McpEngine } from './methods.js';
import { honouredFilter, Notifier, tagged } from './notifier.js';
import { ServerRequests } from './server-requests.js';
import { type McpSession, SessionStore } from './sessions.js';

/** Options of an MCP connection. */
export interface ConnectionOptions extends JsonRpcConnectionOptions {
  /** How long to wait for the client's answer to a server request. Default 5 minutes. */
  serverRequestTimeoutMs?: number;
  /**
   * The transport's name (`mcp-ws`, `mcp-sse`, `mcp-stdio`, …), the `transport` field of the connection's log lines;
   * their `binding` is `mcp`, the name metrics and `op.caller.binding` give every MCP transport.
   */
  binding: string;
}

/** What a user of an MCP transport over a connection sets (stdio, WebSocket): the connection's bounds. */
export type McpConnectionOptions = Omit<ConnectionOptions, 'binding'>;

/**
 * MCP over a connection that is one session (stdio, a WebSocket, a legacy HTTP+SSE stream, the in-memory pair),
 * on the one connection runtime (`common/json-rpc-connection.ts`: parsing, the in-flight bound, closing):
 * `initialize` negotiates a handshake revision, after which requests run concurrently, their notifications and
 * server requests (elicitation) interleave with the answers, and `notifications/cancelled` reaches them. A message
 * carrying the stateless revision's `_meta` is served statelessly, and `subscriptions/listen` keeps its
 * notifications flowing on the same connection. A client whose `initialize` is the draft seed's gets the draft's
 * shapes throughout (`DraftDialect`). Every message goes through the one JSON-RPC loop (`loop.ts`).
 */
export function openMcpConnection(
  server: ToolServer,
  engine: McpEngine,
  peer: ConnectionPeer,
  options: ConnectionOptions,
): JsonRpcConnection {
  return openConnection(peer, options, (link) => mcpProtocol(server, engine, link, options));
}

/** MCP's loop on one connection. */
function mcpProtocol(
  server: ToolServer,
  engine: McpEngine,
  link: ConnectionLink,
  options: ConnectionOptions,
): ConnectionProtocol {
  const peer = link.peer;
  // The connection is the one session, and lives as long as the connection does (no idle expiry).
  // The connection is its own state: what a store would share lives as long as the connection, in its memory.
  const sessions = new SessionStore({ maxSessions: 1, idleMs: Number.POSITIVE_INFINITY }, server.logger);
  const serverRequests = new ServerRequests(sessions.store, options.serverRequestTimeoutMs ?? 300_000);
  const notifier = new Notifier(server, sessions.hub, new Set());
  const listens = new Map<string, () => void>();
  let session: McpSession | undefined;
  let dialect: DraftDialect | undefined;

  /** Writes one message (in the draft's shape for a draft client) unless the connection is closed. */
  const write = (message: string): Promise<void> => link.write(dialect ? dialect.outbound(message) : message);

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
    caller,
    exit: () => peer.end(),
  };
  const loop = new McpLoop(
    engine,
    framing,
    serverRequests,
    server.logger.child({ binding: 'mcp', transport: options.binding }),
  );
  const errorMessage = (id: JsonRpcId, err: unknown): string =>
    loop.errorReply(undefined, id, err, false).body as string;

  function receive(body: unknown): void {
    if (!dialect && !session && isDraftInitialize(body)) {
      dialect = new DraftDialect(draftCatalogOf(server));
    }
    if (dialect) {
      const rewritten = dialect.inbound(body);
      if (rewritten.exit) {
        peer.end();
        return;
      }
      if (rewritten.reply !== undefined) {
        link.track(link.write(rewritten.reply));
        return;
      }
      body = rewritten.message;
    }
    // A response to a server request is always taken, whatever is in flight: it settles something, starts nothing.
    const refusal = isResponseLike(body) ? undefined : link.refusal();
    if (refusal) {
      void write(errorMessage(idOf(body), refusal));
      return;
    }
    const inbound: Inbound = { session, versionHeader: undefined, principal: peer.principal };
    if (Array.isArray(body)) {
      link.track(
        loop.batch(body, inbound).then(
          (text) => (text === undefined ? undefined : write(text)),
          (err) => write(errorMessage(null, err)),
        ),
      );
      return;
    }
    // An exchange the loop answers with counts itself (`exchange`), from when it is made until its answer is written.
    const answer = loop.message(body, inbound);
    if (answer instanceof Reply) link.track(write(answer.body as string));
    else if (answer instanceof Promise) link.track(answer.then((r) => write(r.body as string)));
  }

  // What every exchange of the connection shares: made once, not per request (the fast path).
  const notify = (message: Record<string, unknown>) => write(JSON.stringify(message));
  const request = (method: string, params: Record<string, unknown>) =>
    serverRequests.ask(link.signal, (id) => {
      void write(JSON.stringify({ jsonrpc: '2.0', id, method, params }));
    });
  const finish = (_status: number, message: string): void => void write(message).then(link.leave, link.leave);

  function exchange(init: ExchangeInit): Exchange {
    // A batch member's answer goes into the batch's (tracked as one request), never through `finish`.
    if (!init.batched) link.enter();
    return {
      revision: init.revision,
      stateless: init.stateless,
      clientCapabilities: init.clientCapabilities,
      logLevel: init.logLevel,
      session: init.session,
      principal: peer.principal,
      remoteAddress: peer.remoteAddress,
      headers: peer.headers,
      binding: bindingOfDialect(dialect),
      framing: options.binding,
      signal: link.signal,
      canNotify: true,
      notify,
      request: init.stateless ? undefined : request,
      finish,
    };
  }

  /** Registers the listen stream; its acknowledgement is the answer the loop gives the request. */
  function listen(m: JsonRpcRequest): Reply {
    const id = m.id as JsonRpcId;
    const params = isObject(m.params) ? m.params : {};
    const filter = honouredFilter(params.notifications, !server.resources.empty, !server.prompts.empty);
    const key = JSON.stringify(id);
    listens.get(key)?.();
    listens.set(
      key,
      notifier.listen(id, filter, (message) => void write(message)),
    );
    return new Reply(200, tagged('notifications/subscriptions/acknowledged', { notifications: filter }, id));
  }

  /** Who a listen stream's operation is from: the connection's peer. */
  function caller(): CallerSource {
    return {
      binding: bindingOfDialect(dialect),
      principal: peer.principal,
      remoteAddress: peer.remoteAddress,
      headers: peer.headers,
    };
  }

  return {
    receive,
    errorMessage,
    close(reason) {
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
