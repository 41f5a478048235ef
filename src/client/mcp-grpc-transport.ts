import type {
  CallOptions as GrpcCallOptions,
  Client as GrpcClient,
  Metadata,
  ServiceError,
} from '@grpc/grpc-js';
import { defaultMcpProtoPath, loadMcpProto } from '../bindings/grpc/mcp-proto.js';
import {
  fromCallToolResponse,
  fromContent,
  fromPrompt,
  fromResource,
  fromResourceContents,
  fromResourceTemplate,
  fromTool,
  INLINE_WAIT_KEY,
  toDependentResponses,
} from '../bindings/grpc/mcp-wire.js';
import { type StructObject, toStruct } from '../bindings/grpc/struct.js';
import { DEFAULT_STRUCT_LIMITS } from '../bindings/grpc/struct-bounds.js';
import { McpLiteError } from '../core/errors.js';
import { rpcCatalog } from './catalog-wire.js';
import {
  authorizedRpc,
  callMetadata,
  fromServiceError,
  type GrpcAuth,
  openStub,
  rpcUrl,
} from './grpc-transport.js';
import { promiseToolCalls } from './http-transport.js';
import type { ClientLimits } from './limits.js';
import { toToolInfo } from './lite-result.js';
import { fromInputRequests, fromMcpResult, toInputResponses } from './mcp-result.js';
import { MCP_SESSION_KEY, SessionJar } from './session-jar.js';
import type { Transport, WireContext, WireOutcome } from './transport.js';
import { abortError, isRecord } from './wire-errors.js';

type Raw = Record<string, any>;
type Unary = (
  req: unknown,
  md: Metadata,
  opts: GrpcCallOptions,
  cb: (err: ServiceError | null, res: Raw) => void,
) => { cancel(): void };
type McpStub = GrpcClient & Record<string, Unary>;

/** The routing metadata each RPC carries (proto/mcp.proto), from the request it names. */
const ROUTES: Readonly<Record<string, (req: Raw) => [string, string] | undefined>> = {
  CallTool: (r) => (r.request?.name ? ['mcp_tool', r.request.name] : undefined),
  ReadResource: (r) => ['mcp_resource', r.uri],
  GetPrompt: (r) => ['mcp_prompt', r.name],
};

/**
 * MCP over gRPC (model_context_protocol.Mcp, docs/grpc.md) with grpc-js and the shipped proto: each MCP method
 * is its RPC, its answer read back into MCP's JSON (`bindings/grpc/mcp-wire.ts`) and then into outcomes as the MCP
 * transports read them (`mcp-result.ts`, `catalog-wire.ts`). An elicitation's dependent requests are answered
 * by calling again with the dependent responses and the resume data; promises are redeemed with the `redeem` tool,
 * which waits server-side. Unary, stateless; the bearer token (or the OAuth session's) and headers ride in the
 * metadata.
 */
