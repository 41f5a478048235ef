import type { Principal } from '../../../core/auth.js';
import { McpLiteError, toMcpLiteError } from '../../../core/errors.js';
import type { NeutralHandler, NeutralRequest, NeutralResponse } from '../../../core/http.js';
import { type MaybePromise, mapMaybe } from '../../../core/maybe-promise.js';
import type { ToolServer } from '../../../core/server.js';
import { admitThen } from '../../common/admit.js';
import { BindingCaller } from '../../common/binding-call.js';
import { errorExit } from '../../common/error-exit.js';
import {
  accepted,
  errorHeaders,
  JSON_HEADERS,
  jsonHttpResponse,
  MESSAGE_HTTP_STATUS,
  wantsEventStream,
} from '../../common/http-reply.js';
import { assertJsonBodyHeaders, parseJsonBody } from '../../common/json-body.js';
import { idOf, type JsonRpcRequest, validateRequest } from '../../common/jsonrpc.js';
import type { StreamBoundOptions } from '../../common/outbound-stream.js';
import { listPrompts, renderPrompt } from '../../common/prompts.js';
import { createMcpLiteRpc, resultResponse } from '../methods.js';
import { HTTP_STATUS, rpcErrorMessage } from '../wire.js';
import { normaliseBase } from './base-path.js';
import { streamCall } from './sse.js';

/** The binding's one name (`op.caller.binding`, `ctx.binding`, logs, metrics). */
const BINDING = 'http';

/** Options of the MCP-lite HTTP binding. */
export interface McpLiteHttpBindingOptions extends StreamBoundOptions {
  /** Where the endpoints live. Default `/mcp-lite/v1/`. */
  basePath?: string;
  /** Largest accepted request body in bytes. Default 4 MiB. */
  maxBodyBytes?: number;
  /** Idle time after which an SSE stream gets a `heartbeat` event, in ms. Default 15 000. */
  heartbeatMs?: number;
  /** Most messages in one JSON-RPC batch. Default 100. */
  maxBatchSize?: number;
}

/**
 * The MCP-lite HTTP binding (spec section 4): POST `listtools`/`tools` answer `{ "tools": [...] }`;
 * POST `calltools`/`rpc` take JSON-RPC 2.0 (`tools/call`, `tools/list`, batches, notifications), answered as
 * JSON or, with `Accept: text/event-stream`, as an SSE stream. Returns undefined for paths outside `basePath`.
 */
