import type { MaybePromise } from '../../core/maybe-promise.js';
import type { CallerSource } from '../../core/operation-caller.js';
import type { RenderedPrompt, WirePrompt } from '../../core/prompts.js';
import type { ToolServer } from '../../core/server.js';
import { isObject } from './jsonrpc.js';

/**
 * The prompt operations of the bindings without an engine of their own (MCP-lite over HTTP, JSON-RPC, WebSocket,
 * stdio and gRPC; MCP over gRPC): each walks the server's chain (`prompts/list`, `prompts/get`) with the binding's
 * caller, and core's catalog answers (unknown prompts `prompt_not_found`, bad arguments `invalid_params`).
 */

/** Every prompt the caller may see (`prompts/list` through the chain). */
export function listPrompts(server: ToolServer, caller: CallerSource): MaybePromise<readonly WirePrompt[]> {
  return server.operate('prompts/list', undefined, undefined, caller, () => server.prompts.list());
}

/** Renders prompt `name` with `args` (strings) in MCP's shape, `{ description?, messages }`. */
export function renderPrompt(
  server: ToolServer,
  caller: CallerSource,
  name: unknown,
  args: unknown,
  signal: AbortSignal,
): MaybePromise<RenderedPrompt> {
  return server.operate(
    'prompts/get',
    typeof name === 'string' ? name : undefined,
    isObject(args) ? args : undefined,
    caller,
    () => server.prompts.get(name, args, { signal, principal: caller.principal }),
  );
}
