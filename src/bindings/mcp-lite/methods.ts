import type { Principal } from '../../core/auth.js';
import type { CallWire } from '../../core/call-request.js';
import type { Listing } from '../../core/catalog.js';
import { McpLiteError, toMcpLiteError } from '../../core/errors.js';
import type { Logger } from '../../core/logger.js';
import { type MaybePromise, mapMaybe } from '../../core/maybe-promise.js';
import type { BindingName } from '../../core/operation.js';
import type { ToolServer } from '../../core/server.js';
import { answerBatch, DEFAULT_MAX_BATCH } from '../common/batch.js';
import { BindingCall, BindingCaller, type CallSource, sessionTokenOf } from '../common/binding-call.js';
import { echoName } from '../common/echo.js';
import { elicitationReplyOf, invalidElicitation } from '../common/elicitation.js';
import { errorExit } from '../common/error-exit.js';
import { idOf, isObject, type JsonRpcRequest, validateRequest } from '../common/jsonrpc.js';
import { listPrompts, renderPrompt } from '../common/prompts.js';
import { rpcErrorMessage, wireResultJson } from './wire.js';

/**
 * Where a message came from, as far as a tool call cares: the signal that aborts it (the client hung up, or
 * cancelled it) and the peer's address. A getter may make the signal on first use: most calls never read it.
 */
export type RpcOrigin = CallSource;

/** What an answer is turned into: a framing's reply, from the serialised result or the error the call ended in. */
export type ReplyOf<T> = (m: JsonRpcRequest, result: string | undefined, err?: unknown) => T;

/**
 * The MCP-lite JSON-RPC methods (`tools/call`, `tools/list`, `prompts/list`, `prompts/get`) and batches, independent of the framing that carries
 * them: the HTTP binding (one message or batch per POST), the WebSocket binding and stdio (many messages on one
 * connection) all answer through this. Answers come synchronously when the tool answers synchronously, because
 * every promise turn costs the HTTP hot path.
 */
export interface McpLiteRpc {
  /**
   * Answers one valid message through `reply`, with its serialised result or the error it ended in. `onPartial`
   * makes a tools/call streaming (the handler's partials go there, not into the answer).
   */
  answer<T>(
    m: JsonRpcRequest,
    origin: RpcOrigin,
    principal: Principal | undefined,
    reply: ReplyOf<T>,
    onPartial?: (data: unknown) => void | Promise<void>,
  ): MaybePromise<T>;
  /** A message's answer as a batch member gives it: its response, or undefined for a notification. */
  readonly messageReply: ReplyOf<string | undefined>;
  /** Validates and answers one message as a batch member (an invalid one answered in place). */
  answerUnchecked(
    message: unknown,
    origin: RpcOrigin,
    principal: Principal | undefined,
  ): MaybePromise<string | undefined>;
  /** Answers a batch: its array, or undefined when every member was a notification; rejects for a bad batch. */
  batch(
    messages: unknown[],
    origin: RpcOrigin,
    principal: Principal | undefined,
  ): Promise<string | undefined>;
  /** The tools/call request of a message, checked (throws `invalid_params`). */
  toolCall(
    m: JsonRpcRequest & { params: Record<string, unknown> },
    origin: RpcOrigin,
    principal: Principal | undefined,
    onPartial?: (data: unknown) => void | Promise<void>,
  ): BindingCall;
  /** The binding's logger, which its error exit (`common/error-exit.ts`) logs an internal error to. */
  readonly log: Pick<Logger, 'error'>;
}

/** Options of the MCP-lite JSON-RPC handling. */
export interface McpLiteRpcOptions {
  /** Most messages in one batch. Default 100. */
  maxBatchSize?: number | undefined;
  /** The binding's one name in its log lines, metrics and `op.caller.binding`. */
  binding: 'http' | 'ws' | 'stdio';
}

