import type { Principal } from '../../core/auth.js';
import { McpLiteError } from '../../core/errors.js';
import type { CallResult, PromiseOutcome } from '../../core/outcomes.js';
import type { ToolServer } from '../../core/server.js';
import { BindingCall, BindingCaller, sessionTokenOf } from '../common/binding-call.js';
import { completeArgument } from '../common/completion.js';
import { echoName } from '../common/echo.js';
import { listPrompts, renderPrompt } from '../common/prompts.js';
import { awaitPromised } from '../mcp/inline-wait.js';
import { toolErrorOrThrow } from '../mcp/tool-call.js';
import { toCallToolResult, toMcpTool } from '../mcp/wire.js';
import type { CallLife } from './call-life.js';
import {
  elicitationReplyOfRetry,
  INLINE_WAIT_KEY,
  type RawRequestFields,
  toCallToolResponse,
  toDependentResponse,
  toPrompt,
  toPromptResponse,
  toResource,
  toResourceContents,
  toResourceTemplate,
  toTool,
} from './mcp-wire.js';
import { fromStruct, type StructObject } from './struct.js';

/** The binding's one name (`op.caller.binding`, `ctx.binding`, logs, metrics). */
export const BINDING = 'mcp-grpc';

type Obj = Record<string, unknown>;

/** What one RPC does once its call is counted and its caller authenticated: its request in, its response out. */
export type McpGrpcRpc = (request: Obj, life: CallLife, principal: Principal | undefined) => Promise<Obj>;

/**
 * The methods of model_context_protocol.Mcp, independent of grpc-js's framing (`mcp-service.ts`): each RPC is
 * the MCP operation of the same name, run through the same core calls as every other binding (the chain, scopes,
 * visibility) and answered in MCP's shapes (bindings/mcp/wire.ts) in the proto's form (mcp-wire.ts). The routing
 * metadata (`mcp_tool`, `mcp_resource`, `mcp_prompt`), when sent, must name what the body names.
 */
export interface McpGrpcMethods {
  /** ListTools: as MCP lists them. */
  listTools: McpGrpcRpc;
  /** CallTool: MCP's tools/call of the 2026-07-28 revision in unary form, elicitations as dependent requests. */
  callTool: McpGrpcRpc;
  /** ListResources. */
  listResources: McpGrpcRpc;
  /** ListResourceTemplates. */
  listResourceTemplates: McpGrpcRpc;
  /** ReadResource. */
  readResource: McpGrpcRpc;
  /** ListPrompts. */
  listPrompts: McpGrpcRpc;
  /** GetPrompt. */
  getPrompt: McpGrpcRpc;
  /** Complete: MCP's `completion/complete`. */
  complete: McpGrpcRpc;
}

