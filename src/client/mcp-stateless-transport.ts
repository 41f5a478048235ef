import { STATELESS_REVISION } from '../bindings/mcp/revisions.js';
import { APPS_CAPABILITY, APPS_EXTENSION } from '../core/apps/ui.js';
import { McpLiteError } from '../core/errors.js';
import { rpcCatalog } from './catalog-wire.js';
import { fetchWithinOrigin, type HttpFetch, readJsonReply } from './http-fetch.js';
import { type ClientLimits, DEFAULT_LIMITS } from './limits.js';
import { toToolInfo } from './lite-result.js';
import { fromInputRequests, fromMcpResult, toInputResponses } from './mcp-result.js';
import { isSignInFailure } from './oauth.js';
import { MCP_SESSION_KEY, SessionJar } from './session-jar.js';
import { readSse } from './sse.js';
import type { Transport, WireContext, WireOutcome } from './transport.js';
import type { ToolInfo } from './types.js';
import { fromJsonRpcError, isRecord, toClientError } from './wire-errors.js';

/** The stateless MCP revision this transport speaks: the one the server serves (one constant, `mcp/revisions.ts`). */
export { STATELESS_REVISION };

const TASKS = 'io.modelcontextprotocol/tasks';
const RESERVED_NAME = /^(tools\/call|prompts\/get|resources\/read|tasks\/(get|update|cancel))$/;

/**
 * Asks an MCP URL whether it speaks the stateless revision (`server/discover`). False for anything else: a
 * handshake-only server answers with an error or a 4xx.
 */
export async function speaksStateless(
  url: string,
  headers: Record<string, string>,
  signal?: AbortSignal,
  limits: ClientLimits = DEFAULT_LIMITS,
  send: HttpFetch = fetchWithinOrigin,
) {
  try {
    const reply = await postRpc(
      url,
      headers,
      'server/discover',
      {},
      { ...(signal ? { signal } : {}) },
      0,
      limits,
      send,
    );
    return (
      isRecord(reply) &&
      Array.isArray(reply.supportedVersions) &&
      reply.supportedVersions.includes(STATELESS_REVISION)
    );
  } catch (err) {
    // A sign-in that failed (declined, refused, no user-agent step) fails the same way on either revision:
    // said now, rather than asked again by the handshake.
    if (isSignInFailure(err)) throw err;
    return false;
  }
}

/**
 * MCP 2026-07-28 over Streamable HTTP, stateless: every request carries the revision and the client's
 * capabilities (elicitation, the tasks extension), so promises arrive as tasks and elicitations as
 * `input_required`, and no session is ever made.
 */