/** Makes the MCP-lite JSON-RPC handling of a tool server (one per binding; it keeps no per-call state). */
export function createMcpLiteRpc(server: ToolServer, options: McpLiteRpcOptions): McpLiteRpc {
  const maxBatch = options.maxBatchSize ?? DEFAULT_MAX_BATCH;
  const callBinding = options.binding;
  const log = server.logger.child({ binding: callBinding });

  function answer<T>(
    m: JsonRpcRequest,
    origin: RpcOrigin,
    principal: Principal | undefined,
    reply: ReplyOf<T>,
    onPartial?: (data: unknown) => void | Promise<void>,
  ): MaybePromise<T> {
    let result: MaybePromise<string>;
    try {
      result = dispatch(m, origin, principal, onPartial);
    } catch (err) {
      return reply(m, undefined, err);
    }
    if (typeof result === 'string') return reply(m, result);
    return result.then(
      (r) => reply(m, r),
      (err) => reply(m, undefined, err),
    );
  }

  function messageReply(m: JsonRpcRequest, result: string | undefined, err?: unknown): string | undefined {
    if (!('id' in m)) return undefined;
    if (result !== undefined) return resultResponse(m, result);
    return rpcErrorMessage(m.id, errorExit(err, log));
  }

  function answerUnchecked(
    message: unknown,
    origin: RpcOrigin,
    principal: Principal | undefined,
  ): MaybePromise<string | undefined> {
    let m: JsonRpcRequest;
    try {
      m = validateRequest(message);
    } catch (err) {
      const e = toMcpLiteError(err);
      return rpcErrorMessage(idOf(message, e), e);
    }
    return answer(m, origin, principal, messageReply);
  }

  /** Runs one method; returns the serialised result, synchronously when the method could answer at once. */
  function dispatch(
    m: JsonRpcRequest,
    origin: RpcOrigin,
    principal: Principal | undefined,
    onPartial: ((data: unknown) => void | Promise<void>) | undefined,
  ): MaybePromise<string> {
    switch (m.method) {
      case 'tools/list':
        return mapMaybe(server.listToolsFor(new BindingCaller(callBinding, origin, principal)), listingJson);
      case 'tools/call': {
        if (!m.params || Array.isArray(m.params)) {
          throw new McpLiteError(
            'invalid_params',
            'Invalid params: tools/call needs params { name, arguments }',
          );
        }
        const call = toolCall(
          m as JsonRpcRequest & { params: Record<string, unknown> },
          origin,
          principal,
          onPartial,
          callBinding,
        );
        return mapMaybe(server.call(call), wireResultJson);
      }
      // Prompts (spec 8.1) in MCP's shapes: `{ prompts }` and `{ description?, messages }`.
      case 'prompts/list':
        return mapMaybe(listPrompts(server, new BindingCaller(callBinding, origin, principal)), (prompts) =>
          JSON.stringify({ prompts }),
        );
      case 'prompts/get': {
        const params = isObject(m.params) ? m.params : {};
        const caller = new BindingCaller(callBinding, origin, principal);
        return mapMaybe(renderPrompt(server, caller, params.name, params.arguments, origin.signal), (r) =>
          JSON.stringify(r),
        );
      }
      default: {
        const method = echoName(m.method);
        throw new McpLiteError('method_not_found', `Method not found: ${method}`, {
          method,
          available_methods: ['tools/call', 'tools/list', 'prompts/list', 'prompts/get'],
        });
      }
    }
  }

  return {
    answer,
    messageReply,
    answerUnchecked,
    batch: (messages, origin, principal) =>
      answerBatch(
        messages,
        maxBatch,
        (m) => answerUnchecked(m, origin, principal),
        (m, err) => rpcErrorMessage(idOf(m, err), err),
      ),
    toolCall: (m, origin, principal, onPartial) => toolCall(m, origin, principal, onPartial, callBinding),
    log,
  };
}

function listingJson(listing: Listing): string {
  return listing.json;
}

/** A result response, written around the already serialised result. */
export function resultResponse(m: JsonRpcRequest, result: string): string {
  return `{"jsonrpc":"2.0","id":${JSON.stringify(m.id)},"result":${result}}`;
}

/**
 * A tools/call request as core takes it: the name, the arguments and the answer to an elicitation, checked
 * (throws `invalid_params`). The signal and the peer address are read from the origin only if core asks.
 */
function toolCall(
  m: JsonRpcRequest & { params: Record<string, unknown> },
  origin: RpcOrigin,
  principal: Principal | undefined,
  onPartial: ((data: unknown) => void | Promise<void>) | undefined,
  binding: BindingName,
): BindingCall {
  const { name, arguments: args, elicitation } = m.params;
  if (typeof name !== 'string') {
    throw new McpLiteError('invalid_params', 'Invalid params: "name" must be a string', {
      errors: [{ field: 'name', message: 'is required and must be a string' }],
    });
  }
  const answer = elicitation === undefined ? undefined : elicitationReplyOf(elicitation, invalidElicitation);
  const call = new BindingCall({
    name,
    arguments: args,
    principal,
    signalSource: origin,
    requestId: m.id ?? undefined,
    onPartial,
    elicitation: answer,
    binding,
    wire: metaOf(m.params),
  });
  // The caller's session (MCP-lite context) comes back in `_meta.session`.
  call.session = sessionTokenOf(m.params._meta, 'session');
  return call;
}

/** The call's `params._meta` (its trace context, SEP-414), for tracing; undefined when it sent none. */
function metaOf(params: Record<string, unknown>): CallWire | undefined {
  const meta = params._meta;
  return isObject(meta) ? { meta } : undefined;
}