export function mcpGrpcTransport(
  target: URL,
  headers: Record<string, string>,
  rootCerts: string | Buffer | undefined,
  limits: ClientLimits,
  auth?: GrpcAuth,
  /** Where the connection keeps the caller session (`ConnectOptions.keepSession`). */
  jar: SessionJar = new SessionJar(),
): Transport {
  const { service } = loadMcpProto(defaultMcpProtoPath(), DEFAULT_STRUCT_LIMITS);
  const stub = openStub<McpStub>(service, 'Mcp', target, rootCerts, limits);

  /** One RPC, with the OAuth session's credentials when there is one (`authorizedRpc`). */
  function unary(method: string, req: Raw, ctx: WireContext): Promise<Raw> {
    const url = rpcUrl(target, 'model_context_protocol.Mcp', method);
    return authorizedRpc(auth, url, (credentials) => unaryOnce(method, req, ctx, credentials));
  }

  function unaryOnce(
    method: string,
    req: Raw,
    ctx: WireContext,
    credentials: Record<string, string>,
  ): Promise<Raw> {
    return new Promise((resolve, reject) => {
      if (ctx.signal?.aborted) return reject(abortError(ctx.signal));
      const md = callMetadata(headers, ctx, credentials);
      const route = ROUTES[method]?.(req);
      if (route?.[1]) md.set(route[0], route[1]);
      const call = stub[method]!(req, md, {}, (err, res) => {
        ctx.signal?.removeEventListener('abort', onAbort);
        if (err) reject(ctx.signal?.aborted ? abortError(ctx.signal) : fromServiceError(err, limits));
        else resolve(res);
      });
      const onAbort = () => call.cancel();
      ctx.signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  /** The MCP methods the catalog reads, each as its RPC with MCP's JSON back. */
  async function rpc(method: string, params: Record<string, unknown>, ctx: WireContext): Promise<unknown> {
    switch (method) {
      case 'resources/list':
        return { resources: ((await unary('ListResources', {}, ctx)).resources ?? []).map(fromResource) };
      case 'resources/templates/list': {
        const res = await unary('ListResourceTemplates', {}, ctx);
        return { resourceTemplates: (res.resource_templates ?? []).map(fromResourceTemplate) };
      }
      case 'resources/read':
        return {
          contents: ((await unary('ReadResource', { uri: params.uri }, ctx)).resource ?? []).map(
            fromResourceContents,
          ),
        };
      case 'prompts/list':
        return { prompts: ((await unary('ListPrompts', {}, ctx)).prompts ?? []).map(fromPrompt) };
      case 'prompts/get': {
        const res = await unary('GetPrompt', { name: params.name, arguments: params.arguments ?? {} }, ctx);
        return {
          ...(res.description ? { description: res.description } : {}),
          messages: (res.messages ?? []).map((m: Raw) => ({
            role: m.role === 'ROLE_ASSISTANT' ? 'assistant' : 'user',
            content: fromContent(m),
          })),
        };
      }
      default:
        throw new McpLiteError('method_not_found', `Method not found: ${method}`);
    }
  }

  async function call(
    name: string,
    args: Record<string, unknown>,
    ctx: WireContext,
    common?: Raw,
  ): Promise<WireOutcome> {
    // The caller session the server gave this connection goes back in `common.metadata` (SessionJar), with no
    // inline wait: the client redeems a promise itself (auto-redeem, or `redeem: false` for the caller to).
    const meta = { ...jar.into(undefined, MCP_SESSION_KEY), [INLINE_WAIT_KEY]: 0 };
    const fields = { ...common, metadata: toStruct(meta) };
    const res = await unary(
      'CallTool',
      { request: { name, arguments: toStruct(args) }, common: fields },
      ctx,
    );
    const result = fromCallToolResponse(res);
    if (isRecord(result._meta)) jar.keep(result._meta[MCP_SESSION_KEY]);
    if (result.resultType === 'input_required' && isRecord(result.inputRequests)) {
      const { keys, ...form } = fromInputRequests(result.inputRequests);
      const resumeData = result.resumeData as StructObject;
      return {
        type: 'elicitation',
        ...form,
        resume: (values, next) =>
          call(name, args, next, {
            resume_data: resumeData,
            dependent_responses: toDependentResponses(toInputResponses(keys, values)),
          }),
      };
    }
    return fromMcpResult(result);
  }

  return {
    binding: 'mcp-grpc',
    canWait: true,
    async listTools(ctx) {
      const res = await unary('ListTools', {}, ctx);
      return (res.tools ?? []).map((t: Raw) => toToolInfo(fromTool(t)));
    },
    ...rpcCatalog(rpc, limits),
    call: (name, args, ctx) => call(name, args, ctx),
    // A promise's redeem and cancel are not streamed: their partials, if any, are the original call's.
    ...promiseToolCalls((name, args, ctx) => call(name, args, { ...ctx, onPartial: undefined })),
    async close() {
      stub.close();
    },
  };
}