/** Makes the MCP-over-gRPC methods of a tool server (one per service; they keep no per-call state). */
export function createMcpGrpcMethods(server: ToolServer): McpGrpcMethods {
  const caller = (life: CallLife, principal: Principal | undefined) =>
    new BindingCaller(BINDING, life, principal);

  return {
    listTools: async (_r, life, principal) => {
      const listing = await server.listToolsFor(caller(life, principal));
      // As MCP lists them (bindings/mcp engine): a long-running tool lists no outputSchema.
      const tools = listing.tools.map((t) =>
        toTool(toMcpTool(t, server.catalog.get(t.name)?.longRunningEstimateMs !== undefined)),
      );
      return { tools };
    },

    callTool,

    listResources: async (_r, life, principal) => {
      const listed = await server.operate(
        'resources/list',
        undefined,
        undefined,
        caller(life, principal),
        () => server.resources.list(),
      );
      return { resources: listed.map(toResource) };
    },

    listResourceTemplates: async (_r, life, principal) => {
      const listed = await server.operate(
        'resources/templates/list',
        undefined,
        undefined,
        caller(life, principal),
        () => server.resources.templates(),
      );
      return { resource_templates: listed.map(toResourceTemplate) };
    },

    readResource: async (r, life, principal) => {
      const uri = typeof r.uri === 'string' ? r.uri : '';
      checkRoute(life, 'mcp_resource', uri);
      const contents = await server.operate('resources/read', uri, undefined, caller(life, principal), () =>
        server.resources.read(uri, { signal: life.signal, principal }),
      );
      return { resource: contents.map(toResourceContents) };
    },

    listPrompts: async (_r, life, principal) => ({
      prompts: (await listPrompts(server, caller(life, principal))).map(toPrompt),
    }),

    getPrompt: async (r, life, principal) => {
      const name = typeof r.name === 'string' ? r.name : '';
      checkRoute(life, 'mcp_prompt', name);
      return toPromptResponse(
        await renderPrompt(server, caller(life, principal), name, r.arguments ?? {}, life.signal),
      );
    },

    complete: async (r, life, principal) => {
      const params = completionParams(r);
      const ref = params.ref as { uri?: string; name?: string };
      checkRoute(life, 'mcp_resource', ref.uri ?? ref.name ?? '');
      const { completion } = await server.operate(
        'completion/complete',
        undefined,
        params,
        caller(life, principal),
        () => completeArgument(server, params),
      );
      return { values: completion.values, total_matches: completion.total, has_more: completion.hasMore };
    },
  };

  /**
   * CallTool: the MCP tools/call of the 2026-07-28 revision in unary form. An elicitation is answered with
   * dependent requests and the signed state as resume data; the retry sends `dependent_responses` and the
   * resume data back (its `request` may be left out: the resume data names the call, and the state binds it).
   */
  async function callTool(r: Obj, life: CallLife, principal: Principal | undefined): Promise<Obj> {
    const common = r.common as RawRequestFields | undefined;
    const elicitation = elicitationReplyOfRetry(common);
    const body = r.request as { name?: string; arguments?: StructObject | null } | undefined;
    let name = body?.name;
    let args: unknown = body?.arguments ? fromStruct(body.arguments) : undefined;
    if (!body && elicitation) {
      const resume = fromStruct(common?.resume_data);
      name = typeof resume.name === 'string' ? resume.name : undefined;
      args = resume.arguments;
    }
    if (!name) {
      throw new McpLiteError('invalid_params', 'Invalid params: "request.name" must be a non-empty string', {
        errors: [{ field: 'request.name', message: 'is required and must be a string' }],
      });
    }
    checkRoute(life, 'mcp_tool', name);
    const tool = server.catalog.get(name);
    // As MCP lists it: a long-running tool lists no outputSchema, so its promise keeps structuredContent.
    const hasOutputSchema = tool?.wire.outputSchema !== undefined && tool.longRunningEstimateMs === undefined;
    const meta = common?.metadata ? fromStruct(common.metadata) : undefined;
    let result: Awaited<ReturnType<ToolServer['call']>>;
    const request = new BindingCall({
      name,
      arguments: args,
      principal,
      signalSource: life,
      elicitation,
      binding: BINDING,
      wire: { meta },
    });
    // The caller session (MCP-lite context) as MCP carries it: `_meta["mcplite/session"]`, here `common.metadata`.
    request.session = sessionTokenOf(meta, 'mcplite/session');
    try {
      result = await server.call(request);
      // As over MCP: a client that expects the call's own answer gets it when the work ends within the wait.
      const waitMs =
        result.outcome.type === 'promise' && !tool?.system ? inlineWaitMs(server, meta, life) : 0;
      if (waitMs > 0) {
        const promised = result as CallResult & { outcome: PromiseOutcome };
        result = await awaitPromised(server, promised, caller(life, principal), life.signal, waitMs);
      }
    } catch (err) {
      return toCallToolResponse(toolErrorOrThrow(err, false));
    }
    if (result.outcome.type === 'elicitation') return toDependentResponse(result.outcome, name, args);
    return toCallToolResponse(toCallToolResult(result, { hasOutputSchema }));
  }
}

/** How long before the client's deadline a waiting CallTool answers with the promise instead. */
const DEADLINE_MARGIN_MS = 1000;

/**
 * How long CallTool waits for a promise's work before answering with the promise: the server's
 * `mcpInlineWaitMs` (as MCP's `tools/call` does, for clients that expect the call's own answer), no longer than
 * the client asked in `common.metadata["mcplite/inline_wait_ms"]` (mcplite's client sends 0: it redeems by
 * itself), and ending a second before the client's deadline, so that the client gets the promise rather than
 * `DEADLINE_EXCEEDED`.
 */
function inlineWaitMs(server: ToolServer, meta: Obj | undefined, life: CallLife): number {
  let ms = server.mcpInlineWaitMs;
  const asked = meta?.[INLINE_WAIT_KEY];
  if (typeof asked === 'number' && asked >= 0) ms = Math.min(ms, asked);
  if (Number.isFinite(life.deadline)) ms = Math.min(ms, life.deadline - Date.now() - DEADLINE_MARGIN_MS);
  return Math.max(0, ms);
}

/**
 * The routing metadata (`mcp_tool`, `mcp_resource`, `mcp_prompt`) is what proxies route and authorize on: when
 * sent, it must name what the body names, or a proxy would allow one thing and the server run another.
 */
function checkRoute(life: CallLife, key: string, named: string): void {
  const routed = life.headers[key];
  if (routed === undefined || routed === named) return;
  throw new McpLiteError(
    'header_mismatch',
    `Invalid argument: metadata ${key} (${echoName(routed)}) does not match the request (${echoName(named)})`,
    { header: key },
  );
}

/** A CompletionRequest as MCP's `completion/complete` params (`completeArgument` checks them). */
function completionParams(r: Obj): Obj {
  const resource = r.resource_reference as { uri?: string } | undefined;
  const prompt = r.prompt_reference as { name?: string } | undefined;
  if (resource && prompt) {
    throw new McpLiteError(
      'invalid_params',
      'Invalid params: set resource_reference or prompt_reference, not both',
    );
  }
  const ref = resource
    ? { type: 'ref/resource', uri: resource.uri ?? '' }
    : prompt
      ? { type: 'ref/prompt', name: prompt.name ?? '' }
      : undefined;
  const argument = r.argument as { name?: string; value?: string } | undefined;
  const context = r.context as { arguments?: Record<string, string> } | undefined;
  return {
    ref,
    argument: argument ? { name: argument.name, value: argument.value ?? '' } : undefined,
    context: { arguments: context?.arguments ?? {} },
  };
}
