import {
  type ClientReadableStream,
  type ClientUnaryCall,
  credentials,
  type CallOptions as GrpcCallOptions,
  type Client as GrpcClient,
  Metadata,
  makeClientConstructor,
  type ServiceDefinition,
  type ServiceError,
  type StatusObject,
  status,
} from '@grpc/grpc-js';
import { loadMcpLiteProto } from '../bindings/grpc/proto.js';
import { decodeStatusDetails, STATUS_DETAILS_KEY } from '../bindings/grpc/status-details.js';
import { fromStruct, type StructObject, toStruct } from '../bindings/grpc/struct.js';
import { RESPONSE_TYPE, SESSION_METADATA_KEY as SESSION_METADATA } from '../bindings/grpc/wire.js';
import { ERROR_CODES, type ErrorCode, McpLiteError } from '../core/errors.js';
import type { ResponseType } from '../core/outcomes.js';
import { toPrompt, toRenderedPrompt } from './catalog-wire.js';
import { promiseToolCalls } from './http-transport.js';
import { boundExceeded, type ClientLimits } from './limits.js';
import {
  fromLiteResult,
  type LiteAnswer,
  type LiteMeta,
  toToolInfo,
  unknownResponseType,
} from './lite-result.js';
import { SessionJar } from './session-jar.js';
import type { Transport, WireContext, WireOutcome } from './transport.js';
import type { ToolInfo } from './types.js';
import { abortError, unreachableError } from './wire-errors.js';

interface WireResponse {
  result?: StructObject;
  meta?: {
    response_type?: string | number;
    promise_token?: string;
    timestamp?: number | string;
    processing_time_ms?: number;
    server_version?: string;
    estimated_completion?: number | string;
  };
  partial?: boolean;
}
type Unary = (
  req: unknown,
  md: Metadata,
  opts: GrpcCallOptions,
  cb: (err: ServiceError | null, res: unknown) => void,
) => ClientUnaryCall;
type McpLiteStub = GrpcClient & {
  GetTools: Unary;
  CallTool: Unary;
  GetPrompts: Unary;
  GetPrompt: Unary;
  CallToolStream(req: unknown, md: Metadata, opts: GrpcCallOptions): ClientReadableStream<WireResponse>;
};

/** The outcome kind of each ResponseType enum name: the inverse of the server's table, so both read one list. */
const KIND_OF_GRPC_TYPE: ReadonlyMap<string, ResponseType> = new Map(
  (Object.entries(RESPONSE_TYPE) as [ResponseType, string][]).map(([kind, name]) => [name, kind]),
);

/** A received ResponseType: unset (proto3's default, ANSWER) is an answer; a value no table names is refused. */
function grpcResponseType(value: unknown): ResponseType {
  if (value === undefined) return 'answer';
  return KIND_OF_GRPC_TYPE.get(String(value)) ?? unknownResponseType(value);
}

// The inverse of the server's GRPC_STATUS table, for statuses that come without mcplite details.
const BY_STATUS: Readonly<Partial<Record<status, ErrorCode>>> = {
  [status.INVALID_ARGUMENT]: 'invalid_params',
  [status.NOT_FOUND]: 'tool_not_found',
  [status.UNIMPLEMENTED]: 'method_not_found',
  [status.CANCELLED]: 'cancelled',
  [status.DEADLINE_EXCEEDED]: 'deadline_exceeded',
  [status.UNAUTHENTICATED]: 'unauthenticated',
  [status.PERMISSION_DENIED]: 'forbidden',
  [status.RESOURCE_EXHAUSTED]: 'resource_exhausted',
  [status.UNAVAILABLE]: 'unavailable',
};

/**
 * What the gRPC transport needs of an OAuth session (`oauth-session.ts`): gRPC answers no HTTP challenge, so the
 * transport asks for the token itself and hands each refusal back to be fixed.
 */
export interface GrpcAuth {
  /**
   * The metadata carrying the current access token to `url` (the RPC as an HTTP/2 URL: a DPoP proof names it), and
   * the token it carries, if any.
   */
  credentials(url: string): Promise<{ token: string | undefined; headers: Record<string, string> }>;
  /** Signs in, refreshes or steps up after a refusal; false when the RPC should not be sent again. */
  recover(status: 401 | 403, wwwAuthenticate: string | undefined, sent: string | undefined): Promise<boolean>;
  /**
   * Keeps the DPoP nonce a refusal of `url` carried (the `dpop-nonce` trailer); true when the refusal asked for it
   * (`use_dpop_nonce`) and it is new, so the RPC is worth sending once more with it (RFC 9449 §9).
   */
  useNonce(url: string, wwwAuthenticate: string | undefined, nonce: string | undefined): boolean;
  /** An RPC got through. */
  accepted(): void;
}

