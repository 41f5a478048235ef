import type { ToolServer } from '../../core/server.js';
import {
  type SessionBounds,
  type SessionStateStore,
  type SessionStoreOptions,
  sessionBounds,
} from '../../core/session-state.js';
import { MemorySessionStore } from '../../stores/memory-sessions.js';
import { type EngineOptions, McpEngine } from './methods.js';
import { Notifier } from './notifier.js';
import { ServerRequests } from './server-requests.js';
import { SessionHub } from './sessions.js';
import { type TaskRegistry, taskRegistryFor } from './tasks.js';

/**
 * The options that make an MCP protocol object: how the server's tools are served over MCP, whatever the transport.
 * Two transports naming the same values share one object; one naming other values gets its own.
 */
export const PROTOCOL_KEYS = [
  'pageSize',
  'cacheTtlMs',
  'instructions',
  'nativeTools',
  'nativePrompts',
  'tasksRequired',
  'maxTasks',
  'maxTasksPerCaller',
  'maxTaskArgumentBytes',
  'serverRequestTimeoutMs',
] as const satisfies readonly (keyof McpProtocolOptions)[];

/** What a transport asks its server's MCP protocol object with. */
export interface McpProtocolOptions extends EngineOptions {
  /** How long to wait for the client's answer to a server request (elicitation/create). Default 5 minutes. */
  serverRequestTimeoutMs?: number;
  /**
   * Where sessions, server-request waiters and task-resume data live. Given: shared with every transport that
   * names the same store. Left out: the protocol's own memory store (a transport that names none takes whichever
   * the server's protocol has).
   */
  sessionStore?: SessionStateStore;
}

/**
 * One MCP protocol per server (docs/architecture.md, "One MCP protocol per server"): the engine (the methods, the
 * requests in flight a cancel reaches, the handshake revision's tasks), the tasks extension, the session store and
 * its hub, the notifier of list and resource changes, and the server requests waiting for an answer. Every MCP
 * transport of the server (Streamable HTTP, legacy SSE, WebSocket, stdio, in-memory) takes it from `mcpProtocolFor`
 * rather than building its own, so a cancel or a task made over one transport is found over another. A transport
 * over a connection keeps the connection as its session (`connection.ts`); it shares the engine and the tasks.
 */
export class McpProtocol {
  readonly engine: McpEngine;
  /** The tasks extension, when the server has promises. */
  readonly tasks: TaskRegistry | undefined;
  /** Where sessions, server-request waiters and task-resume data live. */
  readonly store: SessionStateStore;
  /** The sessions of the handshake revisions in `store`. */
  readonly sessions: SessionHub;
  /** list_changed and resources/updated to sessions and listen streams. */
  readonly notifier: Notifier;
  /** Server requests (elicitation) waiting for their answer. */
  readonly serverRequests: ServerRequests;
  /** The bounds of the protocol's own store (undefined when the store was given). */
  readonly ownBounds: SessionBounds | undefined;
  private users = 0;

  constructor(
    readonly server: ToolServer,
    readonly options: McpProtocolOptions,
    storeBounds: SessionStoreOptions | undefined,
    private readonly onClose: (p: McpProtocol) => void,
  ) {
    this.ownBounds = options.sessionStore ? undefined : sessionBounds(storeBounds);
    this.store = options.sessionStore ?? new MemorySessionStore(storeBounds);
    this.tasks = taskRegistryFor(server, options, this.store);
    this.engine = new McpEngine(server, options, this.tasks);
    this.sessions = new SessionHub(this.store, server.logger.child({ binding: 'mcp' }));
    this.notifier = new Notifier(server, this.sessions, new Set());
    this.serverRequests = new ServerRequests(this.store, options.serverRequestTimeoutMs ?? 300_000);
  }

  /**
   * Takes the protocol for a transport that holds state in it (sessions, streams); the function returned gives it
   * back when the transport closes. When the last one does, the notifier stops, and a store the protocol made
   * closes (a store it was given belongs to its owner); the server's next transport gets a new protocol.
   */
  acquire(): () => void {
    this.users++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      if (--this.users > 0) return;
      this.onClose(this);
      this.notifier.close();
      if (!this.options.sessionStore) void this.store.close();
    };
  }
}

/** Each server's protocol objects, one per distinct set of protocol options (usually exactly one). */
const homes = new WeakMap<ToolServer, McpProtocol[]>();

/**
 * The MCP protocol object of `server` for these options: the one already made for the same options (`PROTOCOL_KEYS`
 * and the same `sessionStore`), else a new one. `storeBounds` are the bounds of the protocol's own store for a
 * transport that keeps its sessions there (Streamable HTTP); a transport that leaves them out takes any.
 */
export function mcpProtocolFor(
  server: ToolServer,
  options: McpProtocolOptions = {},
  storeBounds?: SessionStoreOptions,
): McpProtocol {
  const made = homes.get(server) ?? [];
  const found = made.find((p) => fits(p, options, storeBounds));
  if (found) return found;
  const picked = pickProtocolOptions(options);
  const protocol = new McpProtocol(server, picked, storeBounds, (p) => {
    const list = homes.get(server);
    if (list?.includes(p)) list.splice(list.indexOf(p), 1);
  });
  made.push(protocol);
  homes.set(server, made);
  return protocol;
}

/** The protocol options (`PROTOCOL_KEYS` and `sessionStore`) among a transport's, the rest left out. */
export function pickProtocolOptions(options: McpProtocolOptions): McpProtocolOptions {
  const picked: Record<string, unknown> = {};
  for (const key of PROTOCOL_KEYS) if (options[key] !== undefined) picked[key] = options[key];
  if (options.sessionStore) picked.sessionStore = options.sessionStore;
  return picked as McpProtocolOptions;
}

function fits(
  p: McpProtocol,
  options: McpProtocolOptions,
  storeBounds: SessionStoreOptions | undefined,
): boolean {
  for (const key of PROTOCOL_KEYS) if (!sameValue(p.options[key], options[key])) return false;
  if (options.sessionStore) return p.options.sessionStore === options.sessionStore;
  if (storeBounds === undefined) return true;
  if (!p.ownBounds) return false;
  const wanted = sessionBounds(storeBounds);
  return (Object.keys(wanted) as (keyof SessionBounds)[]).every((k) => wanted[k] === p.ownBounds?.[k]);
}

/** Equal values, arrays (tools, names) compared item by item. */
function sameValue(a: unknown, b: unknown): boolean {
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((v, i) => v === b[i]);
  return a === b;
}
