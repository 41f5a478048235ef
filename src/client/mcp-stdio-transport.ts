import { HANDSHAKE_REVISIONS, LATEST_HANDSHAKE_REVISION } from '../bindings/mcp/revisions.js';
import { APPS_CAPABILITY, APPS_EXTENSION } from '../core/apps/ui.js';
import { McpLiteError } from '../core/errors.js';
import { assertDeclared, listToolPages, rpcCatalog } from './catalog-wire.js';
import { elicitationRace } from './elicitation-race.js';
import { promiseToolCalls } from './http-transport.js';
import { jsonRpcPeer } from './json-rpc-peer.js';
import type { ClientLimits } from './limits.js';
import { MCP_SESSION_KEY, SessionJar } from './session-jar.js';
import { openStdioChannel, type StdioCommand } from './stdio-channel.js';
import type { Transport, WireContext } from './transport.js';
import type { ConnectOptions } from './types.js';
import { isRecord, toClientError } from './wire-errors.js';

/**
 * MCP over stdio, on a handshake revision: the client spawns the server, says `initialize` (the latest revision
 * it knows, any handshake revision the server settles on accepted) and `notifications/initialized`, then speaks
 * JSON-RPC lines. The client declares elicitation: a server's `elicitation/create` during a call ends that call's
 * wait with an elicitation outcome (`elicitation-race.ts`). Progress notifications go to the call's partials;
 * list_changed to the listeners. What the child writes is bounded per line (`maxResponseBytes`); its end ends
 * every call waiting with `unavailable`. `signal` bounds the spawn and the handshake.
 */
export async function mcpStdioTransport(
  server: StdioCommand,
  options: ConnectOptions,
  limits: ClientLimits,
  signal?: AbortSignal,
): Promise<Transport> {
  const toolsChanged = new Set<() => void>();
  const resourcesChanged = new Set<() => void>();
  const promptsChanged = new Set<() => void>();
  const progress = new Map<string, (value: unknown) => void>();
  const elicitations = elicitationRace(toClientError);

  const peer = jsonRpcPeer((message) => channel.send(message), {
    request(method, params) {
      if (method === 'ping') return Promise.resolve({});
      if (method !== 'elicitation/create') return undefined;
      return new Promise((resolve) => elicitations.offer({ params, respond: resolve }));
    },
    notification(method, params) {
      if (method === 'notifications/progress') {
        const sink = progress.get(String(params.progressToken));
        if (!sink) return;
        const { progressToken: _t, ...value } = params;
        try {
          sink(value);
        } catch {
          // A partial bound reached: the sink has aborted its call already; the connection itself is fine.
        }
      } else if (method === 'notifications/tools/list_changed')
        for (const listener of toolsChanged) listener();
      else if (method === 'notifications/resources/list_changed')
        for (const listener of resourcesChanged) listener();
      else if (method === 'notifications/prompts/list_changed')
        for (const listener of promptsChanged) listener();
    },
  });
  const channel = await openStdioChannel(server, limits.maxResponseBytes, {
    message: (message) => peer.receive(message),
    closed: (reason) => peer.close(reason),
  }).catch((err: unknown) => {
    throw toClientError(err, signal);
  });

  let capabilities: Record<string, unknown> | undefined;
  try {
    const reply = await peer.request(
      'initialize',
      {
        protocolVersion: LATEST_HANDSHAKE_REVISION,
        // MCP Apps: the tools' views and app-only tools come listed; the adapters keep the latter from a model.
        capabilities: { elicitation: {}, extensions: { [APPS_EXTENSION]: { ...APPS_CAPABILITY } } },
        clientInfo: options.clientInfo ?? { name: 'mcplite', version: '0' },
      },
      signal,
    );
    const version = isRecord(reply) ? reply.protocolVersion : undefined;
    if (!(HANDSHAKE_REVISIONS as readonly unknown[]).includes(version))
      throw new McpLiteError(
        'unsupported_version',
        `The server settled on a protocol revision this client does not speak: ${String(version).slice(0, 64)}`,
        { supported: [...HANDSHAKE_REVISIONS] },
      );
    capabilities = isRecord(reply) && isRecord(reply.capabilities) ? reply.capabilities : {};
    peer.notify('notifications/initialized', {});
  } catch (err) {
    await channel.close();
    throw toClientError(err, signal);
  }

  const rpc = async (method: string, params: Record<string, unknown>, ctx: WireContext) => {
    if (method.startsWith('resources/')) assertDeclared(capabilities, 'resources');
    else if (method.startsWith('prompts/')) assertDeclared(capabilities, 'prompts');
    try {
      return await peer.request(method, params, ctx.signal);
    } catch (err) {
      throw toClientError(err, ctx.signal);
    }
  };

  // The caller session an mcplite server gave this connection (`_meta["mcplite/session"]`), sent back (SessionJar).
  const jar = new SessionJar(options.keepSession !== false);
  let nextToken = 1;

  function call(name: string, args: Record<string, unknown>, ctx: WireContext) {
    const token = ctx.onPartial ? `mcplite-${nextToken++}` : undefined;
    if (token && ctx.onPartial) progress.set(token, ctx.onPartial);
    const meta =
      token || ctx.trace || jar.token !== undefined
        ? jar.into({ ...ctx.trace, ...(token ? { progressToken: token } : {}) }, MCP_SESSION_KEY)
        : undefined;
    const pending = peer
      .request('tools/call', { name, arguments: args, ...(meta ? { _meta: meta } : {}) }, ctx.signal)
      .then((result) => {
        const r = isRecord(result) ? result : {};
        if (isRecord(r._meta)) jar.keep(r._meta[MCP_SESSION_KEY]);
        return r;
      });
    if (token) void pending.finally(() => progress.delete(token)).catch(() => {});
    return elicitations.race(pending, ctx);
  }

  return {
    binding: 'stdio',
    canWait: true,
    ...rpcCatalog(rpc, limits),
    onResourcesChanged: (listener) => void resourcesChanged.add(listener),
    onPromptsChanged: (listener) => void promptsChanged.add(listener),
    listTools: (ctx) => listToolPages((params) => rpc('tools/list', params, ctx)),
    call,
    // A promise's redeem and cancel are not streamed: their partials, if any, are the original call's.
    ...promiseToolCalls((name, args, ctx) => call(name, args, { ...ctx, onPartial: undefined })),
    onToolsChanged: (listener) => void toolsChanged.add(listener),
    async close() {
      elicitations.clear();
      toolsChanged.clear();
      resourcesChanged.clear();
      promptsChanged.clear();
      await channel.close();
    },
  };
}
