/**
 * The MCP binding (`mcplite/mcp`): `createMcpBinding` (Streamable HTTP) and `createLegacySseBinding` (the 2024-11-05
 * HTTP+SSE transport), both neutral handlers that run on any runtime, the native tool and prompt types, and the
 * revisions served. MCP's transports that need Node (stdio, WebSocket) are served from `mcplite/node`. How it is
 * built: docs/architecture.md.
 */
export {
  createLegacySseBinding,
  type LegacySseHandler,
  type LegacySseOptions,
} from './legacy-sse/index.js';
export type { McpNativeContext, McpNativePrompt, McpNativeTool } from './native.js';
export { STATELESS_REVISION, SUPPORTED_REVISIONS } from './revisions.js';
export { createMcpBinding, type McpBindingOptions, type McpHandler } from './streamable-http/index.js';
