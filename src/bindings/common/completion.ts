import { McpLiteError } from '../../core/errors.js';
import type { ToolServer } from '../../core/server.js';
import { echoName } from './echo.js';
import { isObject } from './jsonrpc.js';

/** Most values one completion answers; `total` and `hasMore` tell of the rest. */
const MAX_COMPLETION_VALUES = 100;

/**
 * MCP `completion/complete` on the server's prompts and resource templates, for every wire that offers it (MCP's
 * JSON-RPC, MCP over gRPC): `params` is MCP's `{ ref, argument: { name, value }, context: { arguments } }`, the
 * answer MCP's `{ completion: { values, total, hasMore } }`. An unknown prompt is `prompt_not_found`; a malformed
 * request `invalid_params`. The caller runs it inside `server.operate('completion/complete', ...)`.
 */
export async function completeArgument(
  server: ToolServer,
  params: Record<string, unknown>,
): Promise<{ completion: { values: string[]; total: number; hasMore: boolean } }> {
  const ref = params.ref;
  const argument = params.argument;
  if (!isObject(ref) || !isObject(argument) || typeof argument.name !== 'string') {
    throw new McpLiteError(
      'invalid_params',
      'Invalid params: completion/complete needs ref and argument { name, value }',
    );
  }
  const value = typeof argument.value === 'string' ? argument.value : '';
  const context =
    isObject(params.context) && isObject(params.context.arguments) ? params.context.arguments : {};
  const args = Object.fromEntries(Object.entries(context).filter(([, v]) => typeof v === 'string')) as Record<
    string,
    string
  >;
  let values: string[];
  if (ref.type === 'ref/prompt' && typeof ref.name === 'string') {
    if (!server.prompts.has(ref.name)) {
      throw new McpLiteError('prompt_not_found', `Prompt not found: ${echoName(ref.name)}`, {
        reason: 'prompt_not_found',
      });
    }
    values = await server.prompts.complete(ref.name, argument.name, value, args);
  } else if (ref.type === 'ref/resource' && typeof ref.uri === 'string') {
    values = await server.resources.complete(ref.uri, argument.name, value, args);
  } else {
    throw new McpLiteError(
      'invalid_params',
      'Invalid params: ref must be ref/prompt { name } or ref/resource { uri }',
    );
  }
  const total = values.length;
  return {
    completion: {
      values: values.slice(0, MAX_COMPLETION_VALUES),
      total,
      hasMore: total > MAX_COMPLETION_VALUES,
    },
  };
}
