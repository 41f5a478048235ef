import type { Principal } from '../../core/auth.js';
import type { ElicitationReply } from '../../core/elicitations.js';
import { McpLiteError } from '../../core/errors.js';
import { type MaybePromise, mapMaybe } from '../../core/maybe-promise.js';
import type { CallResult } from '../../core/outcomes.js';
import type { ToolServer } from '../../core/server.js';
import { BindingCall, BindingCaller } from '../common/binding-call.js';
import { elicitationReplyOf, invalidElicitation } from '../common/elicitation.js';
import { listPrompts, renderPrompt } from '../common/prompts.js';
import type { CallLife, MetadataSource } from './call-life.js';
import { isMalformed, rejectionOf } from './proto.js';
import { fromStruct, type StructObject } from './struct.js';
import {
  SESSION_METADATA_KEY,
  toGrpcPrompt,
  toGrpcPromptResponse,
  toGrpcTool,
  type WireGrpcTool,
} from './wire.js';

/** The binding's one name (`op.caller.binding`, `ctx.binding`, logs, metrics). */
export const BINDING = 'grpc';

/** mcplite.ToolRequest as the loader decodes it. */
interface RawToolRequest {
  name?: string;
  arguments?: StructObject | null;
  elicitation?: { state?: string; answers?: StructObject | null; action?: string } | null;
}

/**
 * The methods of mcplite.MCPLite, independent of grpc-js's framing (`service.ts`): each RPC's decoded request
 * in, core called, the result out in the proto's form (a tool call's `CallResult`, which the framing encodes with
 * `toToolResponse`, unary or as the end of a stream). The caller is already authenticated and counted. One per
 * binding: it keeps the catalog's listing in the proto's form.
 */
export class GrpcMethods {
  private listing: { version: number; tools: WireGrpcTool[] } | undefined;

  constructor(private readonly server: ToolServer) {}

  /** GetTools: the listing as this caller may see it. */
  getTools(
    source: MetadataSource,
    principal: Principal | undefined,
  ): MaybePromise<{ tools: WireGrpcTool[] }> {
    const server = this.server;
    const catalog = server.listTools();
    return mapMaybe(server.listToolsFor(new BindingCaller(BINDING, source, principal)), (current) => {
      // The catalog's own listing is converted once per version; a middleware's listing per request.
      if (current !== catalog) return { tools: current.tools.map(toGrpcTool) };
      if (this.listing?.version !== current.version) {
        this.listing = { version: current.version, tools: current.tools.map(toGrpcTool) };
      }
      return { tools: this.listing.tools };
    });
  }

  /**
   * CallTool and CallToolStream: the ToolRequest run as a core call (`onPartial` makes it streaming). Throws for
   * a bad request, or for a call whose life already ended.
   */
  callTool(
    raw: unknown,
    life: CallLife,
    principal: Principal | undefined,
    onPartial?: (data: unknown) => Promise<void>,
  ): Promise<CallResult> {
    const { name, args, elicitation } = readToolRequest(raw as RawToolRequest);
    // A call whose deadline passed on the way (or while authenticating) is answered without running the tool.
    if (life.abort.aborted) throw life.abort.reason;
    const request = new BindingCall({
      name,
      arguments: args,
      principal,
      signalSource: life,
      onPartial,
      elicitation,
      binding: BINDING,
    });
    request.session = life.headers?.[SESSION_METADATA_KEY];
    return this.server.callTool(request);
  }

  /** GetPrompts (spec 8.1): the prompts this caller may see; its caller walks the chain (common/prompts.ts). */
  getPrompts(life: CallLife, principal: Principal | undefined): MaybePromise<unknown> {
    return mapMaybe(listPrompts(this.server, new BindingCaller(BINDING, life, principal)), (prompts) => ({
      prompts: prompts.map(toGrpcPrompt),
    }));
  }

  /** GetPrompt: one prompt rendered, the call's life giving the prompt handler its signal. */
  getPrompt(raw: unknown, life: CallLife, principal: Principal | undefined): MaybePromise<unknown> {
    const r = raw as { name?: string; arguments?: Record<string, string> | null };
    return mapMaybe(
      renderPrompt(
        this.server,
        new BindingCaller(BINDING, life, principal),
        r.name,
        r.arguments ?? {},
        life.signal,
      ),
      toGrpcPromptResponse,
    );
  }
}

/** What core needs of a ToolRequest. proto3 cannot tell an empty name from a missing one: both are invalid. */
function readToolRequest(raw: RawToolRequest): {
  name: string;
  args: unknown;
  elicitation: ElicitationReply | undefined;
} {
  if (isMalformed(raw)) throw rejectionOf(raw, 'mcplite.ToolRequest');
  const name = raw.name;
  if (!name) {
    throw new McpLiteError('invalid_params', 'Invalid params: "name" must be a string', {
      errors: [{ field: 'name', message: 'is required and must be a string' }],
    });
  }
  const e = raw.elicitation;
  return {
    name,
    args: raw.arguments ? fromStruct(raw.arguments) : undefined,
    elicitation: e
      ? elicitationReplyOf(
          { state: e.state ?? '', answers: fromStruct(e.answers), action: e.action || undefined },
          invalidElicitation,
        )
      : undefined,
  };
}