export function mcpStatelessTransport(
  url: string,
  headers: Record<string, string>,
  clientInfo: { name: string; version: string } = { name: 'mcplite', version: '0' },
  limits: ClientLimits = DEFAULT_LIMITS,
  send: HttpFetch = fetchWithinOrigin,
  jar: SessionJar = new SessionJar(),
): Transport {
  let nextId = 1;
  let headerFields: Map<string, Array<{ field: string; header: string }>> | undefined;

  const rpc = (
    method: string,
    params: Record<string, unknown>,
    ctx: WireContext,
    extra?: Record<string, string>,
  ) => postRpc(url, { ...headers, ...extra }, method, params, ctx, nextId++, limits, send, clientInfo);

  async function listTools(ctx: WireContext): Promise<ToolInfo[]> {
    const tools: ToolInfo[] = [];
    const fields = new Map<string, Array<{ field: string; header: string }>>();
    let cursor: string | undefined;
    for (let page = 0; page < 1000; page++) {
      const reply = await rpc('tools/list', cursor ? { cursor } : {}, ctx);
      const list = isRecord(reply) && Array.isArray(reply.tools) ? reply.tools.filter(isRecord) : [];
      for (const raw of list) {
        const tool = toToolInfo(raw);
        const params = paramHeaders(tool.inputSchema);
        // A tool whose x-mcp-header marks cannot be mirrored faithfully is not offered (SEP-2243: clients
        // MUST exclude it), rather than called with headers the server would refuse.
        if (params === undefined) continue;
        tools.push(tool);
        fields.set(tool.name, params);
      }
      cursor = isRecord(reply) && typeof reply.nextCursor === 'string' ? reply.nextCursor : undefined;
      if (!cursor) break;
    }
    headerFields = fields;
    return tools;
  }

  function fromTask(task: Record<string, unknown>, taskId: string): WireOutcome {
    const status = task.status;
    if (status === 'completed') return toOutcome(isRecord(task.result) ? task.result : {});
    if (status === 'failed') throw fromJsonRpcError(task.error);
    if (status === 'cancelled')
      return { type: 'failure', message: 'The task was cancelled', code: 'cancelled' };
    if (status === 'input_required' && isRecord(task.inputRequests)) {
      const { keys, ...form } = fromInputRequests(task.inputRequests);
      return {
        type: 'elicitation',
        ...form,
        async resume(values, ctx) {
          await rpc('tasks/update', { taskId, inputResponses: toInputResponses(keys, values) }, ctx);
          return { type: 'promise', token: taskId };
        },
      };
    }
    const poll = typeof task.pollIntervalMs === 'number' ? task.pollIntervalMs : 1000;
    return { type: 'promise', token: taskId, estimatedCompletion: new Date(Date.now() + poll).toISOString() };
  }

  function toOutcome(result: Record<string, unknown>): WireOutcome {
    return fromMcpResult(result);
  }

  async function call(
    name: string,
    args: Record<string, unknown>,
    ctx: WireContext,
    input?: Record<string, unknown>,
  ): Promise<WireOutcome> {
    if (!headerFields) await listTools(ctx);
    const extra: Record<string, string> = {};
    for (const { field, header } of headerFields?.get(name) ?? []) {
      if (args[field] !== undefined && args[field] !== null)
        extra[`mcp-param-${header}`] = headerValue(String(args[field]));
    }
    // The caller session an mcplite server gave this connection goes back in `_meta` (SessionJar).
    const meta = jar.into(undefined, MCP_SESSION_KEY);
    const params = { name, arguments: args, ...input, ...(meta ? { _meta: meta } : {}) };
    const result = await rpc('tools/call', params, ctx, extra);
    const r = isRecord(result) ? result : {};
    if (isRecord(r._meta)) jar.keep(r._meta[MCP_SESSION_KEY]);
    if (r.resultType === 'task' && typeof r.taskId === 'string') return fromTask(r, r.taskId);
    if (r.resultType === 'input_required' && isRecord(r.inputRequests)) {
      const { keys, ...form } = fromInputRequests(r.inputRequests);
      const requestState = r.requestState;
      return {
        type: 'elicitation',
        ...form,
        resume: (values, next) =>
          call(name, args, next, {
            inputResponses: toInputResponses(keys, values),
            ...(requestState !== undefined ? { requestState } : {}),
          }),
      };
    }
    return toOutcome(r);
  }

  return {
    binding: 'mcp',
    canWait: false,
    listTools,
    ...rpcCatalog((method, params, ctx) => rpc(method, params, ctx), limits),
    call: (name, args, ctx) => call(name, args, ctx),
    async redeem(token, _waitMs, ctx) {
      const task = await rpc('tasks/get', { taskId: token }, ctx);
      return fromTask(isRecord(task) ? task : {}, token);
    },
    async cancel(token, ctx) {
      // tasks/cancel answers {} on some servers: the task's state afterwards says what happened.
      let task = await rpc('tasks/cancel', { taskId: token }, ctx);
      if (!isRecord(task) || typeof task.status !== 'string')
        task = await rpc('tasks/get', { taskId: token }, ctx);
      const status = isRecord(task) && typeof task.status === 'string' ? task.status : undefined;
      return { token, cancelled: status === 'cancelled', ...(status ? { status } : {}) };
    },
    async close() {},
  };
}

/**
 * One stateless JSON-RPC exchange, sent again once when the server refuses the revision (-32022) but lists it
 * among the ones it supports (2026-07-28: the client retries at a version from `data.supported`; this client
 * speaks one stateless revision, so that is the retry it can make; one that does not list it fails as is).
 */
async function postRpc(...args: Parameters<typeof postOnce>): Promise<unknown> {
  try {
    return await postOnce(...args);
  } catch (err) {
    // A stream that broke before the response, with nothing to resume it from: a stateless request carries all
    // it needs, so it is sent again, once; but a tool call, which may have run already and is no one's to repeat.
    if (err instanceof McpLiteError && err.data?.reason === 'stream_broken' && args[2] !== 'tools/call')
      return await postOnce(...args);
    const supported =
      err instanceof McpLiteError && err.code === 'unsupported_version' && err.data?.supported;
    if (!Array.isArray(supported) || !supported.includes(STATELESS_REVISION)) throw err;
    return await postOnce(...args);
  }
}

/** Resumptions of one broken response stream before giving up. */
const MAX_RESUMES = 3;

function isSse(res: Response): boolean {
  return res.ok && (res.headers.get('content-type') ?? '').startsWith('text/event-stream');
}

