import { authenticateOrThrow, bearerToken, type Principal } from '../../core/auth.js';
import { McpLiteError, toMcpLiteError } from '../../core/errors.js';
import type { NeutralHandler, NeutralRequest, NeutralResponse } from '../../core/http.js';
import type { CallRequest, ToolServer } from '../../core/server.js';
import { assertJsonBodyHeaders, parseJsonBody } from '../common/json-body.js';
import {
  errorResponse,
  idOf,
  type JsonRpcRequest,
  toJsonRpcError,
  validateRequest,
} from '../common/jsonrpc.js';
import { streamCall } from './sse.js';
import { HTTP_STATUS, JSON_TYPE, toWireResult, wantsEventStream } from './wire.js';

/** Options of the MCP-lite HTTP binding. */
export interface HttpBindingOptions {
  /** Where the endpoints live. Default `/mcp-lite/v1/`. */
  basePath?: string;
  /** Largest accepted request body in bytes. Default 4 MiB. */
  maxBodyBytes?: number;
  /** Idle time after which an SSE stream gets a `heartbeat` event, in ms. Default 15 000. */
  heartbeatMs?: number;
  /** Most messages in one JSON-RPC batch. Default 100. */
  maxBatchSize?: number;
}

const JSON_HEADERS = { 'content-type': JSON_TYPE };
const BEARER_CHALLENGE = 'Bearer realm="mcplite"';

/**
 * The MCP-lite HTTP binding (spec section 4): POST `listtools`/`tools` answer `{ "tools": [...] }`;
 * POST `calltools`/`rpc` take JSON-RPC 2.0 (`tools/call`, `tools/list`, batches, notifications), answered as
 * JSON or, with `Accept: text/event-stream`, as an SSE stream. Returns undefined for paths outside `basePath`.
 */
export function createHttpBinding(server: ToolServer, options: HttpBindingOptions = {}): NeutralHandler {
  const base = normaliseBase(options.basePath ?? '/mcp-lite/v1/');
  const maxBody = options.maxBodyBytes ?? 4 * 1024 * 1024;
  const heartbeatMs = options.heartbeatMs ?? 15_000;
  const maxBatch = options.maxBatchSize ?? 100;
  const log = server.logger.child({ binding: 'mcp-lite-http' });
  const logInternal = (err: McpLiteError) => log.error({ err: err.cause ?? err }, 'internal error');

  // Declines other paths at once (no promise), so that composed bindings behind this one pay nothing for it.
  return (request) => (request.path.startsWith(base) ? handle(request) : undefined);

  async function handle(request: NeutralRequest): Promise<NeutralResponse> {
    let endpoint = request.path.slice(base.length);
    if (endpoint.endsWith('/')) endpoint = endpoint.slice(0, -1);
    // Compared directly rather than looked up in a Set: `endpoint` is a fresh string, which a Set would hash.
    const isList = endpoint === 'listtools' || endpoint === 'tools';
    const isPrompts = endpoint === 'prompts';
    if (!isList && !isPrompts && endpoint !== 'calltools' && endpoint !== 'rpc') {
      return fail(new McpLiteError('method_not_found', `Not found: ${request.path}`), 404);
    }
    try {
      if (request.method !== 'POST') {
        const e = new McpLiteError('method_not_allowed', `Method ${request.method} not allowed: use POST`);
        return fail(e, 405, { allow: 'POST' });
      }
      const token = bearerToken(request.headers.authorization);
      let principal: Principal | undefined;
      try {
        // Without a hook there is nothing to wait for; not calling the async helper saves a microtask per request.
        principal = server.authenticate
          ? await authenticateOrThrow(server.authenticate, { token, headers: request.headers })
          : undefined;
      } catch (err) {
        // RFC 6750: a request without credentials gets the bare challenge, a rejected token `invalid_token`.
        const challenge =
          token === undefined ? BEARER_CHALLENGE : `${BEARER_CHALLENGE}, error="invalid_token"`;
        return fail(toMcpLiteError(err), 401, { 'www-authenticate': challenge });
      }
      assertJsonBodyHeaders(request.headers);
      const body = parseJsonBody(await request.readBody(maxBody));
      if (isList) return listTools(body);
      if (isPrompts) return await prompts(body, request, principal);
      return await rpc(body, request, principal);
    } catch (err) {
      return failWith(toMcpLiteError(err));
    }
  }

  function failWith(err: McpLiteError): NeutralResponse {
    if (err.code === 'internal') logInternal(err);
    return fail(err, HTTP_STATUS[err.code] ?? 500);
  }

  function listTools(body: unknown): NeutralResponse {
    if (typeof body !== 'object' || body === null || Array.isArray(body)) {
      throw new McpLiteError('invalid_request', 'Invalid Request: send an empty JSON object {}');
    }
    return { status: 200, headers: JSON_HEADERS, body: server.listTools().json };
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
    if (name === undefined) {
      return { status: 200, headers: JSON_HEADERS, body: JSON.stringify({ prompts: server.prompts.list() }) };
    }
    try {
      const rendered = await server.prompts.get(name, args, { signal: request.signal, principal });
      return { status: 200, headers: JSON_HEADERS, body: JSON.stringify(rendered) };
    } catch (err) {
      const e = toMcpLiteError(err);
      if (e.code === 'invalid_params') return fail(e, 400);
      throw e;
    }
  }

  async function rpc(
    body: unknown,
    request: NeutralRequest,
    principal: Principal | undefined,
  ): Promise<NeutralResponse> {
    if (Array.isArray(body)) {
      if (body.length === 0) throw new McpLiteError('invalid_request', 'Invalid Request: empty batch');
      if (body.length > maxBatch) {
        throw new McpLiteError('invalid_request', `Invalid Request: batch larger than ${maxBatch}`);
      }
      const replies = await Promise.all(body.map((m) => handleMessage(m, request, principal)));
      const present = replies.filter((r): r is string => r !== undefined);
      if (present.length === 0) return { status: 202, headers: {} };
      return { status: 200, headers: JSON_HEADERS, body: `[${present.join(',')}]` };
    }
    let message: JsonRpcRequest;
    try {
      message = validateRequest(body);
    } catch (err) {
      // A lone message that is not JSON-RPC fails the whole request (400); inside a batch it is answered in place.
      const e = toMcpLiteError(err);
      return { status: 400, headers: JSON_HEADERS, body: errorResponse(idOf(body, e), e) };
    }
    if (wantsEventStream(request.headers.accept) && isStreamable(message)) {
      return stream(message, request, principal);
    }
    const reply = await answer(message, request, principal);
    if (reply === undefined) return { status: 202, headers: {} };
    return { status: 200, headers: JSON_HEADERS, body: reply };
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
      (onPartial) => server.callTool(new ToolCall(message, request, principal, onPartial)),
      heartbeatMs,
      logInternal,
    );
  }

  /** Answers one member of a batch; undefined for notifications. */
  async function handleMessage(
    message: unknown,
    request: NeutralRequest,
    principal: Principal | undefined,
  ): Promise<string | undefined> {
    let m: JsonRpcRequest;
    try {
      m = validateRequest(message);
    } catch (err) {
      const e = toMcpLiteError(err);
      return errorResponse(idOf(message, e), e);
    }
    return answer(m, request, principal);
  }

  /** Answers one valid message; undefined for notifications. */
  async function answer(
    m: JsonRpcRequest,
    request: NeutralRequest,
    principal: Principal | undefined,
  ): Promise<string | undefined> {
    const isNotification = !('id' in m);
    try {
      const result = await dispatch(m, request, principal);
      if (isNotification) return undefined;
      return `{"jsonrpc":"2.0","id":${JSON.stringify(m.id)},"result":${result}}`;
    } catch (err) {
      const e = toMcpLiteError(err);
      if (e.code === 'internal') logInternal(e);
      return isNotification
        ? undefined
        : JSON.stringify({ jsonrpc: '2.0', id: m.id, error: toJsonRpcError(e) });
    }
  }

  /** Runs one method; returns the serialised result. */
  async function dispatch(
    m: JsonRpcRequest,
    request: NeutralRequest,
    principal: Principal | undefined,
  ): Promise<string> {
    switch (m.method) {
      case 'tools/list':
        return server.listTools().json;
      case 'tools/call': {
        if (!m.params || Array.isArray(m.params)) {
          throw new McpLiteError(
            'invalid_params',
            'Invalid params: tools/call needs params { name, arguments }',
          );
        }
        const result = await server.callTool(
          new ToolCall(m as JsonRpcRequest & { params: Record<string, unknown> }, request, principal),
        );
        return JSON.stringify(toWireResult(result));
      }
      default:
        throw new McpLiteError('method_not_found', `Method not found: ${m.method}`, {
          method: m.method,
          available_methods: ['tools/call', 'tools/list'],
        });
    }
  }
}