export function createMcpLiteHttpBinding(
  server: ToolServer,
  options: McpLiteHttpBindingOptions = {},
): NeutralHandler {
  const base = normaliseBase(options.basePath ?? '/mcp-lite/v1/');
  const maxBody = options.maxBodyBytes ?? 4 * 1024 * 1024;
  const heartbeatMs = options.heartbeatMs ?? 15_000;
  const rpcs = createMcpLiteRpc(server, { maxBatchSize: options.maxBatchSize, binding: 'http' });
  const log = rpcs.log;

  // Declines other paths at once (no promise), so that composed bindings behind this one pay nothing for it.
  return (request) => (request.path.startsWith(base) ? handle(request) : undefined);

  /**
   * Answers one request. Not an async function, and the steps after the body is read run synchronously when the
   * tool's handler does: each await would cost every request more promise turns.
   */
  function handle(request: NeutralRequest): Promise<NeutralResponse> {
    let endpoint = request.path.slice(base.length);
    if (endpoint.endsWith('/')) endpoint = endpoint.slice(0, -1);
    // Compared directly rather than looked up in a Set: `endpoint` is a fresh string, which a Set would hash.
    const kind: Endpoint | undefined =
      endpoint === 'calltools' || endpoint === 'rpc'
        ? 'rpc'
        : endpoint === 'listtools' || endpoint === 'tools'
          ? 'list'
          : endpoint === 'prompts'
            ? 'prompts'
            : undefined;
    if (kind === undefined) {
      return Promise.resolve(failWith(new McpLiteError('method_not_found', `Not found: ${request.path}`)));
    }
    if (request.method !== 'POST') {
      const e = new McpLiteError('method_not_allowed', `Method ${request.method} not allowed: use POST`);
      return Promise.resolve(failWith(e, { allow: 'POST' }));
    }
    return admitThen(server, request, (principal) => readAndRespond(request, kind, principal), failWith);
  }

  /** Checks the body's headers, reads it and answers; never rejects (errors become error responses). */
  function readAndRespond(
    request: NeutralRequest,
    kind: Endpoint,
    principal: Principal | undefined,
  ): Promise<NeutralResponse> {
    let bytes: Promise<Uint8Array>;
    try {
      assertJsonBodyHeaders(request.headers);
      bytes = request.readBody(maxBody);
    } catch (err) {
      return Promise.resolve(failWith(err));
    }
    return bytes.then((bytes) => {
      try {
        const body = parseJsonBody(bytes);
        const response =
          kind === 'rpc'
            ? rpc(body, request, principal)
            : kind === 'list'
              ? listTools(body, request, principal)
              : prompts(body, request, principal);
        return response instanceof Promise ? response.then(undefined, failWith) : response;
      } catch (err) {
        return failWith(err);
      }
    }, failWith);
  }

  /** A whole-request error, with the status of its code, through the one error exit. */
  function failWith(thrown: unknown, extraHeaders?: Record<string, string>): NeutralResponse {
    const err = errorExit(thrown, log);
    return jsonHttpResponse(
      HTTP_STATUS[err.code],
      rpcErrorMessage(null, err),
      errorHeaders(err, extraHeaders),
    );
  }

  function listTools(
    body: unknown,
    request: NeutralRequest,
    principal: Principal | undefined,
  ): MaybePromise<NeutralResponse> {
    if (typeof body !== 'object' || body === null || Array.isArray(body)) {
      throw new McpLiteError('invalid_request', 'Invalid Request: send an empty JSON object {}');
    }
    return mapMaybe(server.listToolsFor(new BindingCaller(BINDING, request, principal)), (l) => ({
      status: 200,
      headers: JSON_HEADERS,
      body: l.json,
    }));
  }

  /**
   * POST `prompts` (spec 8.1, sketched there): `{}` lists the prompts as `{ "prompts": [...] }`; `{ name,
   * arguments }` renders one as `{ description?, messages }`. Unknown prompts and bad arguments are 400.
   */
  async function prompts(
    body: unknown,
    request: NeutralRequest,
    principal: Principal | undefined,
  ): Promise<NeutralResponse> {
    if (typeof body !== 'object' || body === null || Array.isArray(body)) {
      throw new McpLiteError(
        'invalid_request',
        'Invalid Request: send {} to list prompts or { name, arguments }',
      );
    }
    const { name, arguments: args } = body as { name?: unknown; arguments?: unknown };
    const caller = new BindingCaller(BINDING, request, principal);
    if (name === undefined) {
      const listed = await listPrompts(server, caller);
      return { status: 200, headers: JSON_HEADERS, body: JSON.stringify({ prompts: listed }) };
    }
    const rendered = await renderPrompt(server, caller, name, args, request.signal);
    return { status: 200, headers: JSON_HEADERS, body: JSON.stringify(rendered) };
  }

  function rpc(
    body: unknown,
    request: NeutralRequest,
    principal: Principal | undefined,
  ): MaybePromise<NeutralResponse> {
    if (Array.isArray(body)) return batch(body, request, principal);
    let message: JsonRpcRequest;
    try {
      message = validateRequest(body);
    } catch (err) {
      // A lone message that is not JSON-RPC fails the whole request (400); inside a batch it is answered in place.
      const e = toMcpLiteError(err);
      return { status: 400, headers: JSON_HEADERS, body: rpcErrorMessage(idOf(body, e), e) };
    }
    if (wantsEventStream(request.headers.accept) && isStreamable(message)) {
      return stream(message, request, principal);
    }
    return rpcs.answer(message, request, principal, loneReply);
  }

  async function batch(
    messages: unknown[],
    request: NeutralRequest,
    principal: Principal | undefined,
  ): Promise<NeutralResponse> {
    const text = await rpcs.batch(messages, request, principal);
    return text === undefined ? accepted() : { status: 200, headers: JSON_HEADERS, body: text };
  }

  /** A tools/call request with an id and object params can be streamed; anything else is answered as JSON. */
  function isStreamable(m: JsonRpcRequest): m is JsonRpcRequest & { params: Record<string, unknown> } {
    return (
      m.method === 'tools/call' && m.id !== undefined && m.params !== undefined && !Array.isArray(m.params)
    );
  }

  function stream(
    message: JsonRpcRequest & { params: Record<string, unknown> },
    request: NeutralRequest,
    principal: Principal | undefined,
  ): NeutralResponse {
    return streamCall(
      (onPartial) => server.callTool(rpcs.toolCall(message, request, principal, onPartial)),
      heartbeatMs,
      log,
      undefined,
      options.maxQueuedBytes,
    );
  }

  /**
   * A lone message's answer: 202 for a notification, else its response with 200, or with the status of its error
   * (`MESSAGE_HTTP_STATUS`: 200 for most, 429 and 503 for a caller to back off, as on /mcp).
   */
  function loneReply(m: JsonRpcRequest, result: string | undefined, err?: unknown): NeutralResponse {
    if (!('id' in m)) return accepted();
    if (result !== undefined) return { status: 200, headers: JSON_HEADERS, body: resultResponse(m, result) };
    const e = errorExit(err, log);
    return jsonHttpResponse(MESSAGE_HTTP_STATUS[e.code], rpcErrorMessage(m.id, e), errorHeaders(e));
  }
}

/** Which endpoint below the base path a request is for. */
type Endpoint = 'rpc' | 'list' | 'prompts';

/** @deprecated Renamed `McpLiteHttpBindingOptions`, as the other bindings' options are named; this alias goes in the next release. */
export type HttpBindingOptions = McpLiteHttpBindingOptions;

/** @deprecated Renamed `createMcpLiteHttpBinding`, as the other bindings' factories are named; this alias goes in the next release. */
export const createHttpBinding: typeof createMcpLiteHttpBinding = createMcpLiteHttpBinding;