/** One stateless JSON-RPC exchange: JSON back, or an SSE stream of notifications ending in the response. */
async function postOnce(
  url: string,
  headers: Record<string, string>,
  method: string,
  params: Record<string, unknown>,
  ctx: WireContext,
  id: number,
  limits: ClientLimits,
  send: HttpFetch,
  clientInfo?: { name: string; version: string },
): Promise<unknown> {
  // What `Mcp-Name` repeats: a task's id, a resource's URI, else the tool's or prompt's name.
  const name =
    method === 'resources/read' ? params.uri : method.startsWith('tasks/') ? params.taskId : params.name;
  const progressToken = ctx.onPartial && method === 'tools/call' ? `p${id}` : undefined;
  const body = {
    jsonrpc: '2.0',
    id,
    method,
    params: {
      ...params,
      _meta: {
        ...(isRecord(params._meta) ? params._meta : {}),
        'io.modelcontextprotocol/protocolVersion': STATELESS_REVISION,
        'io.modelcontextprotocol/clientCapabilities': {
          elicitation: {},
          // MCP Apps: the tools' views and app-only tools come listed; the adapters keep the latter from a model.
          extensions: { [TASKS]: {}, [APPS_EXTENSION]: APPS_CAPABILITY },
        },
        ...(clientInfo ? { 'io.modelcontextprotocol/clientInfo': clientInfo } : {}),
        ...(progressToken ? { progressToken } : {}),
        ...ctx.trace,
      },
    },
  };
  let res: Response;
  try {
    res = await send(url, {
      method: 'POST',
      headers: {
        ...headers,
        ...ctx.trace,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': STATELESS_REVISION,
        'mcp-method': method,
        ...(typeof name === 'string' && RESERVED_NAME.test(method) ? { 'mcp-name': headerValue(name) } : {}),
      },
      body: JSON.stringify(body),
      ...(ctx.signal ? { signal: ctx.signal } : {}),
    });
    if (isSse(res) && res.body) {
      let stream: ReadableStream<Uint8Array> = res.body;
      let lastId: string | undefined;
      for (let resumed = 0; ; resumed++) {
        try {
          for await (const ev of readSse(stream, limits)) {
            if (ev.id) lastId = ev.id;
            const msg = JSON.parse(ev.data) as Record<string, unknown>;
            if (msg.method === 'notifications/progress' && isRecord(msg.params)) {
              const { progressToken: _t, ...progress } = msg.params;
              ctx.onPartial?.(progress);
            } else if (msg.id === id) return settle(msg);
          }
        } catch (err) {
          // A bound, a deadline or a bad event ends the call; a connection that broke is what resuming is for.
          if (err instanceof McpLiteError || err instanceof SyntaxError || ctx.signal?.aborted) throw err;
        }
        // Ended without the response: resumed from the last event id the server gave (GET with Last-Event-ID,
        // as Streamable HTTP says), a few times; without one there is nothing to resume.
        if (lastId === undefined || resumed >= MAX_RESUMES) break;
        const again = await send(url, {
          method: 'GET',
          headers: {
            ...headers,
            accept: 'text/event-stream',
            'mcp-protocol-version': STATELESS_REVISION,
            'last-event-id': lastId,
          },
          ...(ctx.signal ? { signal: ctx.signal } : {}),
        });
        if (!again.ok || !isSse(again) || !again.body) {
          await again.body?.cancel().catch(() => {});
          break;
        }
        stream = again.body;
      }
      throw new McpLiteError('unavailable', 'The server ended the stream without a response', {
        reason: 'stream_broken',
      });
    }
    // Auth refusals before the body: an OAuth error object (`{"error": "invalid_token"}`) is not a JSON-RPC error.
    return settle(await readJsonReply(res, limits.maxResponseBytes));
  } catch (err) {
    throw toClientError(err, ctx.signal);
  }
}

function settle(msg: unknown): unknown {
  if (isRecord(msg) && 'error' in msg) throw fromJsonRpcError(msg.error);
  if (!isRecord(msg) || !('result' in msg)) throw new McpLiteError('internal', 'Not a JSON-RPC response');
  return msg.result;
}

/**
 * The tool's arguments that go in `Mcp-Param-*` headers too (`x-mcp-header` in the input schema); undefined when
 * a mark is invalid: empty or not an HTTP token, on a type other than string, integer or boolean, or repeated
 * (case-insensitively).
 */
function paramHeaders(schema: unknown): Array<{ field: string; header: string }> | undefined {
  const props = isRecord(schema) && isRecord(schema.properties) ? schema.properties : {};
  const out: Array<{ field: string; header: string }> = [];
  for (const [field, def] of Object.entries(props)) {
    if (!isRecord(def) || !('x-mcp-header' in def)) continue;
    const h = def['x-mcp-header'];
    if (typeof h !== 'string' || !/^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/.test(h)) return undefined;
    if (!['string', 'integer', 'boolean'].includes(def.type as string)) return undefined;
    if (out.some((o) => o.header === h.toLowerCase())) return undefined;
    out.push({ field, header: h.toLowerCase() });
  }
  return out;
}

/** A header-safe value: printable ASCII as is, anything else as `=?base64?…?=` (SEP-2243). */
function headerValue(value: string): string {
  return /^[\x20-\x7e]*$/.test(value) && value.trim() === value
    ? value
    : `=?base64?${Buffer.from(value, 'utf8').toString('base64')}?=`;
}
