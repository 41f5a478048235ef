import { readSse } from '../../client/sse.js';
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
import { liteOutcome } from './received-outcome.js';
import { readText, type Transport } from './transport.js';

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

/**
 * The inspector's target for MCP-lite HTTP (docs/wire-format.md): `listtools`, and `calltools` with JSON-RPC
 * `tools/call`, asked as SSE when the page wants partials. Each round returns the raw request and response.
 */
export function createMcpLiteHttpTarget(options: McpLiteHttpTargetOptions): InspectorTarget {
  const { transport } = options;
  const maxBytes = options.maxResponseBytes ?? MAX_RESPONSE_BYTES;
  const maxShown = options.maxShownStreamBytes ?? 256 * 1024;
  let nextId = 1;

  async function round(
    endpoint: string,
    body: unknown,
    accept: string,
    opts: RoundOptions,
    onPartial?: (data: unknown) => void,
  ): Promise<{ exchange: Exchange; result?: Record<string, unknown>; error?: ProtocolError }> {
    const headers = { accept, ...options.headers, ...opts.headers };
    const request = { method: 'POST', endpoint, headers: { ...redacted(headers) }, body };
    opts.onRequest?.(request);
    const exchange: Exchange = { request };
    let raw: Awaited<ReturnType<Transport>>;
    try {
      raw = await transport(endpoint, JSON.stringify(body), {
        headers,
        signal: opts.signal,
        remoteAddress: opts.remoteAddress,
      });
    } catch (err) {
      const error = { code: 'transport', message: `Request failed: ${(err as Error).message}` };
      exchange.response = { error: error.message };
      return { exchange, error };
    }
    if (raw.contentType.startsWith('text/event-stream')) {
      return { exchange, ...(await readStream(raw, exchange, onPartial)) };
    }
    let text: string;
    try {
      text = await readText(raw.body, maxBytes);
    } catch (err) {
      const error =
        err instanceof McpLiteError && err.code === 'payload_too_large'
          ? tooLarge(maxBytes)
          : { code: 'transport', message: (err as Error).message, status: raw.status };
      exchange.response = { status: raw.status, error: error.message };
      return { exchange, error };
    }
    const parsed = parseJson(text);
    exchange.response = { status: raw.status, contentType: raw.contentType, body: parsed ?? text };
    return { exchange, ...fromJson(parsed, raw.status) };
  }

  /** Reads an SSE answer: partials as they come, then `done` (the result) or `error`. */
  async function readStream(
    raw: Awaited<ReturnType<Transport>>,
    exchange: Exchange,
    onPartial: ((data: unknown) => void) | undefined,
  ): Promise<{ result?: Record<string, unknown>; error?: ProtocolError }> {
    let shown = '';
    let omitted = 0;
    let result: Record<string, unknown> | undefined;
    let error: ProtocolError | undefined;
    const encoder = new TextEncoder();
    const decoder = new TextDecoder();
    let size = 0;
    // What the page shows of the stream, kept as it passes to the client's bounded SSE reader.
    async function* shownAsRead(): AsyncGenerator<Uint8Array> {
      for await (const chunk of raw.body) {
        const bytes = typeof chunk === 'string' ? encoder.encode(chunk) : chunk;
        size += bytes.byteLength;
        const text = typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true });
        if (shown.length < maxShown) shown += text.slice(0, maxShown - shown.length);
        else omitted += text.length;
        yield bytes;
      }
    }
    try {
      // The whole stream counts against the cap, not only what is shown (`maxStreamBytes`), and so does one event
      // (`maxResponseBytes`): every partial goes on to the page, so an endless stream would otherwise fill this process.
      for await (const message of readSse(shownAsRead(), {
        maxResponseBytes: maxBytes,
        maxStreamBytes: maxBytes,
      })) {
        const data = parseJson(message.data);
        if (message.event === 'message')
          onPartial?.((data as { partial?: unknown } | undefined)?.partial ?? data);
        else if (message.event === 'done') result = asObject(data);
        else if (message.event === 'error') error = asError(data, raw.status);
        if (result || error) break;
      }
    } catch (err) {
      error ??=
        err instanceof McpLiteError && err.code === 'payload_too_large'
          ? tooLarge(maxBytes)
          : { code: 'transport', message: `The stream broke: ${(err as Error).message}` };
    }
    exchange.response = {
      status: raw.status,
      contentType: raw.contentType,
      events: shown + (omitted > 0 ? `\n… ${omitted} more characters not shown` : ''),
    };
    if (!result && !error) {
      error = { code: 'transport', message: `The stream ended without a result (${size} bytes read)` };
    }
    return { ...(result ? { result } : {}), ...(error ? { error } : {}) };
  }

  async function callRound(
    name: string,
    args: Record<string, unknown>,
    opts: TargetCallOptions,
    elicitation?: { state: string; answers: unknown },
  ): Promise<TargetReply> {
    const body = {
      jsonrpc: '2.0',
      id: nextId++,
      method: 'tools/call',
      params: { name, arguments: args, ...(elicitation ? { elicitation } : {}) },
    };
    const accept = opts.onPartial ? 'text/event-stream, application/json' : 'application/json';
    const { exchange, result, error } = await round('calltools', body, accept, opts, opts.onPartial);
    if (error || !result) {
      return {
        outcome: { type: 'error', error: error ?? { code: 'transport', message: 'No result' } },
        exchange,
      };
    }
    const outcome = liteOutcome(result);
    const meta = asObject(result._meta);
    const reply: TargetReply = { outcome, exchange, ...(meta ? { meta } : {}) };
    const wire = asObject(result.elicitation);
    if (outcome.type === 'elicitation' && typeof wire?.state === 'string') {
      const state = wire.state;
      reply.continue = (values, next = {}) => callRound(name, args, next, { state, answers: values });
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
      return { ...tool, _meta: { ...(asObject(wire) ?? {}), ...meta } } as WireTool;
    });
  }

  return {
    binding: 'mcp-lite-http',
    target: options.target,
    ...(options.readResource ? { readResource: options.readResource } : {}),
    async listTools(opts = {}) {
      const { exchange, result, error } = await round('listtools', {}, 'application/json', opts);
      const tools = (exchange.response as { body?: { tools?: unknown } } | undefined)?.body?.tools;
      if (error || !Array.isArray(tools)) {
        throw new TargetError(
          error ?? { code: 'protocol', message: 'The listing has no "tools" array', data: result },
          exchange,
        );
      }
      return { tools: withMeta(tools as WireTool[]), exchange };
    },
    // Prompts (spec 8.1) on their own route: `{}` lists them, `{ name, arguments }` renders one.
    async listPrompts(opts = {}) {
      const { exchange, result, error } = await round('prompts', {}, 'application/json', opts);
      if (error || !Array.isArray(result?.prompts))
        throw new TargetError(
          error ?? { code: 'protocol', message: 'The listing has no "prompts" array' },
          exchange,
        );
      return { prompts: result.prompts as WirePrompt[], exchange };
    },
    async getPrompt(name, args, opts = {}) {
      const body = { name, arguments: args };
      const { exchange, result, error } = await round('prompts', body, 'application/json', opts);
      if (error || !Array.isArray(result?.messages))
        throw new TargetError(
          error ?? { code: 'protocol', message: 'The prompt has no "messages" array' },
          exchange,
        );
      return { prompt: result as unknown as RenderedPrompt, exchange };
    },
    call: (name, args, opts = {}) => callRound(name, args, opts),
    redeem: (token, opts = {}) =>
      callRound('redeem', { promise: token, ...(opts.waitMs ? { wait_ms: opts.waitMs } : {}) }, opts),
    cancel: (token, opts = {}) => callRound('cancel', { promise: token }, opts),
    async close() {},
  };
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

