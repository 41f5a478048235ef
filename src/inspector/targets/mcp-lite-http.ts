import { httpTransport } from '../../client/http-transport.js';
import { limitsOf } from '../../client/limits.js';
import { SessionJar } from '../../client/session-jar.js';
import type { Transport as ClientTransport, WireContext, WireOutcome } from '../../client/transport.js';
import { isRecord } from '../../client/wire-errors.js';
import { McpLiteError } from '../../core/errors.js';
import type { RenderedPrompt, WirePrompt } from '../../core/prompts.js';
import type { WireTool } from '../../core/tool.js';
import {
  type Exchange,
  type InspectorTarget,
  MAX_RESPONSE_BYTES,
  type ProtocolError,
  type RoundOptions,
  type TargetCallOptions,
  TargetError,
  type TargetReply,
} from '../target.js';
import { toInspectorOutcome } from './received-outcome.js';
import { RoundRecord, recordingFetch } from './recording-fetch.js';
import type { Transport } from './transport.js';

/** Options of the MCP-lite HTTP target. */
export interface McpLiteHttpTargetOptions {
  /** How requests reach the binding: over the network (`fetchTransport`) or in process (`handlerTransport`). */
  transport: Transport;
  /** The base URL the user gave (for display and copy-as), or undefined for the server the inspector is on. */
  target?: string;
  /** Headers sent with every request (an `Authorization` given on the command line). */
  headers?: Readonly<Record<string, string>>;
  /** Largest response read, in bytes: a JSON body, or a whole SSE stream. Default 16 MiB. */
  maxResponseBytes?: number;
  /** Most bytes of a streamed (SSE) response kept for display; the rest is counted, not kept. Default 256 KiB. */
  maxShownStreamBytes?: number;
  /**
   * `resources/read` by another way than the wire (MCP-lite carries no resources): `serve` passes its server's own
   * read, so that the inspector on a server can render the server's MCP Apps views.
   */
  readResource?: (uri: string, options: RoundOptions) => Promise<unknown[]>;
  /**
   * The `_meta` a listed tool gets on top of what the wire sent (MCP-lite lists no MCP Apps `_meta.ui`): `serve`
   * passes its catalog's, so that the page knows which tools render a view. Only tools the listing holds get it,
   * so what the server hides from the caller stays hidden.
   */
  toolMeta?: (name: string) => Record<string, unknown> | undefined;
}

/** The base the client's transport is made with: the inspector's `Transport` takes the endpoint name only. */
const BASE = 'http://mcp-lite.invalid/';

/**
 * The inspector's target for MCP-lite HTTP (docs/wire-format.md): the client's own MCP-lite HTTP transport
 * (`client/http-transport.ts`), each round sent through a fetch that records the exchange as it passes, so the
 * page shows the wire while the request and its reading are the client's.
 */
