import { McpLiteError } from '../core/errors.js';
import { toPrompt, toRenderedPrompt } from './catalog-wire.js';
import { fetchWithinOrigin, type HttpFetch, readJsonReply } from './http-fetch.js';
import type { ClientLimits } from './limits.js';
import { fromLiteResult, type LiteAnswer, liteMetaOf, toToolInfo } from './lite-result.js';
import { SessionJar } from './session-jar.js';
import { readSse } from './sse.js';
import type { Transport, WireContext, WireOutcome } from './transport.js';
import type { CancelResult, ToolInfo } from './types.js';
import { fromHttpStatus, fromJsonRpcError, isRecord, toClientError } from './wire-errors.js';

/**
 * MCP-lite HTTP (docs/wire-format.md): POST `listtools` and `calltools` under the base URL, JSON-RPC inside,
 * SSE when partials are wanted. Plain fetch (keep-alive comes with Node's), redirects only within the origin,
 * and every body read under `limits`.
 */
export function httpTransport(
  baseUrl: string,
  headers: Record<string, string>,
  limits: ClientLimits,
  send: HttpFetch = fetchWithinOrigin,
  /** Where the connection keeps the caller session (`ConnectOptions.keepSession`). */
  jar: SessionJar = new SessionJar(),
): Transport {
  const base = baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`;
  let nextId = 1;

  async function post(path: string, body: unknown, ctx: WireContext, sse: boolean): Promise<Response> {
    try {
      return await (ctx.fetch ?? send)(base + path, {
        method: 'POST',
        headers: {
          ...headers,
          ...ctx.trace,
          'content-type': 'application/json',
          accept: sse ? 'text/event-stream, application/json' : 'application/json',
        },
        body: JSON.stringify(body),
        ...(ctx.signal ? { signal: ctx.signal } : {}),
      });
    } catch (err) {
      throw toClientError(err, ctx.signal);
    }
  }

  async function rpc(
    name: string,
    args: Record<string, unknown>,
    ctx: WireContext,
    extra?: Record<string, unknown>,
  ): Promise<WireOutcome> {
    // The caller session the server gave this connection goes back in `_meta.session` (SessionJar).
    const meta = jar.into(ctx.trace, 'session');
    const body = {
      jsonrpc: '2.0',
      id: nextId++,
      method: 'tools/call',
      params: { name, arguments: args, ...extra, ...(meta ? { _meta: meta } : {}) },
    };
    const res = await post('calltools', body, ctx, ctx.onPartial !== undefined);
    const resume = (answer: LiteAnswer, next: WireContext) => rpc(name, args, next, { elicitation: answer });
    try {
      if (res.ok && (res.headers.get('content-type') ?? '').startsWith('text/event-stream') && res.body) {
        for await (const ev of readSse(res.body, limits)) {
          if (ev.event === 'message') ctx.onPartial?.((JSON.parse(ev.data) as { partial?: unknown }).partial);
          else if (ev.event === 'done') return resultOutcome(JSON.parse(ev.data), resume, jar, ctx);
          else if (ev.event === 'error') throw fromJsonRpcError(JSON.parse(ev.data));
        }
        throw new McpLiteError('unavailable', 'The server ended the stream without a result');
      }
      const reply = await readJsonReply(res, limits.maxResponseBytes);
      if (isRecord(reply) && 'error' in reply) throw fromJsonRpcError(reply.error);
      if (!isRecord(reply) || !isRecord(reply.result)) throw fromHttpStatus(res.status, '');
      return resultOutcome(reply.result, resume, jar, ctx);
    } catch (err) {
      throw toClientError(err, ctx.signal);
    }
  }

  /** One exchange with the `prompts` endpoint (spec 8.1): `{}` lists, `{ name, arguments }` renders. */
  async function prompts(body: Record<string, unknown>, ctx: WireContext): Promise<unknown> {
    const res = await post('prompts', body, ctx, false);
    const reply = await readJsonReply(res, limits.maxResponseBytes).catch((err) => {
      throw toClientError(err, ctx.signal);
    });
    if (isRecord(reply) && 'error' in reply) throw fromJsonRpcError(reply.error);
    if (!res.ok) throw fromHttpStatus(res.status, '');
    return reply;
  }

  return {
    binding: 'mcp-lite-http',
    canWait: true,
    async listPrompts(ctx) {
      const reply = await prompts({}, ctx);
      if (!isRecord(reply) || !Array.isArray(reply.prompts))
        throw new McpLiteError('internal', 'The server answered prompts without a prompt listing');
      return reply.prompts.filter(isRecord).flatMap((raw) => toPrompt(raw) ?? []);
    },
    async getPrompt(name, args, ctx) {
      return toRenderedPrompt(await prompts({ name, arguments: args }, ctx));
    },
    async listTools(ctx): Promise<ToolInfo[]> {
      const res = await post('listtools', {}, ctx, false);
      const reply = await readJsonReply(res, limits.maxResponseBytes).catch((err) => {
        throw toClientError(err, ctx.signal);
      });
      if (isRecord(reply) && 'error' in reply) throw fromJsonRpcError(reply.error);
      const tools = isRecord(reply) ? reply.tools : undefined;
      if (!Array.isArray(tools)) throw fromHttpStatus(res.status, 'not an MCP-lite tool listing');
      return tools.filter(isRecord).map(toToolInfo);
    },
    call: (name, args, ctx) => rpc(name, args, ctx),
    ...promiseToolCalls(rpc),
    async close() {},
  };
}

/** The `cancel` system tool's answer (`{promise, cancelled, status}`) as a CancelResult. */
function cancelResult(token: string, outcome: WireOutcome): CancelResult {
  const v = outcome.type === 'answer' && isRecord(outcome.value) ? outcome.value : {};
  return {
    token,
    cancelled: v.cancelled === true,
    ...(typeof v.status === 'string' ? { status: v.status } : {}),
  };
}

/**
 * A transport's `redeem` and `cancel` as calls of the server's `redeem` and `cancel` system tools, which every
 * wire but MCP's tasks reaches promises through: `call` is the transport's own tool call.
 */
export function promiseToolCalls(
  call: (name: string, args: Record<string, unknown>, ctx: WireContext) => Promise<WireOutcome>,
): Pick<Transport, 'redeem' | 'cancel'> {
  return {
    redeem: (token, waitMs, ctx) =>
      call('redeem', { promise: token, ...(waitMs > 0 ? { wait_ms: waitMs } : {}) }, ctx),
    cancel: async (token, ctx) => cancelResult(token, await call('cancel', { promise: token }, ctx)),
  };
}

function resultOutcome(
  result: unknown,
  resume: Parameters<typeof fromLiteResult>[2],
  jar: SessionJar,
  ctx: WireContext,
): WireOutcome {
  const fields = isRecord(result) ? result : {};
  ctx.onResult?.(fields);
  const meta = isRecord(fields._meta) ? fields._meta : {};
  jar.keep(meta.session);
  return fromLiteResult(fields, liteMetaOf(meta), resume);
}
