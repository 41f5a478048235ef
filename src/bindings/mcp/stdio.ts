import { once } from 'node:events';
import { createInterface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import { McpLiteError } from '../../core/errors.js';
import type { ToolServer } from '../../core/server.js';
import { parseJsonBody } from '../common/json-body.js';
import { type JsonRpcId, type JsonRpcRequest, validateRequest } from '../common/jsonrpc.js';
import { type EngineOptions, type Exchange, isObject, isResponse, McpEngine } from './engine.js';
import { honouredFilter, Notifier, tagged } from './notifier.js';
import { META } from './revisions.js';
import { ServerRequests } from './server-requests.js';
import { type McpSession, SessionStore } from './sessions.js';
import { TaskRegistry } from './tasks.js';
import { errorMessage, McpProtocolError, resultMessage, toMcpError } from './wire.js';

/** Options of the stdio transport. */
export interface StdioOptions extends EngineOptions {
  /** Where messages come from. Default `process.stdin`. */
  input?: Readable;
  /** Where messages go. Default `process.stdout` (so logs must go to stderr). */
  output?: Writable;
  /** Longest accepted line in bytes. Default 4 MiB. */
  maxLineBytes?: number;
  /** How long to wait for the client's answer to a server request. Default 5 minutes. */
  serverRequestTimeoutMs?: number;
}

/** A running stdio server. */
export interface StdioServer {
  /** Resolves when the input ends (the client closed stdin) or `exit` arrived. */
  readonly closed: Promise<void>;
  /** Stops reading and aborts what runs. */
  close(): void;
}

/**
 * MCP over stdio: one JSON-RPC message per line in each direction. The connection is one session: `initialize`
 * negotiates a handshake revision, after which requests run concurrently (their notifications and server
 * requests interleave on stdout). A message carrying the stateless revision's `_meta` is served statelessly, and
 * `subscriptions/listen` keeps its notifications flowing on the same channel. This is what
 * `mcplite serve --stdio <module>` runs.
 */
export function serveStdio(server: ToolServer, options: StdioOptions = {}): StdioServer {
  const input = options.input ?? process.stdin;
  const output = options.output ?? process.stdout;
  const maxLine = options.maxLineBytes ?? 4 * 1024 * 1024;
  const engine = new McpEngine(server, options);
  if (server.promisesEnabled) engine.tasks = new TaskRegistry(server, new Set(options.tasksRequired ?? []));
  const store = new SessionStore({ maxSessions: 1 });
  const serverRequests = new ServerRequests(options.serverRequestTimeoutMs ?? 300_000);
  const connection = new AbortController();
  const notifier = new Notifier(server, store, new Set());
  const listens = new Map<string, () => void>();
  let session: McpSession | undefined;
  let writing: Promise<void> = Promise.resolve();
  const running = new Set<Promise<void>>();

  /** Writes one line, in order, waiting for 'drain' when the pipe is full. */
  const write = (line: string): Promise<void> => {
    writing = writing.then(async () => {
      if (connection.signal.aborted || output.destroyed) return;
      if (!output.write(`${line}\n`)) await Promise.race([once(output, 'drain'), once(output, 'close')]);
    });
    return writing;
  };

  const lines = createInterface({ input, crlfDelay: Number.POSITIVE_INFINITY });
  let resolveClosed!: () => void;
  const closed = new Promise<void>((resolve) => {
    resolveClosed = resolve;
  });
  const close = () => {
    if (connection.signal.aborted) return;
    connection.abort(new McpLiteError('cancelled', 'The connection closed'));
    lines.close();
    notifier.close();
    for (const stop of listens.values()) stop();
    serverRequests.rejectAll(new McpLiteError('cancelled', 'The connection closed'));
    store.closeAll();
    void writing.then(resolveClosed, resolveClosed);
  };
  lines.on('line', (line) => {
    if (line.trim() === '') return;
    if (Buffer.byteLength(line) > maxLine) {
      void write(
        errorMessage(
          null,
          toMcpError(new McpLiteError('invalid_request', 'Invalid Request: message too large'), true),
        ),
      );
      return;
    }
    let body: unknown;
    try {
      body = parseJsonBody(Buffer.from(line));
    } catch (err) {
      void write(errorMessage(null, toMcpError(err, true)));
      return;
    }
    if (Array.isArray(body)) {
      if (body.length === 0) {
        void write(
          errorMessage(
            null,
            toMcpError(new McpLiteError('invalid_request', 'Invalid Request: empty batch'), true),
          ),
        );
        return;
      }
      if (session && session.revision !== '2025-03-26' && session.revision !== '2024-11-05') {
        void write(
          errorMessage(
            null,
            toMcpError(
              new McpLiteError('invalid_request', 'Invalid Request: batches are not part of this revision'),
              true,
            ),
          ),
        );
        return;
      }
      for (const m of body) track(message(m));
      return;
    }
    track(message(body));
  });
  // The client closing stdin ends the session; what is already running may still answer.
  lines.once('close', () => void Promise.allSettled(running).then(close));

  function track(p: Promise<void>): void {
    running.add(p);
    void p.finally(() => running.delete(p));
  }

  async function message(body: unknown): Promise<void> {
    if (isResponse(body)) {
      serverRequests.settle(body);
      return;
    }
    let m: JsonRpcRequest;
    try {
      m = validateRequest(body);
    } catch (err) {
      const id = isObject(body) && 'id' in body ? (body.id as JsonRpcId) : null;
      await write(errorMessage(id, toMcpError(err, true)));
      return;
    }
    const params = isObject(m.params) ? m.params : undefined;
    const stateless = isObject(params?._meta) && params._meta[META.protocolVersion] !== undefined;
    if (!('id' in m)) {
      if (m.method === 'exit') close();
      else engine.notification(m, { session, principal: undefined });
      return;
    }
    const id = m.id as JsonRpcId;
    try {
      if (m.method === 'initialize' && !stateless) {
        if (session)
          throw new McpLiteError('invalid_request', 'Invalid Request: initialize was already received');
        const init = engine.initialize(params ?? {});
        session = store.create(init.revision, init.clientCapabilities, init.clientInfo);
        session.sink = (message) => {
          if (session?.initialized) void write(message);
        };
        await write(resultMessage(id, init.result));
        return;
      }
      let x: Exchange;
      if (stateless) {
        const decl = engine.statelessDeclaration(params, undefined, false);
        if (m.method === 'subscriptions/listen') {
          listen(m, id);
          return;
        }
        x = exchange(decl.version, true, decl.clientCapabilities, decl.logLevel, undefined);
      } else {
        if (!session && m.method !== 'ping') {
          throw new McpProtocolError(-32600, 'Invalid Request: send initialize first');
        }
        x = exchange(
          session?.revision ?? '2025-11-25',
          false,
          session?.clientCapabilities ?? {},
          session?.logLevel,
          session,
        );
      }
      const result = await engine.handle(m, x);
      await write(resultMessage(id, result));
    } catch (err) {
      await write(errorMessage(id, toMcpError(err, !stateless)));
    }
  }

  function exchange(
    revision: string,
    stateless: boolean,
    clientCapabilities: Record<string, unknown>,
    logLevel: string | undefined,
    s: McpSession | undefined,
  ): Exchange {
    return {
      revision,
      stateless,
      clientCapabilities,
      logLevel,
      session: s,
      principal: undefined,
      signal: connection.signal,
      canNotify: true,
      notify: (message) => write(JSON.stringify(message)),
      request: stateless
        ? undefined
        : (method, params) => {
            const { id, answer } = serverRequests.open(connection.signal);
            void write(JSON.stringify({ jsonrpc: '2.0', id, method, params }));
            return answer;
          },
    };
  }

  function listen(m: JsonRpcRequest, id: JsonRpcId): void {
    const params = isObject(m.params) ? m.params : {};
    const filter = honouredFilter(params.notifications, !server.resources.empty, !server.prompts.empty);
    void write(tagged('notifications/subscriptions/acknowledged', { notifications: filter }, id));
    const key = JSON.stringify(id);
    listens.get(key)?.();
    listens.set(
      key,
      notifier.listen(id, filter, (message) => void write(message)),
    );
  }

  return { closed, close };
}
