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
import { HTTP_STATUS, JSON_TYPE, wantsEventStream, wireResultJson } from './wire.js';

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
      return Promise.resolve(fail(new McpLiteError('method_not_found', `Not found: ${request.path}`), 404));
    }
    if (request.method !== 'POST') {
      const e = new McpLiteError('method_not_allowed', `Method ${request.method} not allowed: use POST`);
      return Promise.resolve(fail(e, 405, { allow: 'POST' }));
    }
    // Without a hook there is nothing to wait for; not calling the async helper saves a microtask per request.
    if (server.authenticate) return authenticated(server.authenticate, request, kind);
    return readAndRespond(request, kind, undefined);
  }

  async function authenticated(
    hook: NonNullable<ToolServer['authenticate']>,
    request: NeutralRequest,
    kind: Endpoint,
  ): Promise<NeutralResponse> {
    const token = bearerToken(request.headers.authorization);
    let principal: Principal | undefined;
    try {
      principal = await authenticateOrThrow(hook, { token, headers: request.headers });
    } catch (err) {
      // RFC 6750: a request without credentials gets the bare challenge, a rejected token `invalid_token`.
      const challenge = token === undefined ? BEARER_CHALLENGE : `${BEARER_CHALLENGE}, error="invalid_token"`;
      return fail(toMcpLiteError(err), 401, { 'www-authenticate': challenge });
    }
    return readAndRespond(request, kind, principal);
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
      return Promise.resolve(failWithAny(err));
    }
    return bytes.then((bytes) => {
      try {
        const body = parseJsonBody(bytes);
        const response =
          kind === 'rpc'
            ? rpc(body, request, principal)
            : kind === 'list'
              ? listTools(body)
              : prompts(body, request, principal);
        return response instanceof Promise ? response.then(undefined, failWithAny) : response;
      } catch (err) {
        return failWithAny(err);
      }
    }, failWithAny);
  }

  function failWithAny(err: unknown): NeutralResponse {
    return failWith(toMcpLiteError(err));
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

  function rpc(
    body: unknown,
    request: NeutralRequest,
    principal: Principal | undefined,
  ): NeutralResponse | Promise<NeutralResponse> {
    if (Array.isArray(body)) return batch(body, request, principal);
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
    const reply = answer(message, request, principal);
    return reply instanceof Promise ? reply.then(replyResponse) : replyResponse(reply);
  }

  async function batch(
    messages: unknown[],
    request: NeutralRequest,
    principal: Principal | undefined,
  ): Promise<NeutralResponse> {
    if (messages.length === 0) throw new McpLiteError('invalid_request', 'Invalid Request: empty batch');
    if (messages.length > maxBatch) {
      throw new McpLiteError('invalid_request', `Invalid Request: batch larger than ${maxBatch}`);
    }
    const replies = await Promise.all(messages.map((m) => handleMessage(m, request, principal)));
    const present = replies.filter((r): r is string => r !== undefined);
    if (present.length === 0) return { status: 202, headers: {} };
    return { status: 200, headers: JSON_HEADERS, body: `[${present.join(',')}]` };
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
  function handleMessage(
    message: unknown,
    request: NeutralRequest,
    principal: Principal | undefined,
  ): string | undefined | Promise<string | undefined> {
    let m: JsonRpcRequest;
    try {
      m = validateRequest(message);
    } catch (err) {
      const e = toMcpLiteError(err);
      return errorResponse(idOf(message, e), e);
    }
    return answer(m, request, principal);
  }

  /** Answers one valid message (synchronously when its method can); undefined for notifications. */
  function answer(
    m: JsonRpcRequest,
    request: NeutralRequest,
    principal: Principal | undefined,
  ): string | undefined | Promise<string | undefined> {
    const isNotification = !('id' in m);
    let result: string | Promise<string>;
    try {
      result = dispatch(m, request, principal);
    } catch (err) {
      return answerError(m, isNotification, err);
    }
    if (typeof result === 'string') return isNotification ? undefined : answerResult(m, result);
    return result.then(
      (r) => (isNotification ? undefined : answerResult(m, r)),
      (err) => answerError(m, isNotification, err),
    );
  }

  function answerError(m: JsonRpcRequest, isNotification: boolean, err: unknown): string | undefined {
    const e = toMcpLiteError(err);
    if (e.code === 'internal') logInternal(e);
    return isNotification
      ? undefined
      : JSON.stringify({ jsonrpc: '2.0', id: m.id, error: toJsonRpcError(e) });
  }

  /** Runs one method; returns the serialised result, synchronously when the method could answer at once. */
  function dispatch(
    m: JsonRpcRequest,
    request: NeutralRequest,
    principal: Principal | undefined,
  ): string | Promise<string> {
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
        const result = server.call(
          new ToolCall(m as JsonRpcRequest & { params: Record<string, unknown> }, request, principal),
        );
        return result instanceof Promise ? result.then(wireResultJson) : wireResultJson(result);
      }
      default:
        throw new McpLiteError('method_not_found', `Method not found: ${m.method}`, {
          method: m.method,
          available_methods: ['tools/call', 'tools/list'],
        });
    }
  }
}

/** Which endpoint below the base path a request is for. */
type Endpoint = 'rpc' | 'list' | 'prompts';

function answerResult(m: JsonRpcRequest, result: string): string {
  return `{"jsonrpc":"2.0","id":${JSON.stringify(m.id)},"result":${result}}`;
}

function replyResponse(reply: string | undefined): NeutralResponse {
  return reply === undefined
    ? { status: 202, headers: {} }
    : { status: 200, headers: JSON_HEADERS, body: reply };
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