/**
 * A tools/call request as core takes it: the name, the arguments and the answer to an elicitation, checked.
 * A class rather than an object literal because `signal` has to be a getter: the node adapter makes its signal
 * (an AbortController and a 'close' listener, a good part of a small call's cost) on first use, and core reads
 * it only for calls that outlive a tick. (Literals with getters or spreads are also slow to build.)
 */
class ToolCall implements CallRequest {
  readonly name: string;
  readonly arguments: unknown;
  readonly requestId: string | number | undefined;
  readonly elicitation: { state: unknown; answers: unknown } | undefined;

  constructor(
    m: JsonRpcRequest & { params: Record<string, unknown> },
    private readonly request: NeutralRequest,
    readonly principal: Principal | undefined,
    readonly onPartial?: (data: unknown) => void | Promise<void>,
  ) {
    const { name, arguments: args, elicitation } = m.params;
    if (typeof name !== 'string') {
      throw new McpLiteError('invalid_params', 'Invalid params: "name" must be a string', {
        errors: [{ field: 'name', message: 'is required and must be a string' }],
      });
    }
    let answer: { state: unknown; answers: unknown } | undefined;
    if (elicitation !== undefined) {
      if (typeof elicitation !== 'object' || elicitation === null) {
        throw new McpLiteError('invalid_params', 'Invalid params: "elicitation" must be { state, answers }');
      }
      const e = elicitation as Record<string, unknown>;
      answer = { state: e.state, answers: e.answers };
    }
    this.name = name;
    this.arguments = args;
    this.requestId = m.id ?? undefined;
    this.elicitation = answer;
  }

  get signal(): AbortSignal {
    return this.request.signal;
  }
}

function fail(err: McpLiteError, status: number, extraHeaders: Record<string, string> = {}): NeutralResponse {
  const headers: Record<string, string> = { ...JSON_HEADERS, ...extraHeaders };
  if (status === 401) headers['www-authenticate'] ??= BEARER_CHALLENGE;
  if (status === 413) headers.connection = 'close';
  return { status, headers, body: errorResponse(null, err) };
}

function normaliseBase(base: string): string {
  let b = base.startsWith('/') ? base : `/${base}`;
  if (!b.endsWith('/')) b += '/';
  return b;
}