/**
 * MCP-lite gRPC (docs/grpc.md) with grpc-js and the shipped proto: `GetTools`, `CallTool`, `CallToolStream`
 * when partials are wanted, and `GetPrompts`/`GetPrompt`. `grpcs://` uses TLS with the system's roots (grpc-js's, or the file
 * `GRPC_DEFAULT_SSL_ROOTS_FILE_PATH` names), or with `rootCerts` (PEM) when given. One message is at most
 * `maxResponseBytes` (grpc-js refuses a larger one before decoding it); partials are bounded by the client.
 */
export function grpcTransport(
  target: URL,
  headers: Record<string, string>,
  rootCerts: string | Buffer | undefined,
  limits: ClientLimits,
  auth?: GrpcAuth,
  /** Where the connection keeps the caller session (`ConnectOptions.keepSession`). */
  jar: SessionJar = new SessionJar(),
): Transport {
  const stub = openStub<McpLiteStub>(loadMcpLiteProto().service, 'MCPLite', target, rootCerts, limits);
  // The caller session the server gave this connection: sent as `mcplite-session` metadata, kept from the
  // trailing metadata of the call that set it (SessionJar).
  const metadata = (ctx: WireContext, credentials: Record<string, string>) => {
    const md = callMetadata(headers, ctx, credentials);
    if (jar.token !== undefined) md.set(SESSION_METADATA, jar.token);
    return md;
  };
  // grpc-js emits 'status' synchronously right after the unary callback and before a stream's end reaches its
  // reader: the session is kept before the caller sees the result.
  const keepSession = (status: StatusObject) => jar.keep(status.metadata?.get(SESSION_METADATA)[0]);

  const authorized = (rpc: string, run: (credentials: Record<string, string>) => Promise<WireResponse>) =>
    authorizedRpc(auth, rpcUrl(target, 'mcplite.MCPLite', rpc), run);

  type UnaryMethod = 'GetTools' | 'CallTool' | 'GetPrompts' | 'GetPrompt';

  function unary(method: UnaryMethod, req: unknown, ctx: WireContext): Promise<WireResponse> {
    return authorized(method, (credentials) => unaryOnce(method, req, ctx, credentials));
  }

  function unaryOnce(
    method: UnaryMethod,
    req: unknown,
    ctx: WireContext,
    credentials: Record<string, string>,
  ): Promise<WireResponse> {
    return new Promise((resolve, reject) => {
      if (ctx.signal?.aborted) return reject(abortError(ctx.signal));
      const call = stub[method](req, metadata(ctx, credentials), {}, (err, res) => {
        ctx.signal?.removeEventListener('abort', onAbort);
        if (err) reject(ctx.signal?.aborted ? abortError(ctx.signal) : fromServiceError(err, limits));
        else resolve(res as WireResponse);
      });
      call.on('status', keepSession);
      const onAbort = () => call.cancel();
      ctx.signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  function streamed(req: unknown, ctx: WireContext): Promise<WireResponse> {
    return authorized('CallToolStream', (credentials) => streamedOnce(req, ctx, credentials));
  }

  async function streamedOnce(
    req: unknown,
    ctx: WireContext,
    credentials: Record<string, string>,
  ): Promise<WireResponse> {
    if (ctx.signal?.aborted) throw abortError(ctx.signal);
    const call = stub.CallToolStream(req, metadata(ctx, credentials), {});
    call.on('status', keepSession);
    const onAbort = () => call.cancel();
    ctx.signal?.addEventListener('abort', onAbort, { once: true });
    try {
      let final: WireResponse | undefined;
      for await (const msg of call as AsyncIterable<WireResponse>) {
        if (msg.meta === undefined || msg.partial) ctx.onPartial?.(fromStruct(msg.result).partial);
        else final = msg;
      }
      if (!final) throw new McpLiteError('unavailable', 'The stream ended without a result');
      return final;
    } catch (err) {
      if (ctx.signal?.aborted) throw abortError(ctx.signal);
      throw err instanceof McpLiteError ? err : fromServiceError(err as ServiceError, limits);
    } finally {
      ctx.signal?.removeEventListener('abort', onAbort);
    }
  }

  async function call(
    name: string,
    args: Record<string, unknown>,
    ctx: WireContext,
    elicitation?: LiteAnswer,
  ): Promise<WireOutcome> {
    const req = {
      name,
      arguments: toStruct(args),
      ...(elicitation
        ? {
            elicitation: {
              state: elicitation.state,
              answers: toStruct(elicitation.answers ?? {}),
              ...(elicitation.action ? { action: elicitation.action } : {}),
            },
          }
        : {}),
    };
    const res = ctx.onPartial ? await streamed(req, ctx) : await unary('CallTool', req, ctx);
    const meta = res.meta ?? {};
    const liteMeta: LiteMeta = {
      responseType: grpcResponseType(meta.response_type),
      ...(meta.promise_token ? { promiseToken: meta.promise_token } : {}),
      ...(meta.estimated_completion ? { estimatedCompletion: isoOf(meta.estimated_completion) } : {}),
      ...(meta.timestamp ? { timestamp: isoOf(meta.timestamp) } : {}),
      ...(meta.processing_time_ms !== undefined ? { processingTimeMs: meta.processing_time_ms } : {}),
      ...(meta.server_version ? { serverVersion: meta.server_version } : {}),
    };
    return fromLiteResult(fromStruct(res.result), liteMeta, (answer, next) => call(name, args, next, answer));
  }

  return {
    binding: 'grpc',
    canWait: true,
    async listTools(ctx): Promise<ToolInfo[]> {
      const res = (await unary('GetTools', {}, ctx)) as { tools?: Array<Record<string, unknown>> };
      return (res.tools ?? []).map((t) =>
        toToolInfo({
          ...t,
          input_schema: fromStruct(t.input_schema as StructObject),
          ...(t.output_schema ? { output_schema: fromStruct(t.output_schema as StructObject) } : {}),
          ...(t.annotations ? { annotations: fromStruct(t.annotations as StructObject) } : {}),
        }),
      );
    },
    async listPrompts(ctx) {
      const res = (await unary('GetPrompts', {}, ctx)) as { prompts?: Array<Record<string, unknown>> };
      return (res.prompts ?? []).flatMap((p) => toPrompt(p) ?? []);
    },
    async getPrompt(name, args, ctx) {
      const res = (await unary('GetPrompt', { name, arguments: args }, ctx)) as {
        description?: string;
        messages?: Array<{ role?: string; content?: StructObject }>;
      };
      return toRenderedPrompt({
        ...(res.description ? { description: res.description } : {}),
        messages: (res.messages ?? []).map((m) => ({ role: m.role, content: fromStruct(m.content) })),
      });
    },
    call: (name, args, ctx) => call(name, args, ctx),
    // A promise's redeem and cancel are not streamed: their partials, if any, are the original call's.
    ...promiseToolCalls((name, args, ctx) => call(name, args, { ...ctx, onPartial: undefined })),
    async close() {
      stub.close();
    },
  };
}

/**
 * A grpc-js client of `service` at `target` (port 443 for grpcs://, else 50051 by default): TLS with the system's
 * roots or `rootCerts` for grpcs://, plaintext for grpc://; one message at most `maxResponseBytes`.
 */
export function openStub<T>(
  service: ServiceDefinition,
  name: string,
  target: URL,
  rootCerts: string | Buffer | undefined,
  limits: ClientLimits,
): T {
  const Ctor = makeClientConstructor(service, name) as unknown as new (
    address: string,
    creds: ReturnType<typeof credentials.createInsecure>,
    options: Record<string, unknown>,
  ) => T;
  const port = target.port || (target.protocol === 'grpcs:' ? '443' : '50051');
  return new Ctor(
    `${target.hostname}:${port}`,
    target.protocol === 'grpcs:'
      ? credentials.createSsl(rootCerts === undefined ? null : Buffer.from(rootCerts))
      : credentials.createInsecure(),
    { 'grpc.max_receive_message_length': limits.maxResponseBytes },
  );
}

/**
 * The URL an RPC goes to, as a DPoP proof names it (`htu`): the authority the channel addresses and the RPC's
 * path (`/<package.Service>/<Method>`).
 */
export function rpcUrl(target: URL, service: string, rpc: string): string {
  const port = target.port || (target.protocol === 'grpcs:' ? '443' : '50051');
  return `${target.protocol === 'grpcs:' ? 'https' : 'http'}://${target.hostname}:${port}/${service}/${rpc}`;
}

/**
 * A call's metadata: the connection's headers, the OAuth session's credentials (`authorization`, and `dpop` for a
 * bound token), and the span's trace context.
 */
export function callMetadata(
  headers: Record<string, string>,
  ctx: WireContext,
  credentials: Record<string, string>,
): Metadata {
  const md = new Metadata();
  for (const [k, v] of Object.entries(headers)) md.set(k.toLowerCase(), v);
  for (const [k, v] of Object.entries(credentials)) md.set(k, v);
  // The span's trace context (W3C keys are lower-case already), as gRPC instrumentations send it.
  if (ctx.trace) for (const [k, v] of Object.entries(ctx.trace)) md.set(k, v);
  return md;
}

/**
 * Runs one RPC (to `url`, which a DPoP proof names) with the OAuth session's current credentials; a refusal the session can fix (a sign-in, a refresh, a
 * step-up: the server's challenge rides in the error's `wwwAuthenticate`) is followed by the RPC again. Without a
 * session, the RPC runs once with no token (the connection's headers may carry one).
 */
export async function authorizedRpc<T>(
  auth: GrpcAuth | undefined,
  url: string,
  run: (credentials: Record<string, string>) => Promise<T>,
): Promise<T> {
  if (!auth) return run({});
  let nonceRetried = false;
  for (;;) {
    const { token: sent, headers: credentials } = await auth.credentials(url);
    try {
      const res = await run(credentials);
      auth.accepted();
      return res;
    } catch (err) {
      const refused =
        err instanceof McpLiteError && (err.code === 'unauthenticated' || err.code === 'forbidden');
      if (!refused) throw err;
      const data = (err as McpLiteError).data;
      const challenge = typeof data?.wwwAuthenticate === 'string' ? data.wwwAuthenticate : undefined;
      const nonce = typeof data?.dpopNonce === 'string' ? data.dpopNonce : undefined;
      const status = (err as McpLiteError).code === 'forbidden' ? 403 : 401;
      // A proof without the server's current nonce: the same token again, its next proof carrying the nonce.
      if (status === 401 && !nonceRetried && auth.useNonce(url, challenge, nonce)) {
        nonceRetried = true;
        continue;
      }
      if (!(await auth.recover(status, challenge, sent))) throw err;
    }
  }
}

function isoOf(ms: number | string): string {
  return new Date(Number(ms)).toISOString();
}

/**
 * A gRPC status as an McpLiteError: the ErrorInfo's reason and data when mcplite sent them; grpc-js's own refusal
 * of a message over `grpc.max_receive_message_length` is the client's bound, named as such.
 */
export function fromServiceError(err: ServiceError, limits: ClientLimits): McpLiteError {
  if (
    err.code === status.RESOURCE_EXHAUSTED &&
    /^Received message (larger than max|that decompresses to a size larger than)/.test(err.details ?? '')
  )
    return boundExceeded('maxResponseBytes', limits.maxResponseBytes);
  const bin = err.metadata?.get(STATUS_DETAILS_KEY)[0];
  const details = Buffer.isBuffer(bin) ? decodeStatusDetails(bin) : undefined;
  const reason = details?.reason.toLowerCase() as ErrorCode | undefined;
  const code: ErrorCode = reason && isErrorCode(reason) ? reason : (BY_STATUS[err.code] ?? 'internal');
  const message = err.details || err.message;
  // The challenge and DPoP nonce as trailers (how gRPC servers other than mcplite's send them, with no details).
  const trailers: Record<string, string> = {};
  for (const [key, name] of TRAILERS) {
    const value = err.metadata?.get(key)[0];
    if (typeof value === 'string' && value.length <= MAX_TRAILER_CHARS) trailers[name] = value;
  }
  // grpc-js's own UNAVAILABLE (no status details from a server): the server could not be reached.
  const unreachable = err.code === status.UNAVAILABLE && !details ? unreachableCause(message) : undefined;
  if (unreachable !== undefined) return unreachableError(unreachable, undefined, err);
  return new McpLiteError(code, message, { ...trailers, ...(details?.data ?? {}), grpc_status: err.code });
}

/**
 * The cause in grpc-js's "No connection established. Last error: Error: connect ECONNREFUSED 127.0.0.1:1.
 * Resolution note: …" (or a failed name resolution), as one line.
 */
function unreachableCause(message: string): string | undefined {
  const last =
    /^No connection established\. Last error: (?:\w*Error: )?([\s\S]*?)\.?(?:\s+Resolution note:[\s\S]*)?$/.exec(
      message,
    );
  if (last) return last[1]!.split('\n')[0]!.trim();
  if (/^(Name resolution failed|DNS resolution failed)/.test(message)) return message.split('\n')[0]!.trim();
  return undefined;
}

/** Trailers read into an error's data, under the names mcplite's status details use. */
const TRAILERS = [
  ['www-authenticate', 'wwwAuthenticate'],
  ['dpop-nonce', 'dpopNonce'],
] as const;
/** Characters of such a trailer kept: a challenge or a nonce is a line, not a document. */
const MAX_TRAILER_CHARS = 4096;

const CODES = new Set<string>(ERROR_CODES);
function isErrorCode(value: string): value is ErrorCode {
  return CODES.has(value);
}
