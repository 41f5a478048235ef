import type { Exchange } from './exchange.js';

/** What a native MCP tool's or prompt's handler gets: the exchange, with a signal that notifications/cancelled aborts. */
export interface McpNativeContext extends Omit<Exchange, 'finish'> {
  /** The progress token the client sent, if any. */
  progressToken: string | number | undefined;
}

/** A tool implemented directly on the MCP wire: raw `tools/call` params in, a raw result out. */
export interface McpNativeTool {
  /** The `Tool` as listed (name, description, inputSchema, …). */
  tool: { name: string; inputSchema: Record<string, unknown>; [key: string]: unknown };
  /** Returns the result object (`CallToolResult`, `InputRequiredResult`, …); throw an McpLiteError for errors. */
  handler: (
    params: Record<string, unknown>,
    ctx: McpNativeContext,
  ) => Record<string, unknown> | Promise<Record<string, unknown>>;
}

/** A prompt implemented directly on the MCP wire (e.g. a `prompts/get` that answers `input_required`). */
export interface McpNativePrompt {
  /** The `Prompt` as listed. */
  prompt: { name: string; [key: string]: unknown };
  handler: (
    params: Record<string, unknown>,
    ctx: McpNativeContext,
  ) => Record<string, unknown> | Promise<Record<string, unknown>>;
}

/** The context a native handler gets: the exchange, with the flight's signal and the progress token. */
export function nativeContext(
  x: Exchange,
  signal: AbortSignal,
  progressToken: string | number | undefined,
): McpNativeContext {
  return {
    revision: x.revision,
    stateless: x.stateless,
    clientCapabilities: x.clientCapabilities,
    logLevel: x.logLevel,
    session: x.session,
    principal: x.principal,
    remoteAddress: x.remoteAddress,
    signal,
    canNotify: x.canNotify,
    notify: (message) => x.notify(message),
    request: x.request,
    progressToken,
  };
}
