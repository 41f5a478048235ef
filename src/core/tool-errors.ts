import type { McpLiteError } from './errors.js';

/**
 * Which errors are the tool's own (tool execution errors) rather than the request's: arguments that fail the input
 * schema, and whatever the work itself threw. MCP answers these as a `CallToolResult` with `isError` (SEP-1303,
 * spec 2025-11-25) so that the model can read them and correct itself; the MCP-lite wires answer every error the
 * same way, so they never ask. Kept beside the error rather than as a code of its own: `invalid_params` is also a
 * malformed request's code, and `internal` the server's own.
 */

const toolErrors = new WeakSet<McpLiteError>();

/**
 * Marks an error as the tool's own and returns it. A cancellation is left unmarked: the client stopped the call,
 * and there is nobody to read a result.
 */
export function asToolError(err: McpLiteError): McpLiteError {
  if (err.code !== 'cancelled') toolErrors.add(err);
  return err;
}

/** Whether an error is the tool's own (see `asToolError`). */
export function isToolError(err: unknown): err is McpLiteError {
  return typeof err === 'object' && err !== null && toolErrors.has(err as McpLiteError);
}