export function createMcpLiteHttpTarget(options: McpLiteHttpTargetOptions): InspectorTarget {
  const maxBytes = options.maxResponseBytes ?? MAX_RESPONSE_BYTES;
  const maxShown = options.maxShownStreamBytes ?? 256 * 1024;
  const limits = limitsOf({ maxResponseBytes: maxBytes, maxStreamBytes: maxBytes });
  // Every round brings its own fetch (`WireContext.fetch`); this one is never reached.
  const unrouted = () => Promise.reject(new McpLiteError('internal', 'An inspector round without its fetch'));
  const client: ClientTransport = httpTransport(
    BASE,
    { ...options.headers },
    limits,
    unrouted,
    new SessionJar(),
  );

  /** One round: the client's exchange through a recording fetch, and what it read or the error it raised. */
  async function round<T>(
    opts: RoundOptions & { onPartial?: (data: unknown) => void },
    exchangeOf: (client: ClientTransport, ctx: WireContext) => Promise<T>,
  ): Promise<{
    exchange: Exchange;
    record: RoundRecord;
    value?: T;
    error?: ProtocolError;
    result?: Record<string, unknown>;
  }> {
    const record = new RoundRecord(maxShown);
    let result: Record<string, unknown> | undefined;
    const ctx: WireContext = {
      fetch: recordingFetch(options.transport, record, opts),
      onResult: (fields) => {
        result = fields;
      },
      ...(opts.signal ? { signal: opts.signal } : {}),
      ...(opts.onPartial ? { onPartial: opts.onPartial } : {}),
    };
    try {
      const value = await exchangeOf(client, ctx);
      return { exchange: exchangeShown(record), record, value, ...(result ? { result } : {}) };
    } catch (err) {
      const error = protocolError(err, record, maxBytes);
      const exchange = exchangeShown(record, error);
      return { exchange, record, error };
    }
  }

  async function callRound(
    opts: TargetCallOptions,
    send: (ctx: WireContext) => Promise<WireOutcome>,
  ): Promise<TargetReply> {
    const { exchange, value, error, result } = await round(opts, (_client, ctx) => send(ctx));
    if (!value) return { outcome: { type: 'error', error: error ?? noResult() }, exchange };
    const meta = isRecord(result?._meta) ? result._meta : undefined;
    const reply: TargetReply = { outcome: toInspectorOutcome(value), exchange, ...(meta ? { meta } : {}) };
    if (value.type === 'elicitation') {
      const elicitation = value;
      reply.continue = (values, next = {}) =>
        callRound(next, (ctx) => elicitation.resume(values as Record<string, unknown> | undefined, ctx));
    }
    return reply;
  }

  function withMeta(tools: WireTool[]): WireTool[] {
    const { toolMeta } = options;
    if (!toolMeta) return tools;
    return tools.map((tool) => {
      const meta = typeof tool?.name === 'string' ? toolMeta(tool.name) : undefined;
      if (!meta) return tool;
      const wire = (tool as { _meta?: unknown })._meta;
      return { ...tool, _meta: { ...(isRecord(wire) ? wire : {}), ...meta } } as WireTool;
    });
  }

  /** The body of a listing or a rendering as it came, for the page (the client's reading keeps less of it). */
  function bodyOf(record: RoundRecord): Record<string, unknown> {
    const body = record.json();
    return isRecord(body) ? body : {};
  }

  return {
    binding: 'mcp-lite-http',
    target: options.target,
    ...(options.readResource ? { readResource: options.readResource } : {}),
    async listTools(opts = {}) {
      const { exchange, record, error } = await round(opts, (c, ctx) => c.listTools(ctx));
      const tools = bodyOf(record).tools;
      if (error || !Array.isArray(tools)) {
        throw new TargetError(shapeError(error, 'The listing has no "tools" array'), exchange);
      }
      return { tools: withMeta(tools as WireTool[]), exchange };
    },
    // Prompts (spec 8.1) on their own route: `{}` lists them, `{ name, arguments }` renders one.
    async listPrompts(opts = {}) {
      const { exchange, record, error } = await round(opts, (c, ctx) => c.listPrompts!(ctx));
      const prompts = bodyOf(record).prompts;
      if (error || !Array.isArray(prompts))
        throw new TargetError(shapeError(error, 'The listing has no "prompts" array'), exchange);
      return { prompts: prompts as WirePrompt[], exchange };
    },
    async getPrompt(name, args, opts = {}) {
      const { exchange, record, error } = await round(opts, (c, ctx) => c.getPrompt!(name, args, ctx));
      const body = bodyOf(record);
      if (error || !Array.isArray(body.messages))
        throw new TargetError(shapeError(error, 'The prompt has no "messages" array'), exchange);
      return { prompt: body as unknown as RenderedPrompt, exchange };
    },
    call: (name, args, opts = {}) => callRound(opts, (ctx) => client.call(name, args, ctx)),
    redeem: (token, opts = {}) =>
      callRound(opts, (ctx) =>
        client.call('redeem', { promise: token, ...(opts.waitMs ? { wait_ms: opts.waitMs } : {}) }, ctx),
      ),
    cancel: (token, opts = {}) => callRound(opts, (ctx) => client.call('cancel', { promise: token }, ctx)),
    async close() {},
  };
}