/** A JSON-RPC response (or a listing) as a result or a protocol error. */
function fromJson(
  body: unknown,
  status: number,
): { result?: Record<string, unknown>; error?: ProtocolError } {
  const message = asObject(body);
  if (!message) {
    return {
      error: { code: status >= 400 ? status : 'protocol', message: `HTTP ${status}: not JSON`, status },
    };
  }
  if ('error' in message) return { error: asError(message.error, status) };
  if ('result' in message) return { result: asObject(message.result) ?? {} };
  if (status >= 400) return { error: { code: status, message: `HTTP ${status}`, status } };
  // A listing (`{ tools }`) is not JSON-RPC: the caller reads it from the exchange.
  return { result: message };
}

function asError(value: unknown, status: number): ProtocolError {
  const e = asObject(value) ?? {};
  return {
    code: typeof e.code === 'number' || typeof e.code === 'string' ? e.code : 'protocol',
    message: typeof e.message === 'string' ? e.message : 'Unknown error',
    ...(e.data !== undefined ? { data: e.data } : {}),
    ...(status >= 400 ? { status } : {}),
  };
}

function asObject(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Headers as shown on the page: a credential is never echoed back, only that one was sent. */
function redacted(headers: Readonly<Record<string, string>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) out[k] = k.toLowerCase() === 'authorization' ? 'Bearer …' : v;
  return out;
}
