import { McpLiteError } from '../errors.js';
import type { Middleware, OperationCaller } from '../operation.js';
import { withVisibility } from '../pipeline.js';
import type { WireTool } from '../tool.js';
import { toolOf } from '../tool-call-operation.js';

/**
 * Shows each caller only the tools `visible(tool, caller)` accepts: a hidden tool is absent from that caller's
 * listing on every binding (`tools/list`, MCP-lite `listtools`, gRPC `GetTools`, the Webtools metadata) and is
 * `tool_not_found` when that caller calls it, before its arguments are checked, so that nothing tells the
 * caller it exists. `tool` is the tool as listed (name, description, schemas, `@type`).
 */
export function visibleTools(visible: (tool: WireTool, caller: OperationCaller) => boolean): Middleware {
  const middleware: Middleware = (op, next) => {
    if (op.method === 'tools/list') {
      const listed = next();
      const filter = (tools: unknown) => (tools as readonly WireTool[]).filter((t) => visible(t, op.caller));
      return listed instanceof Promise ? listed.then(filter) : filter(listed);
    }
    if (op.method === 'tools/call') {
      // Core refused it already (withVisibility); this holds when the chain runs without core's lookup.
      const tool = toolOf(op);
      if (tool && !visible(tool.wire, op.caller)) {
        throw new McpLiteError('tool_not_found', `Unknown tool: ${op.name}`, { requested_tool: op.name });
      }
    }
    return next();
  };
  return withVisibility(middleware, visible);
}