/** A body of the wrong shape, said as the page words it, unless the wire or the transport gave an error of its own. */
function shapeError(error: ProtocolError | undefined, message: string): ProtocolError {
  return error && error.code !== 'protocol' ? error : { code: 'protocol', message };
}

function noResult(): ProtocolError {
  return { code: 'transport', message: 'No result' };
}

/** The exchange as the page shows it: the request, and the response as read (or why none was). */
function exchangeShown(record: RoundRecord, error?: ProtocolError): Exchange {
  const exchange: Exchange = { request: record.request };
  if (record.failed !== undefined) exchange.response = { error: record.failed };
  else if (error?.code === 'payload_too_large')
    exchange.response = { status: record.status, error: error.message };
  else if (record.streamed) {
    const more = record.omitted > 0 ? `\n… ${record.omitted} more characters not shown` : '';
    exchange.response = {
      status: record.status,
      contentType: record.contentType,
      events: record.text + more,
    };
  } else if (record.answered) {
    exchange.response = {
      status: record.status,
      contentType: record.contentType,
      body: record.json() ?? record.text,
    };
  }
  return exchange;
}

/**
 * What the client raised, as the page shows it: the wire's own error where the server wrote one (its JSON-RPC
 * code, not the client's name for it), the inspector's bound, or what kept a reply from being read.
 */
function protocolError(err: unknown, record: RoundRecord, maxBytes: number): ProtocolError {
  const e = err instanceof McpLiteError ? err : new McpLiteError('internal', String(err));
  const status = record.status;
  if (record.failed !== undefined || !record.answered)
    return { code: 'transport', message: record.failed ?? e.message };
  if (e.code === 'payload_too_large' && e.data?.reason === 'client_bound') return tooLarge(maxBytes);
  if (record.streamed) {
    const { wire_code: wire, ...data } = e.data ?? {};
    if (typeof wire === 'number')
      return {
        code: wire,
        message: e.message,
        ...(Object.keys(data).length ? { data } : {}),
        ...(status >= 400 ? { status } : {}),
      };
    if (e.message.includes('without a result'))
      return { code: 'transport', message: `The stream ended without a result (${record.bytes} bytes read)` };
    return { code: 'transport', message: `The stream broke: ${e.message}` };
  }
  const body = record.json();
  if (!isRecord(body))
    return { code: status >= 400 ? status : 'protocol', message: `HTTP ${status}: not JSON`, status };
  if ('error' in body) return wireError(body.error, status);
  if (status >= 400) return { code: status, message: `HTTP ${status}`, status };
  return { code: 'protocol', message: e.message };
}

/** The error a response past the inspector's cap becomes: the page shows it instead of the (unread) rest. */
function tooLarge(maxBytes: number): ProtocolError {
  return {
    code: 'payload_too_large',
    message: `The target's response is larger than ${sizeLabel(maxBytes)}, the most the inspector reads; the rest was not read`,
    data: { maxResponseBytes: maxBytes },
  };
}

/** Bytes as a person reads them: "16 MiB" rather than 16777216. */
export function sizeLabel(bytes: number): string {
  const mib = bytes / (1024 * 1024);
  return Number.isInteger(mib) ? `${mib} MiB` : `${bytes} bytes`;
}

function wireError(value: unknown, status: number): ProtocolError {
  const e = isRecord(value) ? value : {};
  return {
    code: typeof e.code === 'number' || typeof e.code === 'string' ? e.code : 'protocol',
    message: typeof e.message === 'string' ? e.message : 'Unknown error',
    ...(e.data !== undefined ? { data: e.data } : {}),
    ...(status >= 400 ? { status } : {}),
  };
}
